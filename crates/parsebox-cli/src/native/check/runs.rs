//! Where the behaviour checks run the parser's lines: fresh runs of it, each line's answer as
//! the report needs it, and `reset()`. That is the package's live core, the engine a process of
//! the command (`core_runs.rs`): a line is answered, falls back or is ended at its deadline
//! exactly as in the page.

use parsebox_transcript::LineFailure;

use super::feed::{Answer, Line};

/// A line stuck in one native step: the engine was ended at the deadline, on its run again too.
pub(super) struct Stuck {
    /// The line's label.
    pub(super) label: String,
}

/// Runs of the parser, a line at a time.
pub(super) trait Runs {
    /// One run.
    type Run;

    /// A fresh run (`what` names what it is for, in the error).
    fn start(&mut self, what: &str) -> Result<Self::Run, String>;

    /// Each line's answer, in order, or the line that got stuck.
    fn feed_all(&mut self, run: &mut Self::Run, lines: &[Line]) -> Result<Vec<Answer>, Stuck>;

    /// The run's `reset()`.
    fn reset(&mut self, run: &mut Self::Run) -> Result<(), LineFailure>;

    /// Lets the run go.
    fn end(&mut self, run: Self::Run);
}
