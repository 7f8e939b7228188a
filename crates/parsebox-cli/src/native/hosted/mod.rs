//! The command's engines run as the page's do: the live core (`parsebox-live` over
//! `parsebox-host`) decides every line, every deadline and every recovery, and this module only
//! performs its commands, with each engine a process of this command ([`process`]) where the
//! page has a Worker. So `parsebox parse` and `parsebox check` give a line what the package
//! gives it: the same fallbacks, the same retry of a line stopped at its deadline, the same
//! replay after an engine dies, from the same code.
//!
//! [`NativeCore`] takes a line at a time and waits for its answer: the command is not a page,
//! and a line's entries are printed once they are settled.

pub mod engines;
pub mod pipe;
pub mod process;
pub mod run;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use parsebox_host::{
    AdapterState, AdapterStatus, Diagnostics, EngineId, Host, HostError, HostOptions, RunId,
};
use parsebox_live::{ExecutorCommand, LineUpdate, LiveCore};
use parsebox_sandbox::SandboxOptions;
use parsebox_transcript::{
    DroppedEntry, FailedLineEntry, FailureCode, LineFailure, TranscriptEntry,
};

use engines::{Event, ProcessExecutor, Processes};
use process::StartMessage;

/// The adapter type the command registers its one parser as.
pub const ADAPTER: &str = "parser";

/// A line's settled answer: its entries, why it fell back when it did (the failure's code and
/// the core's sentence), and the entries validation dropped: the page's `LineUpdate`.
#[derive(Debug, PartialEq)]
pub struct Settled {
    /// What the line shows.
    pub entries: Vec<TranscriptEntry>,
    /// Why it fell back (the core's code and message), when the parser's answer was not used.
    pub fell_back: Option<LineFailure>,
    /// The entries the parser returned that validation dropped, each with the start of what it
    /// was when the core keeps previews (`HostOptions::dropped_preview_chars`).
    pub dropped: Vec<DroppedEntry>,
}

/// The live core with its engines in processes.
pub struct NativeCore {
    live: LiveCore<ProcessExecutor>,
    processes: Rc<RefCell<Processes>>,
    events: Receiver<(EngineId, Event)>,
    /// Late lines taken from the core's frames, as the page's `onChange` hears them: the
    /// command waits for one line at a time, so the one waited for.
    updates: Vec<LineUpdate>,
    /// When the core's timer fires next (its clock).
    timeout_ms: Option<f64>,
}

impl NativeCore {
    /// A core with `options` (their placement is made Worker and sources are given, not
    /// loaded) whose engines run `exe --engine-process`.
    ///
    /// # Errors
    /// Options the core refuses, as its sentence.
    pub fn new(exe: PathBuf, options: HostOptions) -> Result<Self, String> {
        let options = HostOptions {
            host: parsebox_host::HostPlacement::Worker,
            load_sources: false,
            ..options
        };
        let config = serde_json::to_string(&options.engine_config()).unwrap_or_default();
        let host = Host::new(options).map_err(|e| e.to_string())?;
        let (tx, events) = mpsc::channel();
        let processes = Rc::new(RefCell::new(Processes::new(exe, tx)));
        let live = LiveCore::new(host, config, ProcessExecutor(Rc::clone(&processes)));
        Ok(Self {
            live,
            processes,
            events,
            updates: Vec::new(),
            timeout_ms: None,
        })
    }

    /// A core for the command's `options`: the package's defaults with the command's budgets and
    /// limits, and `give_up` as the hard deadline (a line whose engine is stuck in one native
    /// step that long is ended, and runs once more on a fresh engine). `preview_chars`: how much
    /// of each dropped entry the core keeps ([`Settled::dropped`]; 0 for none).
    ///
    /// # Errors
    /// This command's file cannot be found, or the core refuses the options.
    pub fn for_command(
        options: &SandboxOptions,
        give_up: Duration,
        preview_chars: usize,
    ) -> Result<Self, String> {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find this command's file: {e}"))?;
        let host = HostOptions {
            line_budget_ms: options.line_budget_ms,
            init_budget_ms: options.init_budget_ms,
            max_source_bytes: options.max_source_bytes,
            max_line_bytes: options.max_line_bytes,
            entry_limits: options.entry_limits.clone(),
            hard_deadline_ms: (give_up.as_secs_f64() * 1000.0).max(options.line_budget_ms),
            dropped_preview_chars: preview_chars,
            ..HostOptions::default()
        };
        Self::new(exe, host)
    }

    /// Registers `source` as [`ADAPTER`]'s parser and waits until its engine has started or
    /// failed to; its status then.
    ///
    /// # Errors
    /// The core's misuse errors.
    pub fn register(&mut self, source: &str) -> Result<AdapterStatus, HostError> {
        self.live.register_source(ADAPTER, source, None)?;
        loop {
            self.drain();
            let status = self.live.status(ADAPTER);
            if status.state != AdapterState::Loading {
                return Ok(status);
            }
            if !self.wait() {
                return Ok(status);
            }
        }
    }

    /// A new run of the parser (its own `createStdoutParser()` instance).
    ///
    /// # Errors
    /// The core's misuse errors.
    pub fn new_run(&mut self) -> Result<RunId, HostError> {
        // Not a builder's: its late lines come as the page's line updates, each with its
        // failure and dropped entries.
        let run = self
            .live
            .create_run(ADAPTER, FailedLineEntry::Generic, false)?;
        self.drain();
        Ok(run)
    }

    /// Parses one line of `run` and waits for its settled answer.
    ///
    /// # Errors
    /// The core's misuse errors.
    pub fn line(&mut self, run: RunId, line: &str, ts: &str) -> Result<Settled, HostError> {
        let before = self.diagnostics();
        self.updates.clear();
        let (shown, seq) = self.live.parse_line(run, line, ts)?;
        let update = match seq {
            None => None,
            Some(_) => loop {
                self.drain();
                let at = self
                    .updates
                    .iter()
                    .position(|u| u.line == line && u.ts == ts);
                if let Some(at) = at {
                    break Some(self.updates.swap_remove(at));
                }
                if !self.wait() {
                    break None;
                }
            },
        };
        Ok(match update {
            Some(u) => Settled {
                entries: u.entries,
                fell_back: u.failure,
                dropped: u.dropped,
            },
            // Answered at once (no parser, a remembered answer), or nothing left to wait for.
            None => Settled {
                entries: shown,
                fell_back: new_fallback(&before.fallbacks, &self.diagnostics()),
                dropped: Vec::new(),
            },
        })
    }

    /// Resets `run`'s parser (its `reset()`), as a page's rebuild does.
    ///
    /// # Errors
    /// The core's misuse errors.
    pub fn reset_run(&mut self, run: RunId) -> Result<(), HostError> {
        self.live.reset_run(run)?;
        self.drain();
        Ok(())
    }

    /// Lets `run` go.
    pub fn drop_run(&mut self, run: RunId) {
        self.live.drop_run(run);
        self.drain();
    }

    /// What the core counted of the parser.
    pub fn diagnostics(&self) -> Diagnostics {
        self.live.host().diagnostics(Some(ADAPTER))
    }

    /// How many engine processes are running.
    pub fn engine_processes(&self) -> usize {
        self.processes.borrow().running()
    }

    /// Performs every command the core has for its engines, and takes the late answers its
    /// frames hold.
    fn drain(&mut self) {
        loop {
            let polled = self.live.poll();
            self.timeout_ms = polled.timeout_ms;
            if polled.commands.is_empty() {
                return;
            }
            let mut ops = polled.ops.into_iter();
            for command in polled.commands {
                self.perform(command, &mut ops);
            }
        }
    }

    fn perform(&mut self, command: ExecutorCommand, ops: &mut impl Iterator<Item = Vec<u8>>) {
        match command {
            ExecutorCommand::StartWorker {
                engine,
                source,
                config,
                answer_batch_ms,
                line_deadline_ms,
                ..
            } => {
                let start = StartMessage {
                    source,
                    config,
                    answer_batch_ms,
                    line_deadline_ms,
                };
                let started = self.processes.borrow_mut().start(EngineId(engine), &start);
                if let Err(e) = started {
                    let death = parsebox_live::EngineDeath::Fault(e);
                    self.live.worker_died(EngineId(engine), death);
                }
            }
            ExecutorCommand::Send { engine } => {
                let frame = ops.next().unwrap_or_default();
                if !frame.is_empty() {
                    self.processes
                        .borrow_mut()
                        .send(EngineId(engine), pipe::OPS, frame);
                }
            }
            ExecutorCommand::End { engine } => self.processes.borrow_mut().end(EngineId(engine)),
            ExecutorCommand::Frame => {
                // The command's runs are no builder's: their late lines are line updates.
                let frame = self.live.take_frame();
                for (_, updates) in frame.lines {
                    self.updates.extend(updates);
                }
            }
            // Sources are given, never loaded; a status change is read when it matters.
            ExecutorCommand::Load { .. } | ExecutorCommand::Notify { .. } => {}
        }
    }

    /// Waits for an engine's report or the core's timer, and hands it to the core. False when
    /// there is nothing to wait for (no engine process and no timer).
    fn wait(&mut self) -> bool {
        let now = self.processes.borrow().now_ms();
        let event = match self.timeout_ms {
            Some(at) => {
                let ms = (at - now).clamp(0.0, 1e9);
                self.events
                    .recv_timeout(Duration::from_secs_f64(ms / 1000.0))
            }
            None if self.engine_processes() == 0 => return false,
            None => self
                .events
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok((engine, event)) => self.report(engine, event),
            Err(RecvTimeoutError::Timeout) => self.live.timeout_fired(),
            Err(RecvTimeoutError::Disconnected) => return false,
        }
        true
    }

    /// Hands an engine's report to the core (one from a process it ended is not its to hear).
    fn report(&mut self, engine: EngineId, event: Event) {
        if !self.processes.borrow().is_running(engine) {
            return;
        }
        match event {
            Event::Started(json) => self.live.worker_started(engine, &json),
            Event::Began(seq) => self.timeout_ms = self.live.worker_began(engine, seq),
            Event::Progress => self.timeout_ms = self.live.worker_progress(engine),
            Event::Answers(json) => self.live.worker_answered(engine, &[json]),
            Event::Ended(death) => {
                // The process is gone: forget it before the core decides what comes next.
                self.processes.borrow_mut().end(engine);
                self.live.worker_died(engine, death);
            }
        }
    }
}

/// The fallback a line added to the counters: its code (a name the core counts by; one this
/// command does not know is an engine fault), and its message (the core's last error,
/// `code: message`, without the code).
fn new_fallback(before: &BTreeMap<String, u64>, after: &Diagnostics) -> Option<LineFailure> {
    let name = after
        .fallbacks
        .iter()
        .find(|(code, n)| before.get(*code).copied().unwrap_or(0) < **n)
        .map(|(code, _)| code.as_str())?;
    let said = after.last_error.as_deref().unwrap_or_default();
    let message = said
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(said);
    let code = FailureCode::ALL
        .into_iter()
        .find(|c| c.as_str() == name)
        .unwrap_or(FailureCode::EngineFault);
    Some(LineFailure::new(code, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_s_fallback_is_the_counter_that_grew_with_the_core_s_message() {
        let before = BTreeMap::from([("threw".to_owned(), 1)]);
        let after = Diagnostics {
            fallbacks: BTreeMap::from([("threw".to_owned(), 1), ("budget_exceeded".to_owned(), 1)]),
            last_error: Some("budget_exceeded: parser exceeded its 50 ms budget".into()),
            ..Diagnostics::default()
        };
        assert_eq!(
            new_fallback(&before, &after),
            Some(LineFailure::new(
                FailureCode::BudgetExceeded,
                "parser exceeded its 50 ms budget"
            ))
        );
        assert_eq!(new_fallback(&after.fallbacks, &after), None);
    }
}
