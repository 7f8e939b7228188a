//! The [`Host`] itself: its state, the page-facing calls and the command/timeout outputs.
//! Engine events live in `lifecycle.rs`, `answers.rs` and `recovery.rs`.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use parsebox_transcript::{generic_entry, FailedLineEntry, SettledLine, TranscriptEntry};

use crate::adapter::{Adapter, LineHost};
use crate::diagnostics::{count_line, AnsweredBy};
use crate::engine::{Engine, Phase};
use crate::journal::{Delivery, Journal};
use crate::memo;
use crate::{
    AdapterState, AdapterStatus, Command, Diagnostics, EngineId, EngineOp, HostError, HostOptions,
    HostPlacement, LineOp, LineStep, OptionsError, Placement, RunId, Seq,
};

/// How many of a run's lines may wait for a Worker's answers before a rebuild in slices holds
/// its next slice ([`Host::rebuild_may_go_on`]): about a tenth of a second of a Worker's work.
pub const REBUILD_AHEAD_LINES: usize = 2_000;

/// One run: which engine holds its parser instance, and its journal.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) adapter_type: String,
    /// The engine that was sent this run's `NewRun` (`None`: not bound yet).
    pub(crate) engine: Option<EngineId>,
    pub(crate) journal: Journal,
    /// What this run's failed lines show.
    pub(crate) failed_line_entry: FailedLineEntry,
    /// The type's stateless run: the module's own `parseStdoutLine` answers its lines.
    pub(crate) stateless: bool,
    /// The history key after the run's last journaled op ([`crate::memo`]), from
    /// [`memo::FRESH_RUN`]; a stateless run keys every line from [`memo::STATELESS`] instead.
    pub(crate) memo_key: u64,
    /// Whether the run's later answers may be remembered and looked up: false once a line of it
    /// failed (a deadline is not deterministic) or its history was dropped.
    pub(crate) memo_ok: bool,
    /// Journal ops at the end that the engine was never sent: lines answered from the memo, and
    /// resets after them. Sent as replay before the run's next line goes to the engine.
    pub(crate) unsent: usize,
}

impl Run {
    /// The history key of `line` at `ts` as this run's next line ([`crate::memo`]): chained
    /// from the run's key, or from [`memo::STATELESS`] for a stateless run.
    fn next_memo_key(&self, line: &str, ts: &str) -> u64 {
        let before = if self.stateless {
            memo::STATELESS
        } else {
            self.memo_key
        };
        memo::key(before, &memo::Step::Line { line, ts })
    }
}

/// Whether the executor can make sandboxed engines: the page may start with the trusted core
/// alone and compile the engine module in the background.
#[derive(Debug)]
pub(crate) enum EngineModule {
    /// Engines start when asked.
    Ready,
    /// Not compiled yet: `StartEngine` commands of sandboxed engines are held here (their
    /// engines wait in [`Phase::Starting`], without a start deadline) until it is.
    Pending(Vec<Command>),
    /// It could not be loaded: every sandboxed parser fails to start with this error.
    Failed(crate::LoadError),
}

/// The sans-IO host core: see the crate documentation.
#[derive(Debug)]
pub struct Host {
    pub(crate) options: HostOptions,
    pub(crate) adapters: BTreeMap<String, Adapter>,
    pub(crate) runs: BTreeMap<RunId, Run>,
    pub(crate) engines: BTreeMap<EngineId, Engine>,
    /// Ended engines and their type, so their late answers are counted against it.
    pub(crate) retired: BTreeMap<EngineId, String>,
    pub(crate) commands: VecDeque<Command>,
    /// Types with a `Notify` in `commands`.
    pub(crate) notify_queued: BTreeSet<String>,
    /// Lines of dropped runs still owed by their engine: their answers are remembered, not
    /// delivered (a page that re-renders with a fresh run each time drops the last one).
    pub(crate) orphans: memo::Orphans,
    /// What each transcript (a builder's run) holds, as its budget counts it
    /// (`transcripts.rs`).
    pub(crate) transcript_bytes: HashMap<RunId, usize>,
    pub(crate) next_engine: u64,
    pub(crate) next_token: u64,
    /// The `Load` commands handed to the executor whose result has not come back (token and
    /// type), superseded ones included: `idle()` waits for every loader it started.
    pub(crate) loads_out: BTreeMap<u64, String>,
    /// Whether sandboxed engines can be made yet ([`Host::engine_module_pending`]).
    pub(crate) engine_module: EngineModule,
    /// `StartEngine` commands waiting for room (`max_live_engines`), in order: issued as
    /// engines become idle ([`Host::start_waiting`]).
    pub(crate) waiting_for_room: VecDeque<Command>,
    next_run: u64,
    pub(crate) next_seq: Seq,
    disposed: bool,
}

impl Host {
    /// A host whose only parser is the generic one.
    ///
    /// # Errors
    /// [`OptionsError`] when [`HostOptions::validate`] rejects `options`.
    pub fn new(options: HostOptions) -> Result<Self, OptionsError> {
        options.validate()?;
        Ok(Self {
            options,
            adapters: BTreeMap::new(),
            runs: BTreeMap::new(),
            orphans: memo::Orphans::default(),
            transcript_bytes: HashMap::new(),
            engines: BTreeMap::new(),
            retired: BTreeMap::new(),
            waiting_for_room: VecDeque::new(),
            commands: VecDeque::new(),
            notify_queued: BTreeSet::new(),
            next_engine: 1,
            next_token: 1,
            loads_out: BTreeMap::new(),
            engine_module: EngineModule::Ready,
            next_run: 1,
            next_seq: 1,
            disposed: false,
        })
    }

    /// The options the host was made with.
    pub fn options(&self) -> &HostOptions {
        &self.options
    }

    /// The next command for the executor. Queued commands come first, in order; then one
    /// [`Command::Send`] per started engine with ops waiting (every op queued since the last
    /// poll travels in that one batch). Still works after [`Host::dispose`], to drain the
    /// final `EndEngine`s.
    pub fn poll_command(&mut self) -> Option<Command> {
        if let Some(c) = self.commands.pop_front() {
            match &c {
                Command::Notify { adapter_type } => {
                    self.notify_queued.remove(adapter_type);
                }
                Command::Load {
                    adapter_type,
                    token,
                } => {
                    self.loads_out.insert(*token, adapter_type.clone());
                }
                _ => {}
            }
            return Some(c);
        }
        self.engines.iter_mut().find_map(|(id, e)| {
            (e.phase == Phase::Running && !e.outbox.is_empty()).then(|| Command::Send {
                engine: *id,
                ops: e.take_outbox(),
            })
        })
    }

    /// The earliest armed deadline (ms, on the executor's clock), if any: call
    /// [`Host::handle_timeout`] then. Deadlines are armed only for Worker engines.
    pub fn poll_timeout(&self) -> Option<f64> {
        self.engines
            .values()
            .filter_map(|e| e.deadline().map(|(at, _)| at))
            .min_by(f64::total_cmp)
    }

    /// Starts a run (one transcript) of `adapter_type`. An unknown type starts loading.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn create_run(&mut self, adapter_type: &str) -> Result<RunId, HostError> {
        self.create_run_showing(adapter_type, FailedLineEntry::Generic)
    }

    /// [`create_run`](Self::create_run) whose failed lines show `failed_line_entry`: a
    /// transcript builder's run shows Paperclip's parse-error entry, as `buildTranscript` does.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn create_run_showing(
        &mut self,
        adapter_type: &str,
        failed_line_entry: FailedLineEntry,
    ) -> Result<RunId, HostError> {
        self.check_live()?;
        self.touch(adapter_type);
        let id = RunId(self.next_run);
        self.next_run += 1;
        self.runs.insert(
            id,
            Run {
                adapter_type: adapter_type.to_owned(),
                engine: None,
                journal: Journal::default(),
                failed_line_entry,
                stateless: false,
                memo_key: memo::FRESH_RUN,
                memo_ok: true,
                unsent: 0,
            },
        );
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.diag.runs_created += 1;
        }
        Ok(id)
    }

    /// The adapter type of `run`, while it exists.
    pub fn run_type(&self, run: RunId) -> Option<&str> {
        self.runs.get(&run).map(|r| r.adapter_type.as_str())
    }

    /// `adapter_type`'s long-lived default run (what `parseLine(type, …)` without a run uses),
    /// created on first use. It follows the contract (SPEC §3): a module exporting
    /// `createStdoutParser` is driven through one instance of it, which keeps its state from
    /// line to line, even when the module also exports `parseStdoutLine`.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn default_run(&mut self, adapter_type: &str) -> Result<RunId, HostError> {
        self.long_lived_run(adapter_type, false)
    }

    /// `adapter_type`'s long-lived stateless run: what Paperclip's `adapter.parseStdoutLine`
    /// calls, the module's own `parseStdoutLine` when it exports one (otherwise the same as
    /// the default run's instance). Created on first use.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn stateless_run(&mut self, adapter_type: &str) -> Result<RunId, HostError> {
        self.long_lived_run(adapter_type, true)
    }

    /// The type's default or stateless run, made on first use and kept in the adapter.
    fn long_lived_run(&mut self, adapter_type: &str, stateless: bool) -> Result<RunId, HostError> {
        self.check_live()?;
        fn slot(a: &mut Adapter, stateless: bool) -> &mut Option<RunId> {
            if stateless {
                &mut a.stateless_run
            } else {
                &mut a.default_run
            }
        }
        let current = self
            .adapters
            .get_mut(adapter_type)
            .and_then(|a| *slot(a, stateless));
        if let Some(run) = current.filter(|r| self.runs.contains_key(r)) {
            return Ok(run);
        }
        let run = self.create_run(adapter_type)?;
        if let Some(r) = self.runs.get_mut(&run) {
            r.stateless = stateless;
        }
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            *slot(a, stateless) = Some(run);
        }
        Ok(run)
    }

    /// Parses one line in `run`; see [`LineStep`] for the three ways it is answered. A type
    /// without an engine (generic, loading, failed), or whose inline/builtin engine is busy
    /// with a `RunNow` this call re-entered, gets the generic entry at once. A type whose
    /// engine was parked to make room for others ([`HostOptions::max_live_engines`](crate::HostOptions))
    /// starts one again at `now_ms` (the executor's clock).
    ///
    /// # Errors
    /// [`HostError::Disposed`], or [`HostError::UnknownRun`] when `run` does not exist.
    pub fn parse_line(
        &mut self,
        now_ms: f64,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<LineStep, HostError> {
        self.check_live()?;
        let r = self.runs.get(&run).ok_or(HostError::UnknownRun(run))?;
        let adapter_type = r.adapter_type.clone();
        self.unpark(now_ms, &adapter_type);
        let engine = self
            .adapters
            .get(&adapter_type)
            .filter(|a| a.answers_with_engine())
            .and_then(|a| a.engine)
            .filter(|e| self.engines.contains_key(e));
        // A synchronous engine already inside a `RunNow` (a builtin or listener calling back
        // into the host) cannot take another line: answering it generically keeps the
        // engine's answers in order instead of stranding this line at the head of its queue.
        let busy = engine.and_then(|e| self.engines.get(&e)).is_some_and(|e| {
            e.placement != Placement::Worker && e.phase == Phase::Running && e.sent > 0
        });
        let engine = engine.filter(|_| !busy);
        let Some(engine) = engine else {
            let settled = SettledLine {
                entries: vec![generic_entry(line, ts)],
                fallback: None,
                dropped: Vec::new(),
            };
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                count_line(&mut a.diag, line, ts, &settled, AnsweredBy::Generic);
            }
            return Ok(LineStep::Answered(settled.entries));
        };
        let sync = self
            .engines
            .get(&engine)
            .is_some_and(|e| e.phase == Phase::Running && e.placement != Placement::Worker);
        self.forget_earlier_parser(run, engine);
        // The line's history key, hashed once: looked up, then journaled.
        let Some(key) = self.runs.get(&run).map(|r| r.next_memo_key(line, ts)) else {
            return Err(HostError::UnknownRun(run));
        };
        if !sync {
            if let Some(entries) = self.remembered(run, key, line, ts) {
                return Ok(LineStep::Answered(entries));
            }
        }
        self.bind_run(run, engine);
        self.catch_up(run);
        let seq = self.next_seq;
        self.next_seq += 1;
        let delivery = if sync { Delivery::Now } else { Delivery::Late };
        self.journal_line(run, seq, line, ts, Some(delivery), key);
        let op = LineOp {
            seq,
            run,
            line: line.to_owned(),
            ts: ts.to_owned(),
            replay: false,
        };
        if !sync {
            // A Worker's line may go to another engine of the type, or wait (`spread.rs`).
            self.queue_line(run, engine, op);
            return Ok(LineStep::Deferred {
                seq,
                entries: vec![generic_entry(line, ts)],
            });
        }
        let Some(e) = self.engines.get_mut(&engine) else {
            return Ok(LineStep::Answered(vec![generic_entry(line, ts)]));
        };
        e.queue(EngineOp::Line(op));
        Ok(LineStep::RunNow {
            engine,
            seq,
            ops: e.take_outbox(),
        })
    }

    /// Resets `run` (its transcript is being rebuilt from scratch): the engine calls the
    /// parser's `reset()`, and the journal records it for replay.
    ///
    /// # Errors
    /// [`HostError::Disposed`], or [`HostError::UnknownRun`] when `run` does not exist.
    pub fn reset_run(&mut self, run: RunId) -> Result<(), HostError> {
        self.check_live()?;
        let r = self.runs.get_mut(&run).ok_or(HostError::UnknownRun(run))?;
        if r.engine.is_none() && r.journal.len() == 0 {
            // Nothing run yet: its first op will be a fresh `NewRun` anyway.
            return Ok(());
        }
        let pushed = r.journal.push_reset();
        if !r.stateless {
            r.memo_key = memo::key(r.memo_key, &memo::Step::Reset);
        }
        match r.engine {
            // Behind on memo answers, or not bound yet: the reset travels with them.
            Some(_) if r.unsent > 0 => r.unsent += usize::from(pushed),
            None => {}
            Some(engine) => {
                if let Some(e) = self.engines.get_mut(&engine) {
                    e.queue(EngineOp::Reset { run });
                }
            }
        }
        Ok(())
    }

    /// Drops `run`: its engine frees the instance (`DropRun`) and its journal is freed.
    /// Answers still on their way for it are ignored (counted as stale).
    ///
    /// # Errors
    /// [`HostError::Disposed`], or [`HostError::UnknownRun`] when `run` does not exist.
    pub fn drop_run(&mut self, run: RunId) -> Result<(), HostError> {
        self.check_live()?;
        let mut r = self.runs.remove(&run).ok_or(HostError::UnknownRun(run))?;
        self.forget_transcript(run);
        if let Some(a) = self.adapters.get_mut(&r.adapter_type) {
            a.backlog.retain(|l| l.run != run);
        }
        if let Some(e) = r.engine.and_then(|id| self.engines.get_mut(&id)) {
            e.queue(EngineOp::DropRun { run });
        }
        if r.memo_ok {
            for l in r.journal.take_pending() {
                self.orphans.insert(l.seq, &r.adapter_type, l);
            }
        }
        Ok(())
    }

    /// Forgets `adapter_type`: ends its engine and drops its runs. Using the type again starts
    /// from scratch (a new load).
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn dispose_type(&mut self, adapter_type: &str) -> Result<(), HostError> {
        self.check_live()?;
        self.end_engine_of(adapter_type);
        let gone: BTreeSet<RunId> = self
            .runs
            .iter()
            .filter(|(_, r)| r.adapter_type == adapter_type)
            .map(|(id, _)| *id)
            .collect();
        self.runs.retain(|id, _| !gone.contains(id));
        self.adapters.remove(adapter_type);
        self.retired.retain(|_, t| t != adapter_type);
        self.notify_queued.remove(adapter_type);
        self.commands.retain(|c| match c {
            Command::Notify { adapter_type: t }
            | Command::Load {
                adapter_type: t, ..
            } => t != adapter_type,
            Command::LateAnswer { run, .. } => !gone.contains(run),
            _ => true,
        });
        Ok(())
    }

    /// Ends every engine and forgets everything; later page calls fail with
    /// [`HostError::Disposed`]. Drain [`Host::poll_command`] for the `EndEngine`s.
    pub fn dispose(&mut self) {
        if self.disposed {
            return;
        }
        let types: Vec<String> = self.adapters.keys().cloned().collect();
        for t in &types {
            self.end_engine_of(t);
        }
        self.commands
            .retain(|c| matches!(c, Command::EndEngine { .. }));
        self.waiting_for_room.clear();
        self.notify_queued.clear();
        self.adapters.clear();
        self.runs.clear();
        self.retired.clear();
        self.disposed = true;
    }

    /// Whether [`Host::dispose`] was called.
    pub fn is_disposed(&self) -> bool {
        self.disposed
    }

    /// `adapter_type`'s status. Asking does not start a load.
    pub fn status(&self, adapter_type: &str) -> AdapterStatus {
        let a = self.adapters.get(adapter_type);
        // A parked engine's type says where its next engine will run.
        let placement = a.and_then(|a| {
            a.engine
                .and_then(|e| self.engines.get(&e))
                .map(|e| e.placement)
                .or(a.parked.map(|_| a.placement))
        });
        let host = LineHost::of(placement);
        let host_reason = (host == LineHost::Worker).then(|| {
            a.and_then(|a| a.moved_because)
                .unwrap_or("parsers run in Workers here, so none can block the page (host: \"worker\", the default where Workers exist)")
                .to_owned()
        });
        let started = a
            .filter(|a| a.answers_with_engine())
            .and_then(|a| a.started.as_ref());
        AdapterStatus {
            adapter_type: adapter_type.to_owned(),
            state: a.map_or(AdapterState::Generic, |a| a.state),
            reason: a.and_then(|a| a.reason.clone()),
            error: a.and_then(|a| a.error.clone()),
            entry_point: started.map(|s| s.entry_point.clone()),
            module: started.and_then(|s| s.module.clone()),
            contract_version: a.and_then(|a| a.contract_version.clone()),
            placement,
            host,
            host_reason,
            generation: a.map_or(0, |a| a.generation),
            has_builtin: a.is_some_and(|a| a.has_builtin),
            has_external: a.is_some_and(Adapter::external_layer),
        }
    }

    /// Which parser answers `run`'s lines: its type's generation and state. A transcript
    /// parsed under another is to be parsed again (a follower re-parses its chunks when this
    /// changes between two renders); `None` once the run is gone.
    pub fn parser_of(&self, run: RunId) -> Option<(u64, AdapterState)> {
        let adapter = self.adapters.get(self.run_type(run)?);
        Some(adapter.map_or((0, AdapterState::Generic), |a| (a.generation, a.state)))
    }

    /// Whether `run`'s lines are answered late: its adapter's parser is ready in a Worker
    /// engine, so a line gets the generic entry first and its answer after. (A pending line's
    /// replay by a follower starts after every chunk then: what came before is answered.)
    pub fn answers_later(&self, run: RunId) -> bool {
        self.runs.get(&run).is_some_and(|r| {
            let status = self.status(&r.adapter_type);
            status.state == AdapterState::Ready && status.host == LineHost::Worker
        })
    }

    /// Whether a transcript rebuild of `run` in slices may re-parse its next slice now: fewer
    /// than [`REBUILD_AHEAD_LINES`] of the run's lines wait for an engine's answers. A rebuild
    /// that ran far ahead of a Worker would make each frame's late answers refold (and hand
    /// the page again) every entry after the first of them.
    pub fn rebuild_may_go_on(&self, run: RunId) -> bool {
        self.runs
            .get(&run)
            .is_none_or(|r| r.journal.pending() < REBUILD_AHEAD_LINES)
    }

    /// Whether nothing is under way: no source loading (a load handed out and not answered,
    /// even one a reload superseded), no engine starting, no line waiting for an answer.
    /// (What `idle()` of the page waits for, with the binding's frame.)
    pub fn is_idle(&self) -> bool {
        let loading =
            !self.loads_out.is_empty() || self.adapters.values().any(|a| a.load_token != 0);
        let starting = self.engines.values().any(|e| e.phase == Phase::Starting);
        let waiting = self.runs.values().any(|r| r.journal.pending() > 0);
        !(loading || starting || waiting)
    }

    /// Every adapter type the host has seen, sorted.
    pub fn adapter_types(&self) -> Vec<String> {
        self.adapters.keys().cloned().collect()
    }

    /// Counters for one adapter type, or summed over all types when `adapter_type` is `None`.
    pub fn diagnostics(&self, adapter_type: Option<&str>) -> Diagnostics {
        let one = |t: &str, a: &Adapter| {
            let mut d = a.diag.clone();
            d.host.lines_pending = self
                .runs
                .values()
                .filter(|r| r.adapter_type == t)
                .map(|r| r.journal.pending() as u64)
                .sum();
            d.host.transcript_bytes = self.transcript_bytes_of(t);
            d
        };
        match adapter_type {
            Some(t) => self.adapters.get(t).map(|a| one(t, a)).unwrap_or_default(),
            None => {
                let mut total = Diagnostics::default();
                for (t, a) in &self.adapters {
                    total.add(&one(t, a));
                }
                total
            }
        }
    }

    pub(crate) fn check_live(&self) -> Result<(), HostError> {
        if self.disposed {
            Err(HostError::Disposed)
        } else {
            Ok(())
        }
    }

    /// Where a new sandboxed engine starts under the `host` option.
    pub(crate) fn initial_placement(&self) -> Placement {
        match self.options.host {
            HostPlacement::Worker => Placement::Worker,
            HostPlacement::Inline | HostPlacement::Auto => Placement::Inline,
        }
    }

    /// Makes sure `adapter_type` has a record; an unknown type starts loading.
    pub(crate) fn touch(&mut self, adapter_type: &str) {
        if self.adapters.contains_key(adapter_type) {
            return;
        }
        let placement = self.initial_placement();
        self.adapters
            .insert(adapter_type.to_owned(), Adapter::new(placement));
        if self.options.load_sources {
            self.request_load(adapter_type);
        }
    }

    /// A run bound to an engine other than `engine` (the type's parser was replaced since)
    /// starts over: its journal and history key belong to the old parser. It is then unbound,
    /// like a new run.
    fn forget_earlier_parser(&mut self, run: RunId, engine: EngineId) {
        if let Some(r) = self.runs.get_mut(&run) {
            if r.engine.is_some_and(|e| e != engine) {
                r.journal = Journal::default();
                r.memo_key = memo::FRESH_RUN;
                r.unsent = 0;
                r.engine = None;
            }
        }
    }

    /// Makes `run` an instance in `engine`: a `NewRun` the first time (after
    /// [`Host::forget_earlier_parser`], also for a run whose parser was replaced).
    fn bind_run(&mut self, run: RunId, engine: EngineId) {
        let Some(r) = self.runs.get_mut(&run) else {
            return;
        };
        if r.engine == Some(engine) {
            return;
        }
        // What it journaled while unbound came from the memo: the engine is sent all of it.
        r.unsent = r.journal.len();
        r.engine = Some(engine);
        let stateless = r.stateless;
        if let Some(e) = self.engines.get_mut(&engine) {
            e.queue(EngineOp::NewRun { run, stateless });
        }
    }

    /// The memo's answer for `line` of `run`, if one was remembered for the same history
    /// ([`crate::memo`]). A stateful run then journals the line as answered (its engine runs
    /// it as replay before the run's next line that misses) and its history key moves on.
    fn remembered(
        &mut self,
        run: RunId,
        key: u64,
        line: &str,
        ts: &str,
    ) -> Option<Vec<TranscriptEntry>> {
        let r = self.runs.get(&run)?;
        if !r.memo_ok {
            return None;
        }
        let a = self.adapters.get_mut(&r.adapter_type)?;
        let entries = a.memo.get(a.generation, key, line, ts)?.to_vec();
        a.diag.host.memo_answers += 1;
        if !r.stateless {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.journal_line(run, seq, line, ts, None, key);
            if let Some(r) = self.runs.get_mut(&run) {
                r.unsent += 1;
            }
        }
        Some(entries)
    }

    /// Sends `run`'s engine the journal ops it never got (lines answered from the memo), as
    /// replay, so its parser state is where the run's history says before its next op.
    pub(crate) fn catch_up(&mut self, run: RunId) {
        let Some(r) = self.runs.get_mut(&run) else {
            return;
        };
        let n = std::mem::take(&mut r.unsent).min(r.journal.len());
        let Some(e) = r.engine.and_then(|id| self.engines.get_mut(&id)) else {
            return;
        };
        for op in r.journal.tail_ops(run, n) {
            e.queue(op);
        }
    }

    /// Journals a line (unanswered with its `delivery`, or answered from the memo: `None`)
    /// whose history key is `key` ([`Run::next_memo_key`]), moves the run's history key past
    /// it, and keeps the run under the journal cap.
    fn journal_line(
        &mut self,
        run: RunId,
        seq: Seq,
        line: &str,
        ts: &str,
        delivery: Option<Delivery>,
        key: u64,
    ) {
        let cap = self.options.max_journal_bytes;
        let Some(r) = self.runs.get_mut(&run) else {
            return;
        };
        if !r.stateless {
            r.memo_key = key;
        }
        r.journal.push_line(seq, line, ts, delivery, key);
        if r.journal.bytes() > cap && r.journal.drop_history() {
            // What the engine never got is gone with the history; later answers differ.
            r.unsent = r.unsent.min(r.journal.len());
            r.memo_ok = false;
            if let Some(a) = self.adapters.get_mut(&r.adapter_type) {
                a.diag.host.state_lost += 1;
            }
        }
    }
}
