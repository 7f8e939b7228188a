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

    /// What the engine did to keep the run alive so far (cumulative); nothing for parsers that
    /// need no recovery (built-ins).
    fn recovery(&self) -> Recovery {
        Recovery::default()
    }
}

/// Cumulative recovery counters of one run's engine: realm rebuilds after an abort, lines
/// replayed to restore the parser's state, and rebuilds that could not restore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Realms rebuilt after an abort.
    pub rebuilds: u64,
    /// Earlier lines replayed into rebuilt realms.
    pub replayed_lines: u64,
    /// Rebuilds that could not restore the parser's state.
    pub state_lost: u64,
}

impl Recovery {
    /// What happened between `before` and `self`.
    pub fn since(self, before: Recovery) -> Recovery {
        Recovery {
            rebuilds: self.rebuilds.saturating_sub(before.rebuilds),
            replayed_lines: self.replayed_lines.saturating_sub(before.replayed_lines),
            state_lost: self.state_lost.saturating_sub(before.state_lost),
        }
    }
}

impl RunParser for ParserRun {
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome {
        self.parse_line_raw(line, ts)
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        ParserRun::reset(self)
    }
    fn recovery(&self) -> Recovery {
        let d = self.diagnostics();
        Recovery {
            rebuilds: d.rebuilds,
            replayed_lines: d.replayed_lines,
            state_lost: d.state_lost,
        }
    }
}

pub(crate) enum Engine {
    /// The generic parser: the adapter had no parser when the run was (re)bound.
    Generic,
    /// A sandboxed or built-in parser instance.
    Parser(Box<dyn RunParser>),
}

impl Engine {
    pub(crate) fn recovery(&self) -> Recovery {
        match self {
            Self::Generic => Recovery::default(),
            Self::Parser(p) => p.recovery(),
        }
    }
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
