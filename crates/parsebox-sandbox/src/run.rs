//! One run's parser ([`ParserRun`]): each line under the budgets, the realm rebuilt and the run's
//! earlier lines replayed after an abort, and what happened for the diagnostics.

use std::collections::BTreeMap;
use std::fmt;

use parsebox_transcript::{
    entries_from_return, settle_line, CheckedEntries, FailedLineEntry, FailureCode, LineFailure,
    LineOutcome, LineParser, ReturnJson, SettledLine, TranscriptEntry,
};

use crate::clock::{ms_of, Deadline};
use crate::convert::{JsonSink, Sink, ValueSink};
use crate::history::{History, Op};
use crate::load_error::LoadError;
use crate::realm::{init_error, Realm, Stop};
use crate::{EntryPoint, ParserModule, SandboxOptions};

impl ParserModule {
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
        let realm = self.realm_for_run()?;
        Ok(ParserRun::start(self.clone(), stateless, realm))
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

/// The failure a stop gives, its texts within the entry limits' string bound (the realm
/// already reads a thrown value that way; this holds for every other text too).
fn stop_failure(stop: &Stop, opts: &SandboxOptions) -> LineFailure {
    stop_failure_unbounded(stop, opts).bounded(opts.entry_limits.max_string_bytes)
}

fn stop_failure_unbounded(stop: &Stop, opts: &SandboxOptions) -> LineFailure {
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
    /// A run of `module` on `realm`, fresh: no line yet.
    pub(crate) fn start(module: ParserModule, stateless: bool, realm: Realm) -> Self {
        Self {
            module,
            stateless,
            realm: Some(realm),
            history: History::default(),
            diagnostics: RunDiagnostics::default(),
        }
    }

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
                    *self.diagnostics.dropped.entry(d.why.code()).or_default() += 1;
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
        let limits = &self.module.options.entry_limits;
        entries_from_return(value, limits).map_err(|m| {
            LineFailure::new(FailureCode::BadReturn, m).bounded(limits.max_string_bytes)
        })
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
        let mut deadline = Deadline::after(module.options.replay_budget_ms * 10.0, &module.options);
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
            // Each replayed op ended: the replay makes progress, and only a stall (an op the
            // backstop stops by itself) ends it.
            deadline.progressed();
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
            *self.diagnostics.dropped.entry(d.why.code()).or_default() += 1;
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
