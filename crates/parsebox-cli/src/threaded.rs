//! A parser run on a thread of its own, so `parsebox parse` can give up a line that never
//! returns: the sandbox stops loops and recursion itself, but not one long native operation (a
//! polynomial regex on a long line). A native thread cannot be stopped either, so the stuck one
//! is left to finish or to end with the process, and a fresh thread with a fresh run of the
//! parser takes over; the builder resets the run after a failed line anyway. WASI has no
//! threads: there the run is served in the command's own thread (`npx parsebox`).
//!
//! The WASI build's path only: natively `parse` runs on the live core (`hosted`). It goes when
//! `npx parsebox` runs on the package's own modules (issue 56).

use std::collections::BTreeMap;
use std::time::Duration;

use parsebox_sandbox::{ParserModule, ParserRun, SandboxOptions};
use parsebox_transcript::{FailureCode, LineFailure, LineParser, TranscriptEntry};

use crate::runner::StartError;

/// A line's outcome, and the entries its answer lost to validation, by reason.
type Answer = (
    Result<Vec<TranscriptEntry>, LineFailure>,
    Vec<(&'static str, u64)>,
);

/// Why a line got no answer from its worker.
// WASI: the run is served in the command's thread, which cannot end.
#[cfg_attr(target_os = "wasi", allow(dead_code))]
enum Lost {
    /// Still running after the give-up limit.
    TimedOut,
    /// The worker ended.
    Ended,
}

/// One run of a loaded module, as a worker serves it: each line's answer, with the entries
/// validation dropped since the line before.
struct Served {
    run: ParserRun,
    dropped_before: BTreeMap<&'static str, u64>,
}

impl Served {
    /// Loads `source` and starts a run of it.
    fn start(source: &str, options: SandboxOptions) -> Result<Self, StartError> {
        let run = ParserModule::load(source, options)
            .map_err(StartError::Load)
            .and_then(|m| m.new_run().map_err(StartError::Run))?;
        Ok(Self {
            run,
            dropped_before: BTreeMap::new(),
        })
    }

    fn line(&mut self, line: &str, ts: &str) -> Answer {
        let answer = LineParser::parse_line(&mut self.run, line, ts);
        let dropped = &self.run.diagnostics().dropped;
        let new: Vec<(&'static str, u64)> = dropped
            .iter()
            .filter_map(|(&why, &n)| {
                let before = self.dropped_before.get(why).copied().unwrap_or(0);
                (n > before).then_some((why, n - before))
            })
            .collect();
        if !new.is_empty() {
            self.dropped_before.clone_from(dropped);
        }
        (answer, new)
    }

    fn reset(&mut self) {
        LineParser::reset(&mut self.run);
    }
}

#[cfg(not(target_os = "wasi"))]
mod worker {
    use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
    use std::time::{Duration, Instant};

    use parsebox_sandbox::SandboxOptions;

    use super::{Answer, Lost, Served, StartError};

    /// boa interprets recursive guest code on the native stack: the same room as the CLI's own
    /// worker thread.
    const PARSER_STACK_BYTES: usize = 64 << 20;

    /// How long each side polls for the other's next message before it sleeps: a line's
    /// hand-over stays a few microseconds instead of two thread wake-ups (measured: 4.5× the
    /// whole parse).
    const SPIN: Duration = Duration::from_micros(200);

    /// The next message on `rx`, polled for up to [`SPIN`] before blocking for the rest of
    /// `limit` (`None`: no limit). `Err(Timeout)` past the limit, `Err(Disconnected)` once the
    /// sender is gone.
    fn receive<T>(rx: &Receiver<T>, limit: Option<Duration>) -> Result<T, RecvTimeoutError> {
        let began = Instant::now();
        while began.elapsed() < SPIN {
            match rx.try_recv() {
                Ok(v) => return Ok(v),
                Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        match limit {
            Some(limit) => rx.recv_timeout(limit.saturating_sub(began.elapsed())),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    }

    enum Job {
        Line(String, String),
        Reset,
    }

    /// One thread holding a loaded module and its run.
    pub(super) struct Worker {
        jobs: Sender<Job>,
        answers: Receiver<Answer>,
    }

    impl Worker {
        /// Loads `source` on a new thread and starts a run there.
        ///
        /// # Errors
        /// Why the module or its run could not start, or the thread could not be made.
        pub(super) fn spawn(source: &str, options: &SandboxOptions) -> Result<Self, StartError> {
            let (jobs, job_rx) = mpsc::channel::<Job>();
            let (answer_tx, answers) = mpsc::channel::<Answer>();
            let (ready_tx, ready) = mpsc::channel::<Result<(), StartError>>();
            let (source, options) = (source.to_owned(), options.clone());
            std::thread::Builder::new()
                .name("parsebox-parser".into())
                .stack_size(PARSER_STACK_BYTES)
                .spawn(move || {
                    let mut served = match Served::start(&source, options) {
                        Ok(served) => {
                            let _ = ready_tx.send(Ok(()));
                            served
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    while let Ok(job) = receive(&job_rx, None) {
                        match job {
                            Job::Line(line, ts) => {
                                if answer_tx.send(served.line(&line, &ts)).is_err() {
                                    return;
                                }
                            }
                            Job::Reset => served.reset(),
                        }
                    }
                })
                .map_err(|e| StartError::Thread(format!("cannot start a parser thread: {e}")))?;
            match ready.recv() {
                Ok(Ok(())) => Ok(Self { jobs, answers }),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(StartError::Thread(
                    "the parser thread ended while starting".to_owned(),
                )),
            }
        }

        /// The line's answer, unless the thread has not answered within `give_up` (it is then
        /// left to its native call, and ends with the process at the latest) or has ended.
        pub(super) fn line(
            &mut self,
            line: &str,
            ts: &str,
            give_up: Duration,
        ) -> Result<Answer, Lost> {
            if self
                .jobs
                .send(Job::Line(line.to_owned(), ts.to_owned()))
                .is_err()
            {
                return Err(Lost::Ended);
            }
            match receive(&self.answers, Some(give_up)) {
                Ok(answer) => Ok(answer),
                Err(RecvTimeoutError::Timeout) => Err(Lost::TimedOut),
                Err(RecvTimeoutError::Disconnected) => Err(Lost::Ended),
            }
        }

        /// Resets the run; false when the thread has ended.
        pub(super) fn reset(&mut self) -> bool {
            self.jobs.send(Job::Reset).is_ok()
        }
    }
}

#[cfg(target_os = "wasi")]
mod worker {
    use std::time::Duration;

    use parsebox_sandbox::SandboxOptions;

    use super::{Answer, Lost, Served, StartError};
    use crate::given_up;

    /// The run, served in the command's own thread: WASI has no other. A line that has not
    /// returned after `give_up` is given up by the npm command, which runs the command again
    /// (`given_up.rs`); there this worker says it timed out, as a native one would.
    pub(super) struct Worker(Served);

    impl Worker {
        /// Loads `source` and starts a run.
        ///
        /// # Errors
        /// Why the module or its run could not start.
        pub(super) fn spawn(source: &str, options: &SandboxOptions) -> Result<Self, StartError> {
            Served::start(source, options.clone()).map(Self)
        }

        /// The line's answer, or [`Lost::TimedOut`] for a line an earlier attempt gave up.
        pub(super) fn line(
            &mut self,
            line: &str,
            ts: &str,
            give_up: Duration,
        ) -> Result<Answer, Lost> {
            if given_up::begin(give_up) {
                return Err(Lost::TimedOut);
            }
            let answer = self.0.line(line, ts);
            given_up::end();
            Ok(answer)
        }

        /// Resets the run.
        pub(super) fn reset(&mut self) -> bool {
            self.0.reset();
            true
        }
    }
}

use worker::Worker;

/// A [`LineParser`] whose calls run on a parser thread and are given up after `give_up`.
pub struct ThreadedRun {
    source: String,
    options: SandboxOptions,
    give_up: Duration,
    worker: Option<Worker>,
    /// Called when a line is given up, with how long it ran.
    on_give_up: Box<dyn FnMut(Duration)>,
    /// Entries dropped by validation, by reason, over every thread the run had.
    dropped: BTreeMap<&'static str, u64>,
}

impl ThreadedRun {
    /// A run of `source` on its own thread (the one place the CLI's `parse` loads it).
    ///
    /// # Errors
    /// Why the module or its run could not start.
    pub fn start(
        source: &str,
        options: SandboxOptions,
        give_up: Duration,
        on_give_up: Box<dyn FnMut(Duration)>,
    ) -> Result<Self, StartError> {
        let worker = Worker::spawn(source, &options)?;
        Ok(Self {
            source: source.to_owned(),
            options,
            give_up,
            worker: Some(worker),
            on_give_up,
            dropped: BTreeMap::new(),
        })
    }

    /// How long the last line ran: `measured`, around the call (as the hosted run says).
    pub fn line_time(&self, measured: Duration) -> Duration {
        measured
    }

    /// Entries dropped by validation, by reason (as the hosted run counts them).
    pub fn dropped(&self) -> BTreeMap<String, u64> {
        self.dropped
            .iter()
            .map(|(why, n)| ((*why).to_owned(), *n))
            .collect()
    }

    /// The thread to send the next job to: the current one, or a fresh one after a give-up.
    fn worker(&mut self) -> Result<&mut Worker, LineFailure> {
        if self.worker.is_none() {
            let fresh = Worker::spawn(&self.source, &self.options).map_err(|e| {
                LineFailure::new(
                    FailureCode::EngineFault,
                    format!("the parser could not start again: {}", e.describe()),
                )
            })?;
            self.worker = Some(fresh);
        }
        self.worker.as_mut().ok_or_else(|| {
            LineFailure::new(FailureCode::EngineFault, "no parser thread".to_owned())
        })
    }
}

impl LineParser for ThreadedRun {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        let give_up = self.give_up;
        match self.worker()?.line(line, ts, give_up) {
            Ok((answer, dropped)) => {
                for (why, n) in dropped {
                    *self.dropped.entry(why).or_default() += n;
                }
                answer
            }
            Err(Lost::TimedOut) => {
                self.worker = None;
                (self.on_give_up)(give_up);
                Err(gave_up(give_up))
            }
            Err(Lost::Ended) => {
                self.worker = None;
                Err(LineFailure::new(
                    FailureCode::EngineFault,
                    "the parser thread ended".to_owned(),
                ))
            }
        }
    }

    fn reset(&mut self) {
        // A fresh thread starts from a fresh run: nothing to reset.
        if let Some(w) = &mut self.worker {
            if !w.reset() {
                self.worker = None;
            }
        }
    }
}

/// The failure of a line given up after `give_up`.
fn gave_up(give_up: Duration) -> LineFailure {
    LineFailure::new(
        FailureCode::Deadline,
        format!(
            "gave up after {} ms (one native operation the sandbox cannot interrupt)",
            give_up.as_millis()
        ),
    )
}
