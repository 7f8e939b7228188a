//! One boa `Context` holding one parser instance: realm set-up, budgeted calls, conversion.

use std::cell::Cell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Poll, Wake, Waker};

use boa_engine::context::time::JsInstant;
use boa_engine::context::{Clock, ContextBuilder, HostHooks};
use boa_engine::error::EngineError;
use boa_engine::job::IdleJobExecutor;
use boa_engine::module::IdleModuleLoader;
use boa_engine::object::JsObject;
use boa_engine::property::PropertyKey;
use boa_engine::realm::Realm as BoaRealm;
use boa_engine::script::Script;
use boa_engine::value::JsVariant;
use boa_engine::{
    js_string, Context, JsError, JsNativeError, JsResult, JsString, JsValue, NativeFunction, Source,
};
use serde_json::Value;
use web_time::{Duration, Instant};

use crate::convert::{Caps, Conv, Walk};
use crate::regex_screen::screen_pattern;
use crate::source::{Prepared, Shape};
use crate::{EntryPoint, SandboxOptions};

const PRELUDE: &str = include_str!("prelude.js");

/// The realm's clock: `Date.now()` / `new Date()` read the current line's time, 0 otherwise.
#[derive(Debug, Default)]
struct LineClock {
    millis: Cell<i64>,
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

struct NoopWaker;
impl Wake for NoopWaker {
    fn wake(self: Arc<Self>) {}
}

/// How a budgeted evaluation ended when it did not return a value.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The guest threw (a catchable error): the realm is still clean.
    Threw(String),
    /// The wall-clock deadline passed: the evaluation was dropped mid-flight.
    Deadline,
    /// The heap grew more than allowed.
    Memory(usize),
    /// boa's loop-iteration, recursion or stack-size limit.
    Limit(String),
    /// The engine panicked or failed internally.
    Fault(String),
}

impl Stop {
    /// Whether boa's VM stack may hold abandoned frames: the realm must be rebuilt.
    pub(crate) fn dirties(&self) -> bool {
        !matches!(self, Stop::Threw(_))
    }
}

/// A fresh realm with a loaded parser instance.
pub(crate) struct Realm {
    ctx: Context,
    clock: Rc<LineClock>,
    host: JsObject,
    date_parse: JsObject,
    call: Script,
    conv: Script,
    reset: Script,
    pub(crate) entry: EntryPoint,
}

/// Why a realm could not be created.
#[derive(Debug)]
pub(crate) enum InitError {
    /// The module or the factory threw, ran over budget, …
    Stopped(Stop),
    /// No usable export (`no_export`) or a factory result without `parseLine` (`bad_factory`).
    Exports(&'static str),
    /// The engine could not set up the realm (a bug).
    Setup(String),
}

fn key(s: &'static str) -> PropertyKey {
    PropertyKey::from(JsString::from(s))
}

/// A short description of a thrown value, read without running guest code.
fn describe(err: &JsError) -> String {
    if let Some(native) = err.as_native() {
        return native.to_string();
    }
    let Some(v) = err.as_opaque() else {
        return "engine error".to_owned();
    };
    match v.variant() {
        JsVariant::Object(o) => {
            let read = |k: &'static str| -> Option<String> {
                let mut p = Some(o.clone());
                for _ in 0..8 {
                    let obj = p?;
                    if let Some(d) = obj.borrow().properties().get(&key(k)) {
                        return d
                            .value()
                            .and_then(JsValue::as_string)
                            .map(|s| s.to_std_string_lossy());
                    }
                    p = obj.prototype();
                }
                None
            };
            match (read("name"), read("message")) {
                (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
                (Some(n), _) => n,
                (None, Some(m)) => m,
                (None, None) => "a non-Error object".to_owned(),
            }
        }
        JsVariant::String(s) => s.to_std_string_lossy(),
        _ => v.display().to_string(),
    }
}

fn classify(err: JsError) -> Stop {
    match err.as_engine() {
        Some(EngineError::RuntimeLimit(l)) => Stop::Limit(l.to_string()),
        Some(other) => Stop::Fault(other.to_string()),
        None => Stop::Threw(describe(&err)),
    }
}

fn deadline_passed() -> (&'static str, String) {
    (
        "budget_exceeded",
        "converting the return value exceeded the line budget".to_owned(),
    )
}

fn set(obj: &JsObject, k: &'static str, v: JsValue, ctx: &mut Context) -> Result<(), String> {
    obj.set(js_string!(k), v, true, ctx)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

impl Realm {
    /// Builds a realm, runs the prelude and the module, and creates the parser instance.
    pub(crate) fn new(prepared: &Prepared, opts: &SandboxOptions) -> Result<Realm, InitError> {
        let setup = |e: JsError| InitError::Setup(e.to_string());
        let clock = Rc::new(LineClock::default());
        let mut ctx = ContextBuilder::new()
            .host_hooks(Rc::new(Hooks))
            .clock(clock.clone())
            .job_executor(Rc::new(IdleJobExecutor))
            .module_loader(Rc::new(IdleModuleLoader))
            .build()
            .map_err(setup)?;
        {
            let limits = ctx.runtime_limits_mut();
            limits.set_loop_iteration_limit(opts.loop_iteration_limit);
            limits.set_recursion_limit(opts.recursion_limit);
        }
        let max_regex = opts.max_regex_source;
        let screen = NativeFunction::from_copy_closure(move |_, args, ctx| {
            let pattern = args.first().cloned().unwrap_or_default().to_string(ctx)?;
            let flags = args.get(1).cloned().unwrap_or_default().to_string(ctx)?;
            Ok(
                match screen_pattern(
                    &pattern.to_std_string_lossy(),
                    &flags.to_std_string_lossy(),
                    max_regex,
                ) {
                    Ok(()) => JsValue::undefined(),
                    Err(why) => JsValue::from(JsString::from(why.as_str())),
                },
            )
        });
        ctx.register_global_builtin_callable(js_string!("__parsebox_screen"), 2, screen)
            .map_err(setup)?;
        let date_parse = ctx
            .intrinsics()
            .constructors()
            .date()
            .constructor()
            .get(js_string!("parse"), &mut ctx)
            .map_err(setup)?
            .as_object()
            .ok_or_else(|| InitError::Setup("Date.parse missing".to_owned()))?;
        let prelude = PRELUDE
            .replace("@MAX_ELEMENTS@", &opts.max_builtin_elements.to_string())
            .replace("@MAX_STRING@", &opts.max_builtin_string_len.to_string())
            .replace("@MAX_REGEX_INPUT@", &opts.max_regex_input.to_string())
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
        ctx.eval(Source::from_bytes(prelude.as_bytes()))
            .map_err(setup)?;
        let global = ctx.global_object();
        global
            .delete_property_or_throw(js_string!("__parsebox_screen"), &mut ctx)
            .map_err(setup)?;
        let host = global
            .get(js_string!("__parsebox"), &mut ctx)
            .map_err(setup)?
            .as_object()
            .ok_or_else(|| InitError::Setup("prelude did not install __parsebox".to_owned()))?;
        let parse = |ctx: &mut Context, src: &str| {
            Script::parse(Source::from_bytes(src.as_bytes()), None, ctx).map_err(setup)
        };
        let esm = prepared.shape == Shape::EsModule;
        let init_src = format!("__parsebox.init({}, {esm})", prepared.script);
        let init = parse(&mut ctx, &init_src)?;
        let call = parse(
            &mut ctx,
            "__parsebox.i.parseLine(__parsebox.l, __parsebox.t)",
        )?;
        let direct = parse(&mut ctx, "(0, __parsebox.f)(__parsebox.l, __parsebox.t)")?;
        let conv = parse(&mut ctx, "__parsebox.conv(__parsebox.r)")?;
        let reset = parse(&mut ctx, "__parsebox.reset()")?;
        let mut realm = Realm {
            ctx,
            clock,
            host,
            date_parse,
            call,
            conv,
            reset,
            entry: EntryPoint::ParseStdoutLine,
        };
        realm.clock.millis.set(0);
        let budget = Duration::from_secs_f64(opts.init_budget_ms.max(0.0) / 1000.0);
        let deadline = Instant::now() + budget;
        let v = realm
            .run(&init, deadline, opts)
            .map_err(InitError::Stopped)?;
        let which = v
            .as_string()
            .map(|s| s.to_std_string_lossy())
            .unwrap_or_default();
        realm.entry = match which.as_str() {
            "createStdoutParser" => EntryPoint::CreateStdoutParser,
            "parseStdoutLine" => {
                realm.call = direct;
                EntryPoint::ParseStdoutLine
            }
            "bad_factory" => return Err(InitError::Exports("bad_factory")),
            _ => return Err(InitError::Exports("no_export")),
        };
        Ok(realm)
    }

    /// Evaluates `script` under the budget: boa yields every `opts.budget_cycles` "cycles"; at
    /// each yield the deadline and the heap probe are checked, and the evaluation is dropped
    /// when either is exceeded.
    fn run(
        &mut self,
        script: &Script,
        deadline: Instant,
        opts: &SandboxOptions,
    ) -> Result<JsValue, Stop> {
        let heap_start = opts.heap_probe.map(|probe| probe());
        let cycles = opts.budget_cycles.max(1);
        let ctx = &mut self.ctx;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let waker = Waker::from(Arc::new(NoopWaker));
            let mut cx = std::task::Context::from_waker(&waker);
            // Boxed: the engine's future is large, and unoptimised builds would keep it on the stack.
            let mut fut = Box::pin(script.evaluate_async_with_budget(ctx, cycles));
            loop {
                match fut.as_mut().poll(&mut cx) {
                    Poll::Ready(r) => return r.map_err(classify),
                    Poll::Pending => {
                        if Instant::now() >= deadline {
                            return Err(Stop::Deadline);
                        }
                        if let (Some(probe), Some(start)) = (opts.heap_probe, heap_start) {
                            let grown = probe().saturating_sub(start);
                            if grown > opts.max_heap_growth_bytes {
                                return Err(Stop::Memory(grown));
                            }
                        }
                    }
                }
            }
        }));
        match outcome {
            Ok(r) => r,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_owned());
                Err(Stop::Fault(format!("engine panicked: {msg}")))
            }
        }
    }

    /// Sets the realm's current time from `ts` (`Date.parse(ts)`, NaN → 0).
    fn set_time(&mut self, ts: &str) {
        let parsed = self
            .date_parse
            .call(
                &JsValue::undefined(),
                &[JsValue::from(JsString::from(ts))],
                &mut self.ctx,
            )
            .ok()
            .and_then(|v| v.as_number())
            .filter(|f| f.is_finite())
            .unwrap_or(0.0);
        #[allow(clippy::cast_possible_truncation)]
        self.clock.millis.set(parsed as i64);
    }

    /// Calls the parser on one line and converts its return value.
    pub(crate) fn parse_line(
        &mut self,
        line: &str,
        ts: &str,
        opts: &SandboxOptions,
    ) -> Result<Result<Value, (&'static str, String)>, Stop> {
        let deadline =
            Instant::now() + Duration::from_secs_f64(opts.line_budget_ms.max(0.0) / 1000.0);
        self.set_time(ts);
        let fault = |e: String| Stop::Fault(format!("could not pass arguments: {e}"));
        set(
            &self.host,
            "l",
            JsValue::from(JsString::from(line)),
            &mut self.ctx,
        )
        .map_err(fault)?;
        set(
            &self.host,
            "t",
            JsValue::from(JsString::from(ts)),
            &mut self.ctx,
        )
        .map_err(fault)?;
        let call = self.call.clone();
        let ret = self.run(&call, deadline, opts);
        let out = match ret {
            Ok(ret) => self.convert(ret, deadline, opts),
            Err(stop) => Err(stop),
        };
        self.clock.millis.set(0);
        out
    }

    fn convert(
        &mut self,
        ret: JsValue,
        deadline: Instant,
        opts: &SandboxOptions,
    ) -> Result<Result<Value, (&'static str, String)>, Stop> {
        let fault = |e: String| Stop::Fault(format!("could not pass the return value: {e}"));
        let caps = Caps {
            max_depth: opts.max_result_depth,
            max_values: opts.max_result_values,
            max_string_bytes: opts.max_result_string_bytes,
            deadline,
        };
        let too_large = |what: &str| ("bad_return", format!("return value too large ({what})"));
        match Walk::new(&mut self.ctx, caps).value(&ret, 0) {
            Ok(v) => return Ok(Ok(v.unwrap_or(Value::Null))),
            Err(Conv::Cycle) => {
                return Ok(Err(("bad_return", "return value is cyclic".to_owned())))
            }
            Err(Conv::TooLarge(what)) => return Ok(Err(too_large(what))),
            Err(Conv::Deadline) => return Ok(Err(deadline_passed())),
            Err(Conv::Bail) => {}
        }
        // Not plain data: JSON.stringify semantics in bytecode, under the same deadline.
        set(&self.host, "r", ret, &mut self.ctx).map_err(fault)?;
        let conv = self.conv.clone();
        let pair = self.run(&conv, deadline, opts);
        set(&self.host, "r", JsValue::undefined(), &mut self.ctx).map_err(fault)?;
        let pair = pair?
            .as_object()
            .ok_or_else(|| Stop::Fault("converter returned no pair".to_owned()))?;
        let (ok, value) = {
            let b = pair.borrow();
            let at = |i: u32| {
                b.properties()
                    .get(&PropertyKey::from(i))
                    .and_then(|d| d.value().cloned())
                    .unwrap_or_default()
            };
            (at(0), at(1))
        };
        if ok.as_boolean() != Some(true) {
            let why = value
                .as_string()
                .map(|s| s.to_std_string_lossy())
                .unwrap_or_default();
            return Ok(Err(("bad_return", why)));
        }
        Ok(match Walk::new(&mut self.ctx, caps).value(&value, 0) {
            Ok(v) => Ok(v.unwrap_or(Value::Null)),
            Err(Conv::TooLarge(what)) => Err(too_large(what)),
            Err(Conv::Deadline) => Err(deadline_passed()),
            Err(Conv::Bail | Conv::Cycle) => Err((
                "engine_fault",
                "converted value is not plain data".to_owned(),
            )),
        })
    }

    /// Calls the instance's `reset()` (if it has one) under the line budget.
    pub(crate) fn reset(&mut self, opts: &SandboxOptions) -> Result<(), Stop> {
        let deadline =
            Instant::now() + Duration::from_secs_f64(opts.line_budget_ms.max(0.0) / 1000.0);
        let reset = self.reset.clone();
        self.run(&reset, deadline, opts).map(|_| ())
    }

    /// Console calls and captured messages so far (read natively from the prelude's counters).
    pub(crate) fn console(&self) -> (u64, Vec<String>) {
        let props = self.host.borrow();
        let calls = props
            .properties()
            .get(&key("consoleCalls"))
            .and_then(|d| d.value().and_then(JsValue::as_number))
            .unwrap_or(0.0);
        let mut messages = Vec::new();
        if let Some(arr) = props
            .properties()
            .get(&key("consoleMessages"))
            .and_then(|d| d.value().and_then(JsValue::as_object))
        {
            for i in 0..20u32 {
                match arr
                    .borrow()
                    .properties()
                    .get(&PropertyKey::from(i))
                    .and_then(|d| d.value().and_then(JsValue::as_string))
                {
                    Some(s) => messages.push(s.to_std_string_lossy()),
                    None => break,
                }
            }
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        (calls.max(0.0) as u64, messages)
    }
}
