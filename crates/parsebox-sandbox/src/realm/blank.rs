//! A realm before its parser: the context with its host hooks and clock, the guarded
//! built-ins and the prelude, built once per set-up key and reused.

use std::cell::Cell;
use std::rc::Rc;

use boa_engine::context::time::JsInstant;
use boa_engine::context::{Clock, ContextBuilder, HostHooks};
use boa_engine::job::IdleJobExecutor;
use boa_engine::module::IdleModuleLoader;
use boa_engine::object::{FunctionObjectBuilder, JsObject};
use boa_engine::realm::Realm as BoaRealm;
use boa_engine::{
    js_string, Context, JsError, JsNativeError, JsResult, JsString, JsValue, NativeFunction, Source,
};

use crate::regex_limits::{check_regex_input, RegexLimits};
use crate::regex_screen::screen_pattern;
use crate::SandboxOptions;

use super::stop::InitError;

const PRELUDE: &str = include_str!("../prelude.js");

/// The realm's clock: `Date.now()` / `new Date()` read the current line's time, 0 otherwise.
#[derive(Debug, Default)]
pub(super) struct LineClock {
    pub(super) millis: Cell<i64>,
}

impl Clock for LineClock {
    fn now(&self) -> JsInstant {
        // Only timers and Atomics use the monotonic clock; neither exists in the realm.
        JsInstant::new(0, 0)
    }
    fn system_time_millis(&self) -> i64 {
        self.millis.get()
    }
}

/// Host hooks: UTC as the local time zone, and no code generation from strings (`eval`,
/// `Function(...)`): string-compiled code would run in nested engine calls the budget cannot
/// interrupt, and no real parser needs it.
#[derive(Debug, Clone, Copy)]
struct Hooks;

impl HostHooks for Hooks {
    fn ensure_can_compile_strings(
        &self,
        _realm: BoaRealm,
        _parameters: &[JsString],
        _body: &JsString,
        _direct: bool,
        _context: &mut Context,
    ) -> JsResult<()> {
        Err(JsNativeError::eval()
            .with_message(
                "code generation from strings (eval, Function) is disabled in the parsebox sandbox",
            )
            .into())
    }
    fn local_timezone_offset_seconds(&self, _unix_time_seconds: i64) -> i32 {
        0
    }
}

/// What a realm's set-up bakes in from the options: the prelude's constants. Two blank realms
/// with equal keys are interchangeable; the other options a realm reads are laid on when the
/// parser is loaded into it ([`Blank::apply`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetupKey {
    max_builtin_elements: usize,
    max_builtin_string_len: usize,
    max_result_depth: usize,
    max_result_values: usize,
    bounded_builtins: bool,
}

impl SetupKey {
    pub(crate) fn of(opts: &SandboxOptions) -> SetupKey {
        SetupKey {
            max_builtin_elements: opts.max_builtin_elements,
            max_builtin_string_len: opts.max_builtin_string_len,
            max_result_depth: opts.max_result_depth,
            max_result_values: opts.max_result_values,
            bounded_builtins: opts.bounded_builtins,
        }
    }
}

/// A realm with the host functions, the guarded built-ins and the prelude in place, and no
/// parser code yet: most of a realm's set-up cost (parsing and running the prelude), which can
/// therefore be paid ahead of time ([`crate::BlankRealm`]).
/// Values boa's VM stack may hold (boa's default is 10,240). boa 0.22 leaves a few values on
/// its stack for every exception a function catches until that function returns, so a parser
/// that catches a few thousand throws in one call (a `try { JSON.parse(part) } catch {}` over
/// the parts of a line) overflowed the default where Node carries on. Recursion stays bounded
/// by `recursion_limit`; the memory this may take is bounded by the engine's memory maximum.
const VM_STACK_VALUES: usize = 1 << 20;

pub(crate) struct Blank {
    pub(super) ctx: Context,
    pub(super) clock: Rc<LineClock>,
    pub(super) host: JsObject,
    pub(crate) key: SetupKey,
}

impl Blank {
    /// Builds the context and runs the prelude with `opts`' constants.
    pub(crate) fn new(opts: &SandboxOptions) -> Result<Blank, InitError> {
        let setup = |e: JsError| InitError::Setup(e.to_string());
        let clock = Rc::new(LineClock::default());
        let mut ctx = ContextBuilder::new()
            .host_hooks(Rc::new(Hooks))
            .clock(clock.clone())
            .job_executor(Rc::new(IdleJobExecutor))
            .module_loader(Rc::new(IdleModuleLoader))
            .build()
            .map_err(setup)?;
        ctx.insert_data(RegexLimits::of(opts));
        crate::number_format::install(&mut ctx).map_err(setup)?;
        crate::pow::install(&mut ctx).map_err(setup)?;
        crate::date_constructor::install(&mut ctx).map_err(setup)?;
        let screen = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let pattern = args.first().cloned().unwrap_or_default().to_string(ctx)?;
            let flags = args.get(1).cloned().unwrap_or_default().to_string(ctx)?;
            let limits = RegexLimits::get(ctx);
            Ok(
                match screen_pattern(
                    &pattern.to_std_string_lossy(),
                    &flags.to_std_string_lossy(),
                    limits.max_source,
                    limits.screen_shapes,
                ) {
                    Ok(()) => JsValue::undefined(),
                    Err(why) => JsValue::from(JsString::from(why.as_str())),
                },
            )
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_screen"), 2, screen)
            .map_err(setup)?;
        // JSON.parse's core (the prelude adds the bytecode reviver walk): see json.rs.
        let json_parse = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let text = args.first().cloned().unwrap_or_default().to_string(ctx)?;
            crate::json::parse(&text, ctx)
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_json"), 1, json_parse)
            .map_err(setup)?;
        // `createData(object, key, value)`: CreateDataProperty, what JSON.parse's reviver walk
        // writes each revived value with (as V8 does: no descriptor object, and `false`, not
        // a TypeError, where the property cannot be defined). Runs no guest code but a Proxy's
        // trap, as `Object.defineProperty` did in its place.
        let create_data = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
            let Some(object) = arg(0).as_object() else {
                return Ok(JsValue::from(false));
            };
            let key = arg(1).to_property_key(ctx)?;
            Ok(JsValue::from(object.create_data_property(
                key,
                arg(2),
                ctx,
            )?))
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_create_data"), 3, create_data)
            .map_err(setup)?;
        // `slots(len)`: an array of `len` undefineds, stored densely, which the prelude's `map`
        // and `filter` write their answers into (boa writes an element in place cheaply, and
        // appends one through the general steps, ~2,000 instructions). Charged `len` cycles.
        let slots = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let len = args.first().cloned().unwrap_or_default().to_length(ctx)?;
            crate::clock::charge_native(len)?;
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            let undefined = std::iter::repeat_n(JsValue::undefined(), len);
            Ok(boa_engine::object::builtins::JsArray::from_iter(undefined, ctx).into())
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_slots"), 1, slots)
            .map_err(setup)?;
        // `take(slots, n)`: a new dense array of the first `n` of `slots` (filter's answer: its
        // slots cut to what was kept without deleting the rest one element at a time, or
        // setting `length` through boa's inline cache, which leaves them). `slots` is the
        // prelude's own, every index below its length set: no getter runs. Charged `n` cycles.
        let take = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let from = args.first().and_then(JsValue::as_object).ok_or_else(|| {
                boa_engine::JsNativeError::typ().with_message("take: not an array")
            })?;
            let n = args.get(1).cloned().unwrap_or_default().to_length(ctx)?;
            crate::clock::charge_native(n)?;
            let items = (0..n)
                .map(|i| from.get(i, ctx))
                .collect::<JsResult<Vec<_>>>()?;
            Ok(boa_engine::object::builtins::JsArray::from_iter(items, ctx).into())
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_take"), 2, take)
            .map_err(setup)?;
        // RegExp.prototype.exec with the input-length cap, native: every regex method and the
        // String regex methods call it, and a bytecode wrapper cost ~15 % per line.
        let native_exec = ctx
            .intrinsics()
            .constructors()
            .regexp()
            .prototype()
            .get(js_string!("exec"), &mut ctx)
            .map_err(setup)?
            .as_object()
            .ok_or_else(|| InitError::Setup("RegExp.prototype.exec missing".to_owned()))?;
        let [source, sets] = crate::regex_methods::slot_getters(&ctx).map_err(setup)?;
        let guarded_exec = NativeFunction::from_copy_closure_with_captures(
            move |this, args, captures: &[JsObject; 3], ctx| {
                let [exec, getters @ ..] = captures;
                if let Some(answer) = crate::regex_methods::exec(this, args, getters, ctx) {
                    return answer;
                }
                let input = args.first().cloned().unwrap_or_default().to_string(ctx)?;
                check_regex_input(input.len(), ctx)?;
                exec.call(this, &[JsValue::from(input)], ctx)
            },
            [native_exec, source, sets],
        );
        let guarded_exec = FunctionObjectBuilder::new(ctx.realm(), guarded_exec)
            .name(js_string!("exec"))
            .length(1)
            .build();
        ctx.register_global_property(
            js_string!("__parsebox_exec"),
            guarded_exec,
            boa_engine::property::Attribute::all(),
        )
        .map_err(setup)?;
        let prelude = PRELUDE
            .replace("@MAX_ELEMENTS@", &opts.max_builtin_elements.to_string())
            .replace("@MAX_STRING@", &opts.max_builtin_string_len.to_string())
            .replace("@MAX_DEPTH@", &opts.max_result_depth.to_string())
            .replace("@MAX_NODES@", &opts.max_result_values.to_string())
            .replace(
                "@BOUNDED@",
                if opts.bounded_builtins {
                    "true"
                } else {
                    "false"
                },
            );
        // Before the prelude: where it puts a bytecode method in front of a built-in (`join`,
        // `sort`, `repeat` …), it captures the charged one, and a parser's callbacks stay
        // called from bytecode, where the budget counts them (charged_builtins.rs).
        if opts.bounded_builtins {
            crate::charged_builtins::install(&mut ctx).map_err(setup)?;
        }
        // Piece by piece, so the realm never holds the whole prelude's syntax tree at once
        // (prelude.js says how the pieces share their helpers).
        for piece in prelude.split("\n//@piece\n") {
            ctx.eval(Source::from_bytes(piece.as_bytes()))
                .map_err(setup)?;
        }
        if opts.bounded_builtins {
            crate::regex_methods::install(&mut ctx).map_err(setup)?;
        }
        let global = ctx.global_object();
        for k in [
            "__parsebox_screen",
            "__parsebox_json",
            "__parsebox_slots",
            "__parsebox_take",
            "__parsebox_create_data",
            "__parsebox_exec",
            "__parsebox_pow",
            "__parsebox_date",
            "__parsebox_h",
        ] {
            global
                .delete_property_or_throw(JsString::from(k), &mut ctx)
                .map_err(setup)?;
        }
        let host = global
            .get(js_string!("__parsebox"), &mut ctx)
            .map_err(setup)?
            .as_object()
            .ok_or_else(|| InitError::Setup("prelude did not install __parsebox".to_owned()))?;
        Ok(Blank {
            ctx,
            clock,
            host,
            key: SetupKey::of(opts),
        })
    }

    /// Lays `opts`' other limits onto the realm: boa's runtime limits and the regex limits.
    pub(super) fn apply(&mut self, opts: &SandboxOptions) {
        let limits = self.ctx.runtime_limits_mut();
        // (The loop limit follows each call's budget: set again in `Realm::run`.)
        limits
            .set_loop_iteration_limit(opts.loop_limit(crate::clock::work_of(opts.line_budget_ms)));
        limits.set_recursion_limit(opts.recursion_limit);
        limits.set_stack_size_limit(VM_STACK_VALUES);
        self.ctx.insert_data(RegexLimits::of(opts));
    }
}
