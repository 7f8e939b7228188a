//! Runs: one transcript's worth of parser state.

use parsebox_sandbox::ParserRun;
use parsebox_transcript::{LineFailure, LineOutcome};

/// Identifies one run (one transcript) of one adapter type. Handed out by
/// [`Registry::create_run`](crate::Registry::create_run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(pub u64);

/// What answers a run's lines: the engine is bound when the run is created (or reset), so a run
/// keeps its parser's state for its whole life and switches parser only on `reset()`.
pub trait RunParser {
    /// Parses one line: the plain value the parser returned, or why it gave none. The registry
    /// settles it with the one line rule ([`parsebox_transcript::settle_line`]).
    ///
    /// # Errors
    /// A [`LineFailure`] when the parser gave no value (threw, ran over budget, …).
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome;

    /// Forgets the run's state (the parser's `reset()`).
    ///
    /// # Errors
    /// A [`LineFailure`] when `reset()` threw or ran over budget; the run is then rebuilt.
    fn reset(&mut self) -> Result<(), LineFailure>;
}

impl RunParser for ParserRun {
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome {
        self.parse_line_raw(line, ts)
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        ParserRun::reset(self)
    }
}

pub(crate) enum Engine {
    /// The generic parser: the adapter had no parser when the run was (re)bound.
    Generic,
    /// A sandboxed or built-in parser instance.
    Parser(Box<dyn RunParser>),
}

pub(crate) struct Run {
    pub(crate) adapter_type: String,
    /// The adapter's parser generation this run's engine was made from.
    pub(crate) generation: u64,
    pub(crate) engine: Engine,
    /// The last line failed: the parser's `reset()` is owed before the next line. Deferred so
    /// a line that ran out of budget does not also pay, in the same call, for the realm
    /// rebuild that `reset()` would trigger.
    pub(crate) reset_owed: bool,
}
