//! The parsebox sandbox: one adapter's untrusted `ui-parser.js` in its own boa_engine realm,
//! answering `parse_line(line, ts)` under a budget.
//!
//! [`ParserModule::load`] checks a parser source statically (size, imports, top-level await,
//! syntax, catastrophic regex literals), rewrites ES modules and CommonJS files into one script
//! shape, and evaluates it once in a throwaway realm to find its entry point;
//! [`ParserModule::exports`] tells what the module exports, and a refused source gets a
//! [`LoadError`] with a stable [`LoadErrorCode`]. Most of a load is setting up the realm (the
//! context and the prelude), the same for every parser: a [`BlankRealm`] made ahead of time
//! takes that part off the load ([`ParserModule::load_with`]).
//! [`ParserModule::new_run`] gives a [`ParserRun`]: a fresh realm, fresh module state and one
//! parser instance for one run's transcript, with `Date` pinned to each line's `ts` (UTC) and
//! `Math.random` a seeded generator, so replaying a log gives the same entries. Each call runs
//! under the budget layers boa 0.22 allows in-thread: a budget of work counted by the engine
//! itself (bytecode "cycles", read every few thousand; the same on every machine, so the same
//! line always gets the same outcome), a wall-clock backstop for what the engine cannot count
//! (a line stopped by the clock alone runs once more, alone, on a fresh realm before it
//! fails), loop and recursion limits, bytecode replacements or size caps for
//! the built-ins that loop or call back natively, a screened `RegExp`, an optional heap probe,
//! and a fresh realm (state restored by replaying the run's earlier lines) after any abort.
//! Return values become plain JSON without running guest code outside the budget, then
//! [`parsebox_transcript::entries_from_return`] validates them.
//!
//! What no in-thread layer can stop with stock boa (regex backtracking the screen misses, one
//! huge native allocation, some nested callbacks) is listed in BENCHMARKS.md; the Worker host
//! takes those.

#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod clock;
mod convert;
mod engine;
mod exports;
mod history;
mod json;
mod load_error;
mod number_format;
pub mod regex_screen;
mod source;
mod text;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use parsebox_transcript::{
    entries_from_return, settle_line, CheckedEntries, EntryLimits, FailedLineEntry, FailureCode,
    LineFailure, LineOutcome, LineParser, ReturnJson, SettledLine, TranscriptEntry,
};

pub use clock::WORK_PER_MS;
use clock::{ms_of, now_ms, Deadline};
use convert::{JsonSink, Sink, ValueSink};
use engine::{Blank, Realm, SetupKey, Stop};
pub use exports::{ModuleExports, ModuleFormat};
use history::{History, Op};
use load_error::init_error;
pub use load_error::{LoadError, LoadErrorCode};
use source::Prepared;

/// Limits and budgets of the sandbox. The defaults suit real parsers on real runs.
#[derive(Clone, Debug)]
pub struct SandboxOptions {
    /// Largest accepted parser source, in bytes (SPEC §3: 50 KB).
    pub max_source_bytes: usize,
    /// Work budget for module evaluation plus `createStdoutParser()`, in reference
    /// milliseconds (the engine's own count of work: see [`WORK_PER_MS`]).
    pub init_budget_ms: f64,
    /// Work budget for one `parseLine` / `parseStdoutLine` / `reset` call including the
    /// conversion of its result, in reference milliseconds: counted by the engine, so a line
    /// gets the same outcome on every machine and under any load ([`WORK_PER_MS`]).
    pub line_budget_ms: f64,
    /// Wall-clock backstop of one call, in milliseconds: what the work count cannot see (one
    /// long native step, such as a regex or a huge `replace`) is stopped here, at the engine's
    /// next count. A line stopped by the clock alone runs once more, alone, on a fresh realm
    /// (a stalled machine is not the parser's fault) and fails only if the clock stops it
    /// again.
    pub clock_backstop_ms: f64,
    /// Longest line handed to the parser, in UTF-8 bytes; longer lines fail with `line_too_long`.
    pub max_line_bytes: usize,
    /// Bounds applied when validating returned entries.
    pub entry_limits: EntryLimits,
    /// boa "cycles" between two deadline checks (smaller: faster stop, more overhead).
    pub budget_cycles: u32,
    /// boa's per-frame loop-iteration limit. It is what stops loops in code boa runs in nested,
    /// non-yielding calls (getters, Proxy traps, callbacks of the remaining native built-ins).
    pub loop_iteration_limit: u64,
    /// boa's recursion limit (frames plus nested host calls).
    pub recursion_limit: usize,
    /// Most elements a native array built-in (`includes`, `join`, `fill`, `sort`, …) may visit.
    pub max_builtin_elements: usize,
    /// Longest string `repeat` / `padStart` / `padEnd` may build, in UTF-16 units.
    pub max_builtin_string_len: usize,
    /// Longest regex pattern accepted (literal or `RegExp(...)`), in UTF-16 units.
    pub max_regex_source: usize,
    /// Refuse regex patterns whose shape backtracks catastrophically ([`regex_screen`]): a
    /// literal fails the load with `unsafe_regex`, a `RegExp(...)` throws. On by default, since
    /// nothing in the thread can stop a regex once it runs. An engine that runs where a
    /// deadline can end it (a Worker) turns it off: the pattern runs, and a line it hangs is
    /// ended by that deadline and falls back, instead of the whole parser being refused.
    pub screen_regexes: bool,
    /// Longest string a regex may run on, in UTF-16 units.
    pub max_regex_input: usize,
    /// Deepest nesting of a returned value (deeper values fail the line with `bad_return`).
    pub max_result_depth: usize,
    /// Most values (objects, arrays, primitives) in one line's returned value.
    pub max_result_values: usize,
    /// Most string bytes (values and keys) in one line's returned value.
    pub max_result_string_bytes: usize,
    /// Bytes of earlier lines kept for replay after a realm rebuild; beyond this a rebuild
    /// loses the parser's state (counted in [`RunDiagnostics::state_lost`]).
    pub max_replay_bytes: usize,
    /// Most work a rebuild may replay, in reference milliseconds ([`WORK_PER_MS`]), so
    /// recovery never blocks the thread for long. A run whose recorded lines ran more work than
    /// this keeps no history at all (a replay would cost too much), so a long run's memory stays
    /// flat and a rebuild starts fresh (counted in [`RunDiagnostics::state_lost`]); the replay
    /// runs the same work again, so this decides the same way on every machine. Ten times
    /// this, by the clock, is the replay's backstop.
    pub replay_budget_ms: f64,
    /// Optional probe of the bytes currently allocated (a counting global allocator, or wasm
    /// memory size). Checked at each budget yield.
    pub heap_probe: Option<fn() -> usize>,
    /// Optional monotonic clock for the budgets, in milliseconds (any origin). `None`: std's
    /// `Instant` natively, `performance.now()` through web-time on wasm32 with the `js`
    /// feature. An embedder on wasm32 without `js` (the raw engine module) must give one:
    /// std has no clock there, and the first budget check would trap.
    pub clock: Option<fn() -> f64>,
    /// With a probe: largest heap growth one call may cause before it is stopped.
    pub max_heap_growth_bytes: usize,
    /// Install the bounded built-ins and the guarded `RegExp` (on by default; switch off only
    /// to measure their cost).
    pub bounded_builtins: bool,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            max_source_bytes: 50 * 1024,
            init_budget_ms: 200.0,
            line_budget_ms: 50.0,
            clock_backstop_ms: 1000.0,
            max_line_bytes: 4 << 20,
            entry_limits: EntryLimits::default(),
            budget_cycles: 4096,
            loop_iteration_limit: 1_000_000,
            recursion_limit: 256,
            max_builtin_elements: 1 << 20,
            max_builtin_string_len: 1 << 24,
            max_regex_source: 2048,
            screen_regexes: true,
            max_regex_input: 4 << 20,
            max_result_depth: 64,
            max_result_values: 200_000,
            max_result_string_bytes: 32 << 20,
            max_replay_bytes: 16 << 20,
            replay_budget_ms: 250.0,
            heap_probe: None,
            clock: None,
            max_heap_growth_bytes: 256 << 20,
            bounded_builtins: true,
        }
    }
}

/// Checks a budget or deadline option by the one duration rule
/// ([`parsebox_transcript::check_duration_ms`]).
///
/// # Errors
/// A sentence naming `name` and the accepted range.
pub fn check_budget_ms(name: &str, value: f64) -> Result<(), String> {
    parsebox_transcript::check_duration_ms(value).map_err(|m| format!("{name} {m}"))
}

/// Largest `maxSourceBytes` accepted.
pub const SOURCE_BYTES_LIMIT: usize = 64 << 20;
/// Largest `maxLineBytes` accepted.
pub const LINE_BYTES_LIMIT: usize = 1 << 30;

/// Checks that a size option `name` is at least `min` and at most `max`.
///
/// # Errors
/// A sentence naming the option, its range and the value given.
pub fn check_range(name: &str, value: usize, min: usize, max: usize) -> Result<(), String> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be between {min} and {max}, got {value}"
        ))
    }
}

impl SandboxOptions {
    /// Checks every budget and size against its range, so a bad option is refused where it is
    /// given rather than overflowing later, inside a call.
    ///
    /// # Errors
    /// A sentence naming the first option out of range (in the JS option's name).
    pub fn validate(&self) -> Result<(), String> {
        check_budget_ms("lineBudgetMs", self.line_budget_ms)?;
        check_budget_ms("hardDeadlineMs", self.clock_backstop_ms)?;
        check_budget_ms("replayBudgetMs", self.replay_budget_ms)?;
        check_budget_ms("initBudgetMs", self.init_budget_ms)?;
        check_range(
            "maxSourceBytes",
            self.max_source_bytes,
            1,
            SOURCE_BYTES_LIMIT,
        )?;
        check_range("maxLineBytes", self.max_line_bytes, 1, LINE_BYTES_LIMIT)?;
        self.entry_limits.validate().map_err(|e| e.to_string())
    }
}

/// Which export a parser is driven through (SPEC §3: `createStdoutParser` wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryPoint {
    /// One instance per run from the factory; `reset()` is available.
    CreateStdoutParser,
    /// The stateless function, called directly.
    ParseStdoutLine,
}

impl EntryPoint {
    /// The export's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CreateStdoutParser => "createStdoutParser",
            Self::ParseStdoutLine => "parseStdoutLine",
        }
    }
}

/// A realm made ahead of any parser: the context, the host functions and the prelude, which
/// are most of what a load costs. [`ParserModule::load_with`] loads a parser into it. The
/// engine module makes one when it is built and keeps it in its memory image, so every engine
/// instance starts with one (crates/parsebox-engine-wasm).
pub struct BlankRealm(Blank);

impl fmt::Debug for BlankRealm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BlankRealm").field(&self.0.key).finish()
    }
}

impl BlankRealm {
    /// Builds the realm with `options`' constants.
    ///
    /// # Errors
    /// An `engine_fault` [`LoadError`] when the engine cannot set up a realm (a bug).
    pub fn new(options: &SandboxOptions) -> Result<BlankRealm, LoadError> {
        Blank::new(options).map(BlankRealm).map_err(init_error)
    }

    /// Whether a parser loaded with `options` may use this realm: the options the prelude bakes
    /// in (the built-ins' caps and the result caps) are equal. Budgets, boa's runtime limits
    /// and the regex limits are laid on at load time, so they may differ.
    pub fn suits(&self, options: &SandboxOptions) -> bool {
        self.0.key == SetupKey::of(options)
    }
}

/// A checked, loadable parser source: static checks passed and a trial evaluation found its
/// entry point. Cheap to keep; [`ParserModule::new_run`] makes the realms.
#[derive(Clone, Debug)]
pub struct ParserModule {
    prepared: Prepared,
    options: SandboxOptions,
    entry: EntryPoint,
    exports: ModuleExports,
    spare: Spare,
}

/// The trial realm of [`ParserModule::load`], kept for the first [`ParserModule::new_run`]: it
/// is exactly what a fresh run needs (module evaluated, one instance made, time 0, `Math.random`
/// freshly seeded, nothing else run), and building a realm is most of a run's start-up cost
/// (parsing the prelude). Shared by clones; taken once.
#[derive(Clone, Default)]
struct Spare(Rc<RefCell<Option<Realm>>>);

impl fmt::Debug for Spare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = self.0.try_borrow().map(|r| r.is_some()).unwrap_or(false);
        f.debug_tuple("Spare").field(&kept).finish()
    }
}

impl ParserModule {
    /// Checks and trial-loads `source`.
    ///
    /// # Errors
    /// A [`LoadError`] for a source over `max_source_bytes`, any import (`import`, `require(`,
    /// `import()`, `import.meta`, re-exports), top-level await, a syntax error (with line and
    /// column in the original source), a regex literal with a catastrophic shape, no usable
    /// export, a factory that does not return `{ parseLine }`, or an initialisation that throws
    /// or exceeds its budget.
    pub fn load(source: &str, options: SandboxOptions) -> Result<ParserModule, LoadError> {
        ParserModule::load_with(source, options, &mut None)
    }

    /// Now on the clock this module's budgets use, in milliseconds (any origin): an embedder
    /// times its own work around the sandbox's on the same clock.
    pub fn now_ms(&self) -> f64 {
        now_ms(&self.options)
    }

    /// [`load`](Self::load), building the trial realm from `blank` when it suits `options`
    /// ([`BlankRealm::suits`]): the load then skips most of a realm's set-up. `blank` is taken
    /// when the load reaches its trial evaluation (whatever that evaluation's outcome), and left
    /// in place when a static check refuses the source first or it does not suit `options`.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn load_with(
        source: &str,
        options: SandboxOptions,
        blank: &mut Option<BlankRealm>,
    ) -> Result<ParserModule, LoadError> {
        if source.len() > options.max_source_bytes {
            return Err(LoadError::new(
                LoadErrorCode::TooLarge,
                format!(
                    "parser source is {} bytes; the limit is {}",
                    source.len(),
                    options.max_source_bytes
                ),
            ));
        }
        let prepared = source::prepare(source, options.max_regex_source, options.screen_regexes)?;
        let realm = match blank.take_if(|b| b.suits(&options)) {
            Some(BlankRealm(b)) => Realm::from_blank_or_again(b, &prepared, &options),
            None => Realm::new(&prepared, &options),
        }
        .map_err(init_error)?;
        Ok(ParserModule {
            entry: realm.entry,
            exports: ModuleExports::new(&prepared, &realm),
            prepared,
            options,
            spare: Spare(Rc::new(RefCell::new(Some(realm)))),
        })
    }

    /// The export the parser is driven through.
    pub fn entry_point(&self) -> EntryPoint {
        self.entry
    }

    /// What the module exports: its format, which contract exports it has (an ES module's
    /// static export names; a CommonJS module's functions found by the trial evaluation) and an
    /// ES module's other export names.
    pub fn exports(&self) -> &ModuleExports {
        &self.exports
    }

    /// The options this module was loaded with.
    pub fn options(&self) -> &SandboxOptions {
        &self.options
    }

    /// Starts a run: a fresh realm, fresh module state and (for `createStdoutParser`) one new
    /// instance, at time 0 and with `Math.random` freshly seeded.
    ///
    /// # Errors
    /// The same initialisation errors as [`ParserModule::load`] (a module that behaved at load
    /// time but not now, e.g. because it ran out of budget on a loaded machine).
    pub fn new_run(&self) -> Result<ParserRun, LoadError> {
        self.start_run(false)
    }

    /// A run whose lines go to the module's own `parseStdoutLine` when it exports one besides
    /// `createStdoutParser` (otherwise the same as [`new_run`](Self::new_run)): what Paperclip's
    /// `adapter.parseStdoutLine` calls, the module's stateless function.
    ///
    /// # Errors
    /// As [`new_run`](Self::new_run).
    pub fn new_stateless_run(&self) -> Result<ParserRun, LoadError> {
        self.start_run(true)
    }

    fn start_run(&self, stateless: bool) -> Result<ParserRun, LoadError> {
        let spare = self
            .spare
            .0
            .try_borrow_mut()
            .ok()
            .and_then(|mut s| s.take());
        let realm = match spare {
            Some(realm) => realm,
            None => Realm::new(&self.prepared, &self.options).map_err(init_error)?,
        };
        Ok(ParserRun {
            module: self.clone(),
            stateless,
            realm: Some(realm),
            history: History::default(),
            diagnostics: RunDiagnostics::default(),
        })
    }
}

/// What happened during a run, for the registry's diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunDiagnostics {
    /// Lines handed to [`ParserRun::parse_line`].
    pub lines: u64,
    /// Lines that failed, by [`LineFailure::code`].
    pub failures: BTreeMap<FailureCode, u64>,
    /// Entries dropped by validation, by `Rejection::code()`.
    pub dropped: BTreeMap<&'static str, u64>,
    /// Times the realm was thrown away and rebuilt (after a budget abort or engine limit).
    pub rebuilds: u64,
    /// Lines re-run to restore the parser's state after rebuilds.
    pub replayed_lines: u64,
    /// Rebuilds that could not restore the parser's state (replay history over its cap, or the
    /// replay itself failed).
    pub state_lost: u64,
    /// Lines the clock backstop stopped that were run again, alone, on a fresh realm.
    pub clock_retries: u64,
    /// Work the parser's calls ran, in boa cycles (the unit of the budgets: [`WORK_PER_MS`]
    /// cycles are one reference millisecond). The same for the same log on every machine.
    pub work_cycles: u64,
    /// Calls to `console.*` by the parser.
    pub console_calls: u64,
    /// The first few string messages passed to `console.*`.
    pub console_messages: Vec<String>,
    /// The most recent line failure.
    pub last_error: Option<LineFailure>,
}

/// One run's parser: a realm with one parser instance. Not `Send` (boa contexts are not).
pub struct ParserRun {
    module: ParserModule,
    /// Lines go to the module's own `parseStdoutLine` (see [`ParserModule::new_stateless_run`]).
    stateless: bool,
    realm: Option<Realm>,
    history: History,
    diagnostics: RunDiagnostics,
}

impl fmt::Debug for ParserRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParserRun")
            .field("entry_point", &self.module.entry)
            .field("diagnostics", &self.diagnostics)
            .finish_non_exhaustive()
    }
}

fn unavailable() -> LineFailure {
    LineFailure::new(
        FailureCode::RealmUnavailable,
        "the parser realm could not be rebuilt",
    )
}

fn stop_failure(stop: &Stop, opts: &SandboxOptions) -> LineFailure {
    match stop {
        Stop::Threw { message, thrown } => LineFailure::threw(message.clone(), thrown.clone()),
        Stop::Work => LineFailure::new(
            FailureCode::BudgetExceeded,
            format!(
                "parser exceeded its {} ms budget (work counted by the engine)",
                opts.line_budget_ms
            ),
        ),
        Stop::Clock => LineFailure::new(
            FailureCode::BudgetExceeded,
            format!(
                "parser ran past the {} ms clock backstop twice, the second time alone on a fresh realm (a long native step such as a regex)",
                opts.clock_backstop_ms
            ),
        ),
        Stop::Memory(n) => LineFailure::new(
            FailureCode::MemoryExceeded,
            format!("parser allocated {n} bytes in one call"),
        ),
        Stop::Limit(m) => LineFailure::new(
            FailureCode::BudgetExceeded,
            format!("parser hit an engine limit: {m}"),
        ),
        Stop::Fault(m) => LineFailure::new(FailureCode::EngineFault, m.clone()),
    }
}

impl ParserRun {
    /// The export this run drives.
    pub fn entry_point(&self) -> EntryPoint {
        self.module.entry
    }

    /// Parses one line that arrived at `ts` and validates the returned entries.
    ///
    /// # Errors
    /// A [`LineFailure`]: `line_too_long`, `threw` (the parser threw), `budget_exceeded`
    /// (deadline or engine loop/recursion limit), `memory_exceeded`, `bad_return` (not an
    /// array / entry / null, cyclic, too large), `engine_fault`, or `realm_unavailable` (the
    /// realm could not be rebuilt). The run stays usable for the next line.
    pub fn parse_line(&mut self, line: &str, ts: &str) -> Result<CheckedEntries, LineFailure> {
        self.diagnostics.lines += 1;
        let out = self.parse_line_inner(line, ts);
        match &out {
            Ok(checked) => {
                for d in &checked.dropped {
                    *self.diagnostics.dropped.entry(d.code()).or_default() += 1;
                }
            }
            Err(f) => {
                *self.diagnostics.failures.entry(f.code).or_default() += 1;
                self.diagnostics.last_error = Some(f.clone());
            }
        }
        if let Some(realm) = &self.realm {
            let (calls, messages) = realm.console();
            self.diagnostics.console_calls = calls;
            self.diagnostics.console_messages = messages;
        }
        out
    }

    fn parse_line_inner(&mut self, line: &str, ts: &str) -> Result<CheckedEntries, LineFailure> {
        let value = self.parse_line_raw(line, ts)?;
        entries_from_return(value, &self.module.options.entry_limits)
            .map_err(|m| LineFailure::new(FailureCode::BadReturn, m))
    }

    /// Calls the instance's `reset()` (a no-op for `parseStdoutLine` parsers or instances
    /// without `reset`).
    ///
    /// # Errors
    /// A [`LineFailure`] when `reset()` throws or exceeds the line budget.
    pub fn reset(&mut self) -> Result<(), LineFailure> {
        if self.module.entry == EntryPoint::ParseStdoutLine {
            return Ok(());
        }
        self.ensure_realm()?;
        let realm = self.realm.as_mut().ok_or_else(unavailable)?;
        let out = realm.reset(&self.module.options);
        self.finish_call(out, || Op::Reset)
    }

    /// Whether the last call left the realm dirty: the next line or reset (or
    /// [`recover`](Self::recover)) rebuilds it first.
    pub fn needs_recovery(&self) -> bool {
        self.realm.is_none()
    }

    /// Rebuilds the realm now if the last call left it dirty (a fresh realm, then this run's
    /// earlier lines replayed into it within `replay_budget_ms`), so an embedder that times its
    /// lines can keep that work out of the next line's time. Otherwise the next line or reset
    /// does it.
    ///
    /// # Errors
    /// `realm_unavailable` when no realm could be made.
    pub fn recover(&mut self) -> Result<(), LineFailure> {
        self.ensure_realm()
    }

    /// Counters and the last error of this run.
    pub fn diagnostics(&self) -> &RunDiagnostics {
        &self.diagnostics
    }

    /// After a call into the realm (a line or a reset): records it in the history with the time
    /// it took, unless it left the realm unusable, which then goes (the next call rebuilds it).
    fn finish_call<T>(
        &mut self,
        out: Result<T, Stop>,
        op: impl FnOnce() -> Op,
    ) -> Result<T, LineFailure> {
        let opts = &self.module.options;
        let work = self.realm.as_ref().map_or(0, |r| r.last_work);
        self.diagnostics.work_cycles = self.diagnostics.work_cycles.saturating_add(work);
        // boa counts work at its yields, every `budget_cycles`: the last, partial slice of a
        // call goes uncounted, half a slice on average. Charged to the history, so a long run
        // of short lines (each under one slice, counted as nothing) still reaches the replay
        // budget and stops keeping lines it could never replay in time.
        let ran_ms = ms_of(work.saturating_add(u64::from(opts.budget_cycles) / 2));
        match out {
            Ok(v) => {
                self.history.record(op(), ran_ms, opts);
                Ok(v)
            }
            Err(stop) => {
                if stop.dirties() {
                    self.realm = None;
                } else {
                    self.history.record(op(), ran_ms, opts);
                }
                Err(stop_failure(&stop, opts))
            }
        }
    }

    /// The current realm, rebuilding it (fresh realm + replay of this run's earlier lines) when
    /// the last call left it dirty.
    fn ensure_realm(&mut self) -> Result<(), LineFailure> {
        if self.realm.is_none() {
            self.rebuild()?;
        }
        Ok(())
    }

    fn rebuild(&mut self) -> Result<(), LineFailure> {
        self.diagnostics.rebuilds += 1;
        let module = &self.module;
        let fresh = || {
            Realm::new(&module.prepared, &module.options).map_err(|e| {
                let le = init_error(e);
                LineFailure::new(
                    FailureCode::RealmUnavailable,
                    format!("could not rebuild the parser realm: {le}"),
                )
            })
        };
        let mut realm = fresh()?;
        if !self.history.is_complete() {
            self.diagnostics.state_lost += 1;
            self.realm = Some(realm);
            return Ok(());
        }
        // Replay: every op is deterministic, so the state comes back exactly. An op that now
        // stops the realm (it ran near its budget before) is dropped from the history.
        let mut k = 0;
        let mut attempts = 0;
        // What replays is work the history counted when it first ran, under the replay budget:
        // the clock only backstops a machine that stalls.
        let deadline = Deadline::after(module.options.replay_budget_ms * 10.0, &module.options);
        while k < self.history.len() {
            if deadline.passed() {
                // Bounded recovery: a fresh run now rather than a frozen thread.
                self.diagnostics.state_lost += 1;
                self.history.restart();
                realm = fresh()?;
                break;
            }
            let dirty = match self.history.get(k) {
                Some(Op::Line(l, t)) => {
                    self.diagnostics.replayed_lines += 1;
                    let replayed =
                        realm.parse_line::<JsonSink>(l, t, self.stateless, &module.options);
                    matches!(replayed, Err(ref s) if s.dirties())
                }
                Some(Op::Reset) => {
                    matches!(realm.reset(&module.options), Err(ref s) if s.dirties())
                }
                None => false,
            };
            if dirty {
                attempts += 1;
                self.history.remove(k);
                realm = fresh()?;
                if attempts > 2 {
                    self.diagnostics.state_lost += 1;
                    self.history.restart();
                    break;
                }
                k = 0;
                continue;
            }
            k += 1;
        }
        self.realm = Some(realm);
        Ok(())
    }

    /// Parses one line and settles it with the one line rule ([`settle_line`], the module's
    /// entry limits), counting the outcome in this run's diagnostics: what the transcript would
    /// show for the line, and why it fell back if it did.
    pub fn parse_line_settled(&mut self, line: &str, ts: &str) -> SettledLine {
        self.diagnostics.lines += 1;
        let outcome = self.parse_line_raw(line, ts);
        let settled = settle_line(
            line,
            ts,
            outcome,
            &self.module.options.entry_limits,
            FailedLineEntry::default(),
        );
        for d in &settled.dropped {
            *self.diagnostics.dropped.entry(d.code()).or_default() += 1;
        }
        if let Some(f) = &settled.fallback {
            *self.diagnostics.failures.entry(f.code).or_default() += 1;
            self.diagnostics.last_error = Some(f.clone());
        }
        settled
    }

    /// Parses one line and returns the converted return value before validation: what
    /// [`parsebox_transcript::settle_line`], the one line rule, takes. The run stays usable for
    /// the next line whatever happens.
    ///
    /// # Errors
    /// As [`ParserRun::parse_line`], without the validation step.
    pub fn parse_line_raw(&mut self, line: &str, ts: &str) -> LineOutcome {
        self.parse_line_into::<ValueSink>(line, ts)
    }

    /// [`parse_line_raw`](Self::parse_line_raw) with the value as JSON text, written as the
    /// guest value is walked: what an engine instance answers its host with.
    ///
    /// # Errors
    /// As [`ParserRun::parse_line_raw`].
    pub fn parse_line_json(&mut self, line: &str, ts: &str) -> Result<ReturnJson, LineFailure> {
        self.parse_line_into::<JsonSink>(line, ts)
            .map(ReturnJson::new)
    }

    fn parse_line_into<S: Sink + Default>(
        &mut self,
        line: &str,
        ts: &str,
    ) -> Result<S::Output, LineFailure> {
        let opts = &self.module.options;
        if line.len() > opts.max_line_bytes {
            return Err(LineFailure::new(
                FailureCode::LineTooLong,
                format!(
                    "line is {} bytes; the sandbox passes at most {}",
                    line.len(),
                    opts.max_line_bytes
                ),
            ));
        }
        self.ensure_realm()?;
        let realm = self.realm.as_mut().ok_or_else(unavailable)?;
        let mut out = realm.parse_line::<S>(line, ts, self.stateless, &self.module.options);
        if matches!(out, Err(Stop::Clock)) {
            // Stopped by the clock alone: a stalled machine is not the parser's fault. The
            // line runs once more, alone, on a fresh realm brought back to this run's state.
            self.diagnostics.clock_retries += 1;
            self.realm = None;
            self.ensure_realm()?;
            let realm = self.realm.as_mut().ok_or_else(unavailable)?;
            out = realm.parse_line::<S>(line, ts, self.stateless, &self.module.options);
        }
        self.finish_call(out, || Op::Line(line.to_owned(), ts.to_owned()))?
            .map_err(|(code, msg)| LineFailure::new(code, msg))
    }
}

/// A run as a transcript builder's parser: each line goes through the one line rule
/// ([`settle_line`]) with the module's entry limits, so `parsebox parse` shows exactly what the
/// registry would.
impl LineParser for ParserRun {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        self.parse_line_settled(line, ts).into_result()
    }

    fn reset(&mut self) {
        // A failing reset is counted; the builder has nothing to do with it.
        if let Err(f) = ParserRun::reset(self) {
            *self.diagnostics.failures.entry(f.code).or_default() += 1;
            self.diagnostics.last_error = Some(f);
        }
    }
}

#[cfg(test)]
mod tests;
