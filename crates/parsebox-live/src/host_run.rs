//! A host run as a transcript builder's line parser ([`HostRunParser`]): each line goes to the
//! run's engine through the shared core; a line a Worker answers later shows its generic entry
//! and is replaced in place when the answer's frame comes. Whether what a line brings fits is
//! the transcript's memory, in real bytes (its ledger).

use std::rc::Rc;

use parsebox_host::RunId;
use parsebox_transcript::{generic_entry, LineAnswer, LineFailure, LineParser, TranscriptEntry};

use parsebox_meter::Meter;

use crate::executor::Executor;
use crate::shared::SharedCore;
use crate::transcript::Ledger;

/// See the module's doc. Dropping it lets the run go ([`LiveCore::drop_run`](crate::LiveCore::drop_run)).
pub struct HostRunParser<X: Executor> {
    core: Rc<SharedCore<X>>,
    run: RunId,
    ledger: Rc<Ledger>,
    /// The line just answered was not parsed: the transcript had no room left for it.
    skipped: bool,
}

impl<X: Executor> HostRunParser<X> {
    /// The parser of `run`, a run of the shared `core`, under no memory budget.
    pub fn new(core: Rc<SharedCore<X>>, run: RunId) -> Self {
        Self::with_ledger(core, run, Rc::new(Ledger::unbounded()))
    }

    /// The parser of `run`, a run of the shared `core`, for the transcript whose memory
    /// `ledger` counts.
    pub(crate) fn with_ledger(core: Rc<SharedCore<X>>, run: RunId, ledger: Rc<Ledger>) -> Self {
        Self {
            core,
            run,
            ledger,
            skipped: false,
        }
    }

    /// What waits for the page in the core, and of it for this run's transcript, in real
    /// bytes (0 while a call holds the core).
    pub(crate) fn pending(&self) -> (isize, isize) {
        self.core
            .read(|s| (s.pending_bytes(), s.answers_waiting_bytes(self.run)))
            .unwrap_or((0, 0))
    }

    /// The run.
    pub fn run(&self) -> RunId {
        self.run
    }

    /// The shared core.
    pub fn core(&self) -> &Rc<SharedCore<X>> {
        &self.core
    }
}

impl<X: Executor> LineParser for HostRunParser<X> {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        match self.answer_line(line, ts) {
            LineAnswer::Now(answer) => answer,
            LineAnswer::Later { provisional, .. } => Ok(provisional),
        }
    }

    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        // A transcript past its budget before the line is parsed shows it generic without
        // asking its parser: nothing of it is kept in the run's journal, and no engine works
        // on it (a rebuild of a full transcript would otherwise add every line to the journal
        // once more).
        let (pending, waiting) = self.pending();
        self.skipped = !self.ledger.fits(0, pending, waiting);
        if self.skipped {
            self.ledger.line_taken(line.len(), 0);
            return LineAnswer::Now(Ok(vec![generic_entry(line, ts)]));
        }
        // Refused (re-entered from a built-in) or gone (disposed): the generic entry.
        let meter = Meter::start();
        let answer = self
            .core
            .enter()
            .ok()
            .and_then(|mut s| s.parse_line(self.run, line, ts).ok());
        self.ledger.line_taken(line.len(), meter.held());
        match answer {
            Some((provisional, Some(token))) => LineAnswer::Later { token, provisional },
            Some((entries, None)) => LineAnswer::Now(Ok(entries)),
            None => LineAnswer::Now(Ok(vec![generic_entry(line, ts)])),
        }
    }

    fn reset(&mut self) {
        if let Ok(mut s) = self.core.enter() {
            // A run the core no longer knows has nothing to reset.
            let _ = s.reset_run(self.run);
        }
    }

    fn has_room(&mut self) -> bool {
        if std::mem::take(&mut self.skipped) {
            return false;
        }
        let (pending, waiting) = self.pending();
        self.ledger.fits(0, pending, waiting)
    }
}

impl<X: Executor> Drop for HostRunParser<X> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.core.enter() {
            s.drop_run(self.run);
        }
    }
}
