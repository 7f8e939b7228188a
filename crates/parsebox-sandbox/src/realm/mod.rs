//! One boa `Context` holding one parser instance: its budgeted calls and the conversion of
//! what they return. Its set-up from a blank realm is `blank.rs`; how a call ended, `stop.rs`.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::task::{Poll, Waker};

use boa_engine::object::JsObject;
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::script::Script;
use boa_engine::{js_string, Context, JsError, JsString, JsValue, Source};
use parsebox_transcript::FailureCode;

use crate::clock::Meter;
use crate::convert::{Caps, Conv, Sink, Walk};
use crate::load_error::{LoadError, LoadErrorCode};
use crate::source::{Prepared, Shape};
use crate::{EntryPoint, SandboxOptions};

mod blank;
mod stop;

use blank::LineClock;
pub(crate) use blank::{Blank, SetupKey};
use stop::{classify, key};
pub(crate) use stop::{InitError, Stop};

/// A fresh realm with a loaded parser instance.
pub(crate) struct Realm {
    ctx: Context,
    clock: Rc<LineClock>,
    host: JsObject,
    /// The last line's `ts`, as a JS string and as `Date.parse` milliseconds: lines of one chunk
    /// share their chunk's ts, so most lines skip both conversions.
    last_ts: Option<(String, JsString, i64)>,
    /// Calls the instance's `parseLine`, or the module's `parseStdoutLine` when that is the only
    /// export.
    call: Script,
    /// Calls the module's `parseStdoutLine` (`__parsebox.f`): what a stateless line runs when
    /// the module also exports it.
    direct: Script,
    conv: Script,
    reset: Script,
    pub(crate) entry: EntryPoint,
    /// When the last `parse_line` or `reset` call started, on the options' clock (ms).
    pub(crate) last_started_ms: f64,
    /// The work the last `parse_line` or `reset` call ran, in boa cycles (what its replay
    /// would run again).
    pub(crate) last_work: u64,
    /// The module's exports also had a `parseStdoutLine` function besides the factory that
    /// [`Realm::entry`] drives.
    pub(crate) also_stateless: bool,
    /// What a host script evaluates to when its expression threw (`__parsebox.z`); the thrown
    /// value is then in `__parsebox.e`. Caught in the script, not left to propagate: boa 0.22
    /// leaves an uncaught exception's values on its VM stack, so a run whose parser threw on
    /// ~800 lines hit the stack limit on every line after.
    threw: JsObject,
}

/// Writes one of the host object's argument slots (`l`, `t`, `r`: defined by the prelude as
/// writable, non-enumerable, non-configurable data properties of a null-prototype object)
/// directly into its storage: no [[Set]] lookups, no guest code possible.
fn put(obj: &JsObject, k: JsString, v: JsValue) {
    obj.insert_property(
        k,
        PropertyDescriptor::builder()
            .value(v)
            .writable(true)
            .enumerable(false)
            .configurable(false),
    );
}

impl Realm {
    /// Builds a realm, runs the prelude and the module, and creates the parser instance
    /// ([`from_blank_or_again`](Self::from_blank_or_again) on a new blank realm).
    pub(crate) fn new(prepared: &Prepared, opts: &SandboxOptions) -> Result<Realm, InitError> {
        Realm::from_blank_or_again(Blank::new(opts)?, prepared, opts)
    }

    /// [`from_blank`](Self::from_blank), and when the clock backstop alone stopped the module's
    /// initialisation (a stalled machine, not the parser), once more on a fresh realm: the
    /// same rule a line gets.
    pub(crate) fn from_blank_or_again(
        blank: Blank,
        prepared: &Prepared,
        opts: &SandboxOptions,
    ) -> Result<Realm, InitError> {
        match Realm::from_blank(blank, prepared, opts) {
            Err(InitError::Stopped(Stop::Clock)) => {
                Realm::from_blank(Blank::new(opts)?, prepared, opts)
            }
            other => other,
        }
    }

    /// Runs the module in a blank realm made with `opts`' [`SetupKey`] and creates the parser
    /// instance.
    pub(crate) fn from_blank(
        mut blank: Blank,
        prepared: &Prepared,
        opts: &SandboxOptions,
    ) -> Result<Realm, InitError> {
        let setup = |e: JsError| InitError::Setup(e.to_string());
        blank.apply(opts);
        let Blank {
            mut ctx,
            clock,
            host,
            key: _,
        } = blank;
        let parse = |ctx: &mut Context, src: &str| {
            Script::parse(Source::from_bytes(src.as_bytes()), None, ctx).map_err(setup)
        };
        let esm = prepared.shape == Shape::EsModule;
        // Each host script catches what its expression throws (see `Realm::run`).
        let parse = |ctx: &mut Context, expr: &str| {
            parse(
                ctx,
                &format!("try {{ {expr} }} catch (e) {{ __parsebox.e = e; __parsebox.z }}"),
            )
        };
        let init_src = format!("__parsebox.init({}, {esm})", prepared.script);
        let init = parse(&mut ctx, &init_src)?;
        let call = parse(
            &mut ctx,
            "__parsebox.i.parseLine(__parsebox.l, __parsebox.t)",
        )?;
        let direct = parse(&mut ctx, "(0, __parsebox.f)(__parsebox.l, __parsebox.t)")?;
        let conv = parse(&mut ctx, "__parsebox.conv(__parsebox.r)")?;
        let reset = parse(&mut ctx, "__parsebox.reset()")?;
        let threw = host
            .borrow()
            .properties()
            .get(&key("z"))
            .and_then(|d| d.value().and_then(JsValue::as_object))
            .ok_or_else(|| InitError::Setup("prelude did not install __parsebox.z".to_owned()))?;
        let mut realm = Realm {
            ctx,
            clock,
            host,
            last_ts: None,
            call,
            direct: direct.clone(),
            conv,
            reset,
            threw,
            entry: EntryPoint::ParseStdoutLine,
            last_started_ms: 0.0,
            last_work: 0,
            also_stateless: false,
        };
        realm.clock.millis.set(0);
        let mut meter = Meter::new(
            opts.init_budget_ms,
            opts.clock_backstop_ms.max(opts.init_budget_ms),
            opts,
        );
        let v = realm
            .run(&init, &mut meter, opts)
            .map_err(InitError::Stopped)?;
        // One native step the engine cannot count (a regex at the module's top level) may run
        // long and still return: past the clock backstop it is stopped all the same, run once
        // more on a fresh realm, and refused if it runs long again (`from_blank_or_again`).
        if meter.deadline.passed() {
            return Err(InitError::Stopped(Stop::Clock));
        }
        let which = v
            .as_string()
            .map(|s| s.to_std_string_lossy())
            .unwrap_or_default();
        realm.also_stateless = which == "createStdoutParser+parseStdoutLine";
        realm.entry = match which.as_str() {
            "createStdoutParser" | "createStdoutParser+parseStdoutLine" => {
                EntryPoint::CreateStdoutParser
            }
            "parseStdoutLine" => {
                realm.call = direct;
                EntryPoint::ParseStdoutLine
            }
            "bad_factory" => return Err(InitError::Exports("bad_factory")),
            _ => return Err(InitError::Exports("no_export")),
        };
        Ok(realm)
    }

    /// Evaluates `script` under `meter`: boa yields every `opts.budget_cycles` "cycles"; each
    /// yield spends them from the meter (the work budget, which decides), then the clock
    /// backstop and the heap probe are checked, and the evaluation is dropped when any is
    /// exceeded.
    fn run(
        &mut self,
        script: &Script,
        meter: &mut Meter,
        opts: &SandboxOptions,
    ) -> Result<JsValue, Stop> {
        let heap_start = opts.heap_probe.map(|probe| probe());
        let max_text = opts.entry_limits.max_string_bytes;
        // Loops may run as many iterations as this call's work budget pays for.
        self.ctx
            .runtime_limits_mut()
            .set_loop_iteration_limit(opts.loop_limit(meter.limit));
        let cycles = opts.budget_cycles.max(1);
        let ctx = &mut self.ctx;
        // Native work (the regex methods' scans) counts against the same budget: what earlier
        // calls left uncounted is dropped, and this call's room is set.
        crate::clock::take_native();
        crate::clock::set_native_room(meter.room());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut cx = std::task::Context::from_waker(Waker::noop());
            // Boxed: the engine's future is large, and unoptimised builds would keep it on the stack.
            let mut fut = Box::pin(script.evaluate_async_with_budget(ctx, cycles));
            loop {
                match fut.as_mut().poll(&mut cx) {
                    Poll::Ready(r) => return Ok(r),
                    Poll::Pending => {
                        let (native, _) = crate::clock::take_native();
                        let work = u64::from(cycles).saturating_add(native);
                        // The native part was counted as it was charged.
                        crate::clock::count_work(u64::from(cycles));
                        if !meter.spend(work) {
                            return Err(Stop::Work);
                        }
                        crate::clock::set_native_room(meter.room());
                        // A stretch with no count of work in it (one native step) past the
                        // backstop stops the call; an engine counting work is never stopped by
                        // the clock, only by its budget.
                        if meter.deadline.passed() {
                            return Err(Stop::Clock);
                        }
                        meter.deadline.progressed();
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
        // The native work of the last stretch, and a native method stopped for the budget
        // (its uncatchable error ended the evaluation).
        let (native, over) = crate::clock::take_native();
        crate::clock::set_native_room(u64::MAX);
        if !meter.spend(native) || over {
            return Err(Stop::Work);
        }
        match outcome {
            Ok(Ok(Ok(v)))
                if v.as_object()
                    .is_some_and(|o| JsObject::equals(&o, &self.threw)) =>
            {
                // Read as data: no guest code runs (the slot is a non-configurable data
                // property the guest cannot turn into a getter).
                let thrown = self
                    .host
                    .borrow()
                    .properties()
                    .get(&key("e"))
                    .and_then(|d| d.value().cloned())
                    .unwrap_or_default();
                put(&self.host, js_string!("e"), JsValue::undefined());
                let err = JsError::from_opaque(thrown);
                Err(classify(&err, &mut self.ctx, meter.deadline, max_text))
            }
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(classify(&e, &mut self.ctx, meter.deadline, max_text)),
            Ok(Err(stop)) => Err(stop),
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

    /// Sets the realm's current time from `ts` (`Date.parse(ts)`, NaN → 0); returns `ts` as a
    /// JS string.
    fn set_time(&mut self, ts: &str) -> JsString {
        if let Some((last, js, millis)) = &self.last_ts {
            if last == ts {
                self.clock.millis.set(*millis);
                return js.clone();
            }
        }
        let js = crate::text::to_js(ts);
        // V8's reading of the string, as the realm's `Date.parse` gives it (date_parse.rs).
        let parsed = Some(crate::date_parse::parse(ts))
            .filter(|f| f.is_finite())
            .unwrap_or(0.0);
        #[allow(clippy::cast_possible_truncation)]
        let millis = parsed as i64;
        self.clock.millis.set(millis);
        self.last_ts = Some((ts.to_owned(), js.clone(), millis));
        js
    }

    /// Calls the parser on one line and converts its return value into `S`'s output.
    /// `stateless`: call the module's own `parseStdoutLine` when it exports one besides the
    /// factory, instead of the instance.
    pub(crate) fn parse_line<S: Sink + Default>(
        &mut self,
        line: &str,
        ts: &str,
        stateless: bool,
        opts: &SandboxOptions,
    ) -> Result<Result<S::Output, (FailureCode, String)>, Stop> {
        let mut meter = Meter::new(opts.line_budget_ms, opts.clock_backstop_ms, opts);
        self.last_started_ms = meter.deadline.started_ms();
        let ts = self.set_time(ts);
        put(
            &self.host,
            js_string!("l"),
            JsValue::from(crate::text::to_js(line)),
        );
        put(&self.host, js_string!("t"), JsValue::from(ts));
        let call = if stateless && self.also_stateless {
            self.direct.clone()
        } else {
            self.call.clone()
        };
        let ret = self.run(&call, &mut meter, opts);
        let out = match ret {
            Ok(ret) => self.convert::<S>(ret, &mut meter, opts),
            Err(stop) => Err(stop),
        };
        self.last_work = meter.used;
        self.clock.millis.set(0);
        out
    }

    fn convert<S: Sink + Default>(
        &mut self,
        ret: JsValue,
        meter: &mut Meter,
        opts: &SandboxOptions,
    ) -> Result<Result<S::Output, (FailureCode, String)>, Stop> {
        let caps = Caps {
            max_depth: opts.max_result_depth,
            max_values: opts.max_result_values,
            max_string_bytes: opts.max_result_string_bytes,
            deadline: meter.deadline,
        };
        let too_large = |what: &str| {
            (
                FailureCode::BadReturn,
                format!("return value too large ({what})"),
            )
        };
        match Walk::new(&mut self.ctx, caps, S::default()).convert(&ret) {
            Ok(v) => return Ok(Ok(v)),
            Err(Conv::Cycle) => {
                return Ok(Err((
                    FailureCode::BadReturn,
                    "return value is cyclic".to_owned(),
                )))
            }
            Err(Conv::TooLarge(what)) => return Ok(Err(too_large(what))),
            Err(Conv::Deadline) => return Err(Stop::Clock),
            Err(Conv::Bail) => {}
        }
        // Not plain data: JSON.stringify semantics in bytecode, under what is left of the
        // line's budget.
        put(&self.host, js_string!("r"), ret);
        let conv = self.conv.clone();
        let pair = self.run(&conv, meter, opts);
        put(&self.host, js_string!("r"), JsValue::undefined());
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
            return Ok(Err((FailureCode::BadReturn, why)));
        }
        Ok(
            match Walk::new(&mut self.ctx, caps, S::default()).convert(&value) {
                Ok(v) => Ok(v),
                Err(Conv::TooLarge(what)) => Err(too_large(what)),
                Err(Conv::Deadline) => return Err(Stop::Clock),
                Err(Conv::Bail | Conv::Cycle) => Err((
                    FailureCode::EngineFault,
                    "converted value is not plain data".to_owned(),
                )),
            },
        )
    }

    /// Calls the instance's `reset()` (if it has one) under the line budget.
    pub(crate) fn reset(&mut self, opts: &SandboxOptions) -> Result<(), Stop> {
        let mut meter = Meter::new(opts.line_budget_ms, opts.clock_backstop_ms, opts);
        self.last_started_ms = meter.deadline.started_ms();
        let reset = self.reset.clone();
        let out = self.run(&reset, &mut meter, opts).map(|_| ());
        self.last_work = meter.used;
        out
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

/// The load error for a realm that could not be created.
pub(crate) fn init_error(e: InitError) -> LoadError {
    use LoadErrorCode as C;
    match e {
        InitError::Exports("bad_factory") => LoadError::new(
            C::BadFactory,
            "createStdoutParser() did not return an object with a parseLine function",
        ),
        InitError::Exports(_) => LoadError::new(
            C::NoExport,
            "module has no usable export: neither createStdoutParser nor parseStdoutLine is a function",
        ),
        InitError::Stopped(Stop::Threw { message: m, .. }) => {
            LoadError::new(C::InitThrew, format!("module initialisation threw: {m}"))
        }
        InitError::Stopped(Stop::Work) => LoadError::new(
            C::InitBudgetExceeded,
            "module initialisation exceeded its work budget (initBudgetMs)",
        ),
        InitError::Stopped(Stop::Clock) => LoadError::new(
            C::InitBudgetExceeded,
            "module initialisation ran past its clock backstop (one long native step)",
        ),
        InitError::Stopped(Stop::Memory(n)) => LoadError::new(
            C::InitMemoryExceeded,
            format!("module initialisation allocated {n} bytes"),
        ),
        InitError::Stopped(Stop::Limit(m)) => LoadError::new(
            C::InitBudgetExceeded,
            format!("module initialisation hit an engine limit: {m}"),
        ),
        InitError::Stopped(Stop::Fault(m)) | InitError::Setup(m) => {
            LoadError::new(C::EngineFault, m)
        }
    }
}
