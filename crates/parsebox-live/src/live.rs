//! [`LiveCore`]: the host core with the engines that live in the page's thread (built-ins here;
//! inline engine instances behind the [`Executor`]), the commands left for the JS driver,
//! what waits for the next frame. Every command the core issues passes
//! through [`LiveCore::pump`]; every line through [`LiveCore::parse_line`]. What waits for the
//! page (ops frames, late answers, line updates) is counted in real bytes
//! ([`LiveCore::pending_bytes`]), so a transcript's memory is what its own calls keep.

use std::collections::{HashMap, HashSet};

use parsebox_host::{
    wire, Answered, Command, EngineAnswer, EngineId, EngineOp, EngineRuns, Host, LineStep,
    LoadError, LoadResult, Placement, RunId, Seq,
};
use parsebox_transcript::{generic_entry, LineOutcome, TranscriptEntry};

use parsebox_host::{AdapterStatus, DynamicLoad, HostError};
use parsebox_transcript::FailedLineEntry;
use serde::Serialize;

use parsebox_meter::Meter;

use crate::command::ExecutorCommand;
use crate::executor::{Builtin, EngineDeath, Executor};
use crate::frame::{Frame, FrameQueue, LineUpdate};

/// What [`LiveCore::poll`] gives the JS driver: its commands, in order, and when to call
/// [`LiveCore::timeout_fired`] (ms on the executor's clock; `None`: no deadline is armed).
#[derive(Serialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Polled {
    /// The commands, in order.
    pub commands: Vec<ExecutorCommand>,
    /// When the timer fires next.
    pub timeout_ms: Option<f64>,
    /// Whether nothing is under way once these commands are out ([`LiveCore::is_idle`]): what
    /// the page's `idle()` waits for.
    pub idle: bool,
    /// The ops frame of each `send` command, in the commands' order (empty when the engine's
    /// frame was posted at once meanwhile): bytes, so they travel beside the JSON.
    #[serde(skip)]
    pub ops: Vec<Vec<u8>>,
}

/// What a registry (`HostCore` in the binding) and its transcript builders share: see the
/// module's doc.
pub struct LiveCore<X: Executor> {
    host: Host,
    /// The registry's engine config, as JSON: what the JS driver sizes engine memories by.
    /// Each engine starts with the config its `StartEngine` command carries (per placement).
    engine_config: String,
    /// The page side: engine instances of this thread live behind it.
    executor: X,
    placements: HashMap<EngineId, Placement>,
    /// Built-in parsers by type, and the built-in engines running them.
    builtin_parsers: HashMap<String, X::Builtin>,
    builtins: HashMap<EngineId, EngineRuns<X::Builtin>>,
    /// Commands for the JS driver, in order (the executor is woken when the first comes:
    /// [`LiveCore::command`]).
    out: Vec<ExecutorCommand>,
    /// Ops frames for Worker engines, each announced by one `send` command in `out`.
    frames: HashMap<EngineId, Vec<u8>>,
    /// The real bytes of `frames`' buffers.
    frames_bytes: isize,
    /// The late answer [`pump`](Self::pump) queued last, to charge what it holds to.
    queued: Option<Queued>,
    /// The line [`parse_line`](Self::parse_line) is answering, and its answer when the pump
    /// settles it within the same call (its inline engine started in that call).
    answering: Option<(Seq, Option<Vec<TranscriptEntry>>)>,
    /// Runs owned by a `TranscriptBuilderCore` (their late answers wait in `frame`).
    builder_runs: HashSet<RunId>,
    /// The most each builder's transcript may hold, as it said last: a late answer that would
    /// take it past is let go of as it arrives.
    rooms: HashMap<RunId, usize>,
    /// What waits for the page's next frame.
    frame: FrameQueue,
}

impl<X: Executor> LiveCore<X> {
    /// A live core over `host`, whose engines of this thread live behind `executor`;
    /// `engine_config` is the registry's engine config as JSON (what the page sizes engine
    /// memories by).
    pub fn new(host: Host, engine_config: String, executor: X) -> Self {
        Self {
            host,
            engine_config,
            executor,
            placements: HashMap::new(),
            builtin_parsers: HashMap::new(),
            builtins: HashMap::new(),
            out: Vec::new(),
            frames: HashMap::new(),
            frames_bytes: 0,
            queued: None,
            answering: None,
            builder_runs: HashSet::new(),
            rooms: HashMap::new(),
            frame: FrameQueue::default(),
        }
    }

    /// Parses one line of `run`: the entries to show now, and the `seq` of the late answer
    /// that will replace them, when the line went to a Worker.
    ///
    /// # Errors
    /// The host core's misuse errors (an unknown run, a disposed core).
    pub fn parse_line(
        &mut self,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<(Vec<TranscriptEntry>, Option<Seq>), HostError> {
        let step = self
            .host
            .parse_line(self.executor.now_ms(), run, line, ts)?;
        let out = match step {
            LineStep::Answered(entries) => (entries, None),
            LineStep::Deferred { seq, entries } => {
                // An engine of this thread starting in this very call (its type's engine was
                // parked to make room, or is being started) answers the line in the pump below:
                // that answer is the line's, now, not a late one.
                self.answering = Some((seq, None));
                self.pump();
                return Ok(match self.answering.take() {
                    Some((_, Some(answered))) => (answered, None),
                    _ => (entries, Some(seq)),
                });
            }
            LineStep::RunNow { engine, seq, ops } => {
                // A line its engine stopped at the deadline runs once more on a fresh engine,
                // which starts within the pump below: its answer is the line's, now.
                self.answering = Some((seq, None));
                let answered = self.run_in_thread(engine, ops);
                self.pump();
                let again = self.answering.take().and_then(|(_, answer)| answer);
                let entries = answered
                    .into_iter()
                    .find(|a| a.seq == seq)
                    .map(|a| a.entries)
                    .or(again)
                    .unwrap_or_else(|| vec![generic_entry(line, ts)]);
                return Ok((entries, None));
            }
        };
        self.pump();
        Ok(out)
    }

    /// Runs `ops` in an engine of this thread and reports the answers (or the engine's
    /// death) to the core; returns what the core settled for waiting callers. An inline
    /// engine's call is timed on the clock the core's deadlines use: the core decides whether
    /// it ran over budget.
    fn run_in_thread(&mut self, engine: EngineId, mut ops: Vec<EngineOp>) -> Vec<Answered> {
        let inline = self.placements.get(&engine) == Some(&Placement::Inline);
        // An inline engine that stops a line loses the answers of its whole call: a replay
        // runs in a call of its own before the live lines after it, so a live line stopped at
        // its deadline costs the run nothing of its replayed state.
        let replayed = ops
            .iter()
            .rposition(|op| matches!(op, EngineOp::Line(l) if l.replay))
            .map(|last| last + 1);
        if let Some(split) = replayed.filter(|&at| inline && at < ops.len()) {
            let live = ops.split_off(split);
            let mut out = self.run_in_thread(engine, ops);
            // An engine the replay ended is the core's to start again, with the live lines.
            if self.host.has_engine(engine) {
                out.extend(self.run_in_thread(engine, live));
            }
            return out;
        }
        let start = self.executor.now_ms();
        let result = self.run_ops(engine, ops);
        // A built-in's call is not timed: it is trusted page code, never moved.
        let end = if inline {
            self.executor.now_ms()
        } else {
            start
        };
        match result {
            Ok(answers) if inline => {
                self.host
                    .handle_inline_answers(end, engine, answers, end - start)
            }
            Ok(answers) => self.host.handle_answers(end, engine, answers),
            Err(death) => self.engine_died(end, engine, death),
        }
    }

    /// Engine `engine` died as `death` says, at `now`: the host core's recovery for it.
    fn engine_died(&mut self, now: f64, engine: EngineId, death: EngineDeath) -> Vec<Answered> {
        match death {
            EngineDeath::Fault(reason) => self.host.handle_engine_died(now, engine, &reason),
            EngineDeath::OutOfMemory(bytes) => {
                self.host.handle_engine_out_of_memory(now, engine, bytes)
            }
            EngineDeath::Stopped => self.host.handle_engine_stopped(now, engine),
        }
    }

    fn run_ops(
        &mut self,
        engine: EngineId,
        ops: Vec<EngineOp>,
    ) -> Result<Vec<(Seq, LineOutcome)>, EngineDeath> {
        let fault = |s: &str| EngineDeath::Fault(s.to_owned());
        match self.placements.get(&engine) {
            Some(Placement::Builtin) => match self.builtins.get_mut(&engine) {
                Some(b) => Ok(b.run_ops(ops, |_| {})),
                None => Err(fault("the built-in engine is gone")),
            },
            Some(Placement::Inline) => {
                // Bytes both ways (an ops frame in, JSON answers out), copied between the two
                // memories and never decoded into JS strings on the way.
                let answers = self.executor.run_inline(engine, &wire::ops_frame(&ops))?;
                // Read as text, as a Worker's answers are: one JSON reader in the core module
                // (serde_json instantiates its whole deserializer per reader).
                let answers = std::str::from_utf8(&answers).map_err(|e| {
                    EngineDeath::Fault(format!("the engine answered text that is not UTF-8: {e}"))
                })?;
                let answers: Vec<EngineAnswer> =
                    serde_json::from_str(answers).map_err(|e| EngineDeath::Fault(malformed(e)))?;
                Ok(self.host.take_engine_answers(engine, answers))
            }
            Some(Placement::Worker) | None => Err(fault("not an engine of this thread")),
        }
    }

    /// Performs every command the core has queued: starts, ops and ends of this thread's
    /// engines here; the rest is left for the JS driver ([`LiveCore::take_commands`]).
    pub fn pump(&mut self) {
        // Read once, and only when a command needs it (each read is a call out to JS).
        let mut clock = None;
        while let Some(command) = self.host.poll_command() {
            match command {
                Command::StartEngine {
                    engine,
                    adapter_type,
                    placement,
                    source,
                    config,
                    answer_batch_ms,
                    line_deadline_ms,
                    ..
                } => {
                    self.placements.insert(engine, placement);
                    // Serialising a struct of numbers and a bool cannot fail.
                    let config = serde_json::to_string(&config).unwrap_or_default();
                    match placement {
                        Placement::Builtin => self.start_builtin(
                            clock_once(&mut clock, &self.executor),
                            engine,
                            &adapter_type,
                        ),
                        Placement::Inline => {
                            let result = self.start_inline(engine, &adapter_type, source, &config);
                            self.host.handle_engine_started(
                                clock_once(&mut clock, &self.executor),
                                engine,
                                result,
                            );
                        }
                        Placement::Worker => match source {
                            Some(source) => self.command(ExecutorCommand::StartWorker {
                                engine: engine.0,
                                adapter_type,
                                source,
                                config,
                                answer_batch_ms,
                                line_deadline_ms,
                            }),
                            None => self.host.handle_engine_started(
                                clock_once(&mut clock, &self.executor),
                                engine,
                                Err(LoadError::new("run_start_failed", "no source to start")),
                            ),
                        },
                    }
                }
                Command::Send { engine, ops } => {
                    if self.placements.get(&engine) == Some(&Placement::Worker) {
                        self.send_to_worker(engine, ops);
                    } else {
                        // What the core settles for these lines comes back as late answers,
                        // but for the line `parse_line` is answering, if it is among them (it
                        // runs once more on a fresh engine): that answer is the call's.
                        for answered in self.run_in_thread(engine, ops) {
                            if let Some((seq, answer @ None)) = &mut self.answering {
                                if *seq == answered.seq {
                                    *answer = Some(answered.entries);
                                }
                            }
                        }
                    }
                }
                Command::EndEngine { engine } => match self.placements.remove(&engine) {
                    Some(Placement::Builtin) => {
                        self.builtins.remove(&engine);
                    }
                    Some(Placement::Inline) => {
                        self.executor.end_inline(engine);
                    }
                    Some(Placement::Worker) => {
                        drop(self.take_ops(engine));
                        self.command(ExecutorCommand::End { engine: engine.0 });
                    }
                    None => {}
                },
                Command::LateAnswer {
                    adapter_type,
                    run,
                    seq,
                    line,
                    ts,
                    entries,
                } => {
                    if let Some((waited, answer @ None)) = &mut self.answering {
                        if *waited == seq {
                            *answer = Some(entries);
                            continue;
                        }
                    }
                    let ask = if self.builder_runs.contains(&run) {
                        self.queued = Some(Queued::Answer(run, seq));
                        self.frame.builder_answer(run, seq, entries)
                    } else {
                        self.queued = Some(Queued::Line);
                        let update = LineUpdate { line, ts, entries };
                        self.frame.late_line(adapter_type, update)
                    };
                    if ask {
                        self.command(ExecutorCommand::Frame);
                    }
                }
                Command::Load {
                    adapter_type,
                    token,
                } => self.command(ExecutorCommand::Load {
                    adapter_type,
                    token,
                }),
                Command::Notify { adapter_type } => {
                    self.command(ExecutorCommand::Notify { adapter_type });
                }
            }
        }
    }

    fn start_builtin(&mut self, now: f64, engine: EngineId, adapter_type: &str) {
        let result = match self.builtin_parsers.get(adapter_type) {
            Some(p) => {
                let entry = p.entry_point().to_owned();
                self.builtins.insert(engine, EngineRuns::new(p.clone()));
                Ok(entry)
            }
            None => Err(LoadError::new(
                "run_start_failed",
                "no built-in parser is registered for this type",
            )),
        };
        self.host.handle_engine_started(now, engine, result);
    }

    fn start_inline(
        &mut self,
        engine: EngineId,
        adapter_type: &str,
        source: Option<String>,
        config: &str,
    ) -> Result<String, LoadError> {
        let source = source.unwrap_or_default();
        let text = self
            .executor
            .start_inline(engine, adapter_type, &source, config)
            .map_err(|death| match death {
                EngineDeath::Stopped => LoadError::new(
                    "init_budget_exceeded",
                    "the module's evaluation ran past its deadline without counting work (one native step that does not return)",
                ),
                EngineDeath::OutOfMemory(bytes) => LoadError::new(
                    "engine_fault",
                    format!("the engine's memory reached its maximum: {bytes} more bytes did not fit"),
                ),
                EngineDeath::Fault(e) => LoadError::new("engine_fault", e),
            })?;
        serde_json::from_str::<Result<String, LoadError>>(&text)
            .unwrap_or_else(|e| Err(LoadError::new("engine_fault", malformed(e))))
    }

    /// Adds `ops` to the Worker's pending frame: every send to one engine until the JS
    /// executor takes the frame ([`LiveCore::take_ops`]) travels as one message, unless the
    /// frame grows past [`wire::post_now`]'s size first: then it is posted at once. A frame
    /// posted early stays in `frames`, empty, until its `send` is performed: the `send`
    /// already queued carries whatever comes after it.
    fn send_to_worker(&mut self, engine: EngineId, ops: Vec<EngineOp>) {
        if !self.frames.contains_key(&engine) {
            self.command(ExecutorCommand::Send { engine: engine.0 });
        }
        let frame = self.frames.entry(engine).or_default();
        let before = buffer_bytes(frame);
        wire::encode_ops(&ops, frame);
        self.frames_bytes += buffer_bytes(frame) - before;
        if wire::post_now(frame.len()) {
            let frame = std::mem::take(frame);
            self.frames_bytes -= buffer_bytes(&frame);
            // Posting is a message to a Worker: it cannot fail in a way the core could act on
            // (a Worker that is gone reports itself through its error event).
            self.executor.post_ops(engine, frame);
        }
    }

    /// The ops frame waiting for Worker `engine` (empty when there is none, or the engine
    /// ended before its `send` was performed).
    pub fn take_ops(&mut self, engine: EngineId) -> Vec<u8> {
        let frame = self.frames.remove(&engine).unwrap_or_default();
        self.frames_bytes -= buffer_bytes(&frame);
        frame
    }

    /// The real bytes the core holds for no transcript: what waits for the page to take it
    /// (ops frames for Workers, late answers for builders, line updates for `onChange`), and
    /// the answers the registry remembers for a re-render
    /// ([`Host::memo_bytes`](parsebox_host::Host::memo_bytes)). A
    /// transcript's call that adds to them is not charged for it
    /// ([`LiveTranscript`](crate::LiveTranscript)'s memory); the late answers are charged to
    /// their run when its transcript folds them in.
    pub fn pending_bytes(&self) -> isize {
        let memo = isize::try_from(self.host.memo_bytes()).unwrap_or(isize::MAX);
        self.frames_bytes + self.frame.bytes() + memo
    }

    /// The real bytes of the late answers waiting for the builder of `run`.
    pub fn answers_waiting_bytes(&self, run: RunId) -> isize {
        self.frame.answers_bytes(run)
    }

    /// The builder of `run` may hold `room` bytes at most (what it said at the end of its last
    /// call).
    pub fn set_transcript_room(&mut self, run: RunId, room: usize) {
        self.rooms.insert(run, room);
    }

    /// Whether the answers waiting for the builder of `run` fit its transcript's room beside
    /// what it holds, and the core's room.
    fn has_room_for_answers(&self, run: RunId) -> bool {
        let waiting = usize::try_from(self.frame.answers_bytes(run)).unwrap_or(0);
        let held = self.host.transcript_held(run);
        let room = self.rooms.get(&run).copied().unwrap_or(usize::MAX);
        held.saturating_add(waiting) <= room && crate::memory::core_room() > 0
    }

    /// Ends every engine and forgets everything (the final `end` commands stay queued).
    pub fn dispose(&mut self) {
        self.host.dispose();
        self.builder_runs.clear();
        self.frame.clear();
        self.pump();
    }

    /// Queues `command` for the JS driver, waking it (`wake()`: it takes the commands after
    /// the call under way) when it is the first since it last took them. Whatever call of the
    /// page led to a command (a parse, a status, a run let go, a collected builder), it is
    /// performed without another call to carry it.
    fn command(&mut self, command: ExecutorCommand) {
        if self.out.is_empty() {
            // Waking only schedules the executor's drain: it cannot fail in a way the core
            // could act on.
            self.executor.wake();
        }
        self.out.push(command);
    }

    /// Whether nothing is under way: the host's own rule ([`Host::is_idle`]), no command
    /// waiting for the executor and no frame asked for.
    pub fn is_idle(&self) -> bool {
        self.host.is_idle() && self.out.is_empty() && !self.frame.waiting()
    }

    /// Calls the builder of `run` back (`applyLate`) at the page's next frame: late answers
    /// wait for it, or a rebuild goes on in slices.
    pub fn call_builder_back(&mut self, run: RunId) {
        if self.frame.call_back(run) {
            self.command(ExecutorCommand::Frame);
        }
    }

    /// The commands for the JS driver, in order.
    pub fn take_commands(&mut self) -> Vec<ExecutorCommand> {
        std::mem::take(&mut self.out)
    }

    /// What the JS driver does after an event, in one call: every command waiting (after
    /// performing the core's commands for this thread's engines), the ops frame of each `send`,
    /// and when to fire the timer next. Commands that later calls lead to wake the executor again.
    pub fn poll(&mut self) -> Polled {
        self.pump();
        let commands = self.take_commands();
        let ops = commands
            .iter()
            .filter_map(|c| match c {
                ExecutorCommand::Send { engine } => Some(self.take_ops(EngineId(*engine))),
                _ => None,
            })
            .collect();
        Polled {
            commands,
            timeout_ms: self.host.poll_timeout(),
            idle: self.is_idle(),
            ops,
        }
    }

    /// A Worker engine reported its start: JSON `{"Ok": entryPoint}` or `{"Err": loadError}`.
    /// A report that is not either is the engine's fault: the type fails to start with an
    /// `engine_fault` load error.
    pub fn worker_started(&mut self, engine: EngineId, report_json: &str) {
        let result: Result<String, LoadError> =
            serde_json::from_str(report_json).unwrap_or_else(|e| {
                Err(LoadError::new(
                    "engine_fault",
                    format!("malformed start report: {e}"),
                ))
            });
        let now = self.executor.now_ms();
        self.host.handle_engine_started(now, engine, result);
        self.pump();
    }

    /// A Worker engine is starting line `seq`: its deadline is armed from now. Returns when the
    /// timer fires next (`None`: no deadline is armed). A `began` leads to no command: the page
    /// re-arms its timer and does nothing else.
    pub fn worker_began(&mut self, engine: EngineId, seq: Seq) -> Option<f64> {
        let now = self.executor.now_ms();
        self.host.handle_began(now, engine, seq);
        self.host.poll_timeout()
    }

    /// A Worker engine's count of work moved on while it works on a line: its deadline moves
    /// ([`Host::handle_progress`]). Returns when the timer fires next.
    pub fn worker_progress(&mut self, engine: EngineId) -> Option<f64> {
        let now = self.executor.now_ms();
        self.host.handle_progress(now, engine);
        self.host.poll_timeout()
    }

    /// A Worker engine's answers: the batches it posted since the last, each JSON
    /// `[[seq, outcome, reports?], …]`, in order. A malformed batch is the engine's fault: it
    /// is treated as the engine dying (its owed line falls back, a new engine replays).
    pub fn worker_answered<S: AsRef<str>>(&mut self, engine: EngineId, batches: &[S]) {
        let now = self.executor.now_ms();
        // Each answer is read on its own, so the bytes it holds are known: it waits with them
        // until its transcript takes it ([`pending_bytes`](Self::pending_bytes)).
        let mut answers = Vec::new();
        for batch in batches {
            let mut de = serde_json::Deserializer::from_str(batch.as_ref());
            let read =
                serde::de::DeserializeSeed::deserialize(MeteredAnswers(&mut answers), &mut de)
                    .and_then(|()| de.end());
            if let Err(e) = read {
                let _ = self.host.handle_engine_died(now, engine, &malformed(e));
                self.pump();
                return;
            }
        }
        for (answer, read_bytes) in answers {
            let meter = Meter::start();
            let pending = self.pending_bytes();
            self.queued = None;
            let answer = self.host.take_engine_answers(engine, vec![answer]);
            let _ = self.host.handle_answers(now, engine, answer);
            self.pump();
            // What the answer holds now: read, settled and queued, less what it let go of (its
            // line's copy in flight), less what else the pump left waiting (an ops frame).
            let held = read_bytes + meter.held() - (self.pending_bytes() - pending);
            match self.queued.take() {
                Some(Queued::Answer(run, seq)) => {
                    self.frame.charge_answer(run, seq, held);
                    if !self.has_room_for_answers(run) {
                        // Past its transcript's budget, or the core's: the line keeps its
                        // generic entry, and the answer is let go of now.
                        drop(self.frame.drop_answer(run, seq));
                        self.host.record_over_budget(run, 1);
                    }
                }
                Some(Queued::Line) => self.frame.charge_lines(held),
                None => {}
            }
        }
    }

    /// A Worker engine died, as `death` says ([`EngineDeath::classify`] reads what the Worker
    /// reported, as the binding reads what an engine of this thread threw).
    pub fn worker_died(&mut self, engine: EngineId, death: EngineDeath) {
        let now = self.executor.now_ms();
        let _ = self.engine_died(now, engine, death);
        self.pump();
    }

    /// The timer set at the host core's `poll_timeout` fired.
    pub fn timeout_fired(&mut self) {
        let now = self.executor.now_ms();
        self.host.handle_timeout(now);
        self.pump();
    }

    /// What the page's loader found for a `load` command.
    pub fn loaded(&mut self, adapter_type: &str, token: u64, result: LoadResult) {
        let now = self.executor.now_ms();
        self.host
            .handle_load_result(now, adapter_type, token, result);
        self.pump();
    }

    /// The engine module was compiled (`Ok`) or could not be loaded (why): parsers waiting for
    /// it start now, or fail with an `engine_fault` load error.
    pub fn engine_module(&mut self, result: Result<(), String>) {
        let now = self.executor.now_ms();
        self.host.handle_engine_module(now, result);
        self.pump();
    }

    /// The host core, to read.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The host core, for an event that leads to no command (a call's start, what a
    /// transcript holds).
    pub(crate) fn host_mut(&mut self) -> &mut Host {
        &mut self.host
    }

    /// Now on the executor's clock.
    pub fn now_ms(&self) -> f64 {
        self.executor.now_ms()
    }

    /// The registry's engine config, as JSON.
    pub fn engine_config(&self) -> &str {
        &self.engine_config
    }

    /// Registers `source` as `adapter_type`'s parser now; its status after the commands it led
    /// to (`ready` or `failed` at once for an inline engine, `loading` until a Worker reports).
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn register_source(
        &mut self,
        adapter_type: &str,
        source: &str,
        contract_version: Option<&str>,
    ) -> Result<AdapterStatus, HostError> {
        let now = self.executor.now_ms();
        self.host
            .register_source(now, adapter_type, source, contract_version)?;
        Ok(self.status(adapter_type))
    }

    /// Registers `parser`, trusted page code, as `adapter_type`'s built-in (it replaces one
    /// registered before); its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn register_builtin(
        &mut self,
        adapter_type: &str,
        parser: X::Builtin,
    ) -> Result<AdapterStatus, HostError> {
        self.host.register_builtin(adapter_type)?;
        self.builtin_parsers.insert(adapter_type.to_owned(), parser);
        Ok(self.status(adapter_type))
    }

    /// Removes `adapter_type`'s top layer (an external parser gives way to the built-in beneath
    /// it, a built-in to the generic parser), and forgets a built-in that no layer uses now;
    /// its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn unregister(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        let status = self.host.unregister(adapter_type)?;
        if !status.has_builtin {
            self.builtin_parsers.remove(adapter_type);
        }
        Ok(self.status(adapter_type))
    }

    /// Clears a failure and loads `adapter_type` again (over its built-in, which answers until
    /// the source arrives); its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn reload(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        let now = self.executor.now_ms();
        self.host.reload(now, adapter_type)?;
        Ok(self.status(adapter_type))
    }

    /// `adapter_type`'s status, once the commands waiting are performed.
    pub fn status(&mut self, adapter_type: &str) -> AdapterStatus {
        self.pump();
        self.host.status(adapter_type)
    }

    /// A new run (one `createStdoutParser()` instance) of `adapter_type`, its failed lines
    /// showing `style`; `owned`: a transcript builder's run, whose late answers wait for the
    /// builder's frame instead of going to `onChange` listeners as line updates.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn create_run(
        &mut self,
        adapter_type: &str,
        style: FailedLineEntry,
        owned: bool,
    ) -> Result<RunId, HostError> {
        let run = self.host.create_run_showing(adapter_type, style)?;
        if owned {
            self.builder_runs.insert(run);
        }
        self.pump();
        Ok(run)
    }

    /// The run of `adapter_type` that `which` names, made on first use.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn long_lived_run(
        &mut self,
        which: LongLived,
        adapter_type: &str,
    ) -> Result<RunId, HostError> {
        let run = match which {
            LongLived::Default => self.host.default_run(adapter_type)?,
            LongLived::Stateless => self.host.stateless_run(adapter_type)?,
        };
        self.pump();
        Ok(run)
    }

    /// A call of the page parses one line of `run` (its parser time is summed against
    /// `callBudgetMs` from here): [`parse_line`](Self::parse_line)'s result.
    ///
    /// # Errors
    /// The host core's misuse errors (an unknown run, a disposed core).
    pub fn parse_page_line(
        &mut self,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<(Vec<TranscriptEntry>, Option<Seq>), HostError> {
        self.host.begin_call();
        self.parse_line(run, line, ts)
    }

    /// Paperclip's `loadDynamicParser(type)`: starts a load when the type has no external
    /// parser ([`Host::load_dynamic`]).
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn load_dynamic(&mut self, adapter_type: &str) -> Result<DynamicLoad, HostError> {
        let step = self.host.load_dynamic(adapter_type)?;
        self.pump();
        Ok(step)
    }

    /// Paperclip's `invalidateDynamicParser(type)`: drops the type's external parser
    /// ([`Host::invalidate_dynamic`]); whether one was ready.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn invalidate_dynamic(&mut self, adapter_type: &str) -> Result<bool, HostError> {
        let was_ready = self.host.invalidate_dynamic(adapter_type)?;
        self.pump();
        Ok(was_ready)
    }

    /// Calls `run`'s `reset()` and performs what follows: a builder's reset and the page's
    /// `resetRun` go through here alike.
    ///
    /// # Errors
    /// The host core's misuse errors (an unknown run, a disposed core).
    pub fn reset_run(&mut self, run: RunId) -> Result<(), HostError> {
        let result = self.host.reset_run(run);
        self.pump();
        result
    }

    /// Lets `run` go, everywhere it is known: the host core, the builder runs, what waits for
    /// the frame. A run unknown to the core (dropped before, its type
    /// disposed) is fine.
    pub fn drop_run(&mut self, run: RunId) {
        // Unknown runs and a disposed core are fine: there is nothing to free.
        let _ = self.host.drop_run(run);
        self.builder_runs.remove(&run);
        self.rooms.remove(&run);
        self.frame.forget(run);
        self.pump();
    }

    /// What waits for this frame (a `frame` command asked for it).
    pub fn take_frame(&mut self) -> Frame {
        self.frame.take()
    }

    /// The late answers of builder run `run` to fold in at this frame, and whether more wait
    /// for the next one.
    pub fn take_answers(&mut self, run: RunId) -> (Vec<(Seq, Vec<TranscriptEntry>)>, bool) {
        self.frame.take_answers(run)
    }
}

/// Which long-lived run of a type: the one `parseLine(type, …)` uses, or the stateless one
/// (Paperclip's `adapter.parseStdoutLine`: the module's own `parseStdoutLine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongLived {
    /// The type's default run.
    Default,
    /// The type's stateless run.
    Stateless,
}

/// The clock, read at most once per pump (each read is a call out to the page).
fn clock_once<X: Executor>(clock: &mut Option<f64>, executor: &X) -> f64 {
    *clock.get_or_insert_with(|| executor.now_ms())
}

/// The late answer a pump queued last.
#[derive(Clone, Copy, Debug)]
enum Queued {
    /// For the builder of a run: its seq.
    Answer(RunId, Seq),
    /// A line update for `onChange`.
    Line,
}

/// The real bytes of a byte buffer's block ([`parsebox_meter::buffer_bytes`]), signed as the
/// frames' count is.
fn buffer_bytes(buffer: &Vec<u8>) -> isize {
    isize::try_from(parsebox_meter::buffer_bytes(buffer.capacity())).unwrap_or(isize::MAX)
}

/// Reads a batch of answers, `[[seq, outcome, reports?], …]`, one answer at a time, each with
/// the bytes reading it left held.
struct MeteredAnswers<'a>(&'a mut Vec<(EngineAnswer, isize)>);

impl<'de> serde::de::DeserializeSeed<'de> for MeteredAnswers<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for MeteredAnswers<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of answers")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let meter = Meter::start();
            let Some(answer) = seq.next_element::<EngineAnswer>()? else {
                return Ok(());
            };
            let held = meter.held();
            self.0.push((answer, held));
        }
    }
}

/// What an engine whose answer is not the JSON it owes is said to have done, wherever its
/// answer is read (a load, a line of this thread, a Worker's batch).
fn malformed(e: serde_json::Error) -> String {
    format!("the engine answered malformed JSON: {e}")
}
