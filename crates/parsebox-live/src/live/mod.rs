//! [`LiveCore`]: the host core with the engines that live in the page's thread (built-ins here;
//! inline engine instances behind the [`Executor`]), the commands left for the JS driver,
//! what waits for the next frame. Every command the core issues passes
//! through [`LiveCore::pump`]; every line through [`LiveCore::parse_line`]. What waits for the
//! page (ops frames, late answers, line updates) is counted in real bytes
//! ([`LiveCore::pending_bytes`]), so a transcript's memory is what its own calls keep.

use std::collections::{HashMap, HashSet};

use parsebox_host::{
    Command, EngineId, EngineRuns, Host, HostError, LineStep, LoadError, Placement, RunId, Seq,
};
use parsebox_transcript::{generic_entry, DroppedEntry, TranscriptEntry};
use serde::Serialize;

use crate::command::ExecutorCommand;
use crate::executor::Executor;
use crate::frame::{FrameQueue, LineUpdate};

mod registry;
mod room;
mod this_thread;
mod workers;

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

/// What a registry (`RegistryCore` in the binding) and its transcript builders share: see the
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
                    failure,
                    dropped,
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
                        let update = LineUpdate {
                            line,
                            ts,
                            entries,
                            failure,
                            dropped: dropped.iter().map(DroppedEntry::from).collect(),
                        };
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

    /// The timer set at the host core's `poll_timeout` fired.
    pub fn timeout_fired(&mut self) {
        let now = self.executor.now_ms();
        self.host.handle_timeout(now);
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

/// What an engine whose answer is not the JSON it owes is said to have done, wherever its
/// answer is read (a load, a line of this thread, a Worker's batch).
fn malformed(e: serde_json::Error) -> String {
    format!("the engine answered malformed JSON: {e}")
}
