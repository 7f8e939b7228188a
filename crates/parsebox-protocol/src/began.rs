//! When a live line's clock starts: one rule for the engine, which reports `began`, and for
//! the core, which arms the line's deadline from it.
//!
//! A Worker engine reports `began` for the first live line of each batch it is sent. The core
//! starts every later line's clock when the answer before it arrives, since the engine goes
//! straight on to it. Not so when the engine has realm work of its own in between: after a
//! failed line the sandbox rebuilds the realm the failure left dirty and replays the run's
//! earlier lines into it (up to its own replay budget), and a `NewRun` makes a fresh realm.
//! That is the engine's work, not the parser's line, and can take longer than a line's whole
//! deadline. So the engine reports `began` once it is done, and the core waits for that report
//! (bounded by the start deadline: a fresh realm and the module's evaluation are what a start
//! does) before the line's own deadline starts.

use parsebox_transcript::LineFailure;

use crate::Seq;

/// A live line about to run in an engine, after any realm work of the engine's own: every
/// live line gets one ([`EngineRuns::run_ops`](crate::EngineRuns::run_ops)'s `began`). Its own
/// clock starts here, which a Worker that stops its line at the deadline itself times from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineStart {
    /// The line.
    pub seq: Seq,
    /// The core arms the line's deadline from this start, so the engine reports it (`began`):
    /// the first live line of a batch, or one after the engine's own realm work. The core
    /// starts any other line's clock when the answer before it arrives.
    pub report: bool,
}

/// Whether the engine may do realm work of its own after a line with this outcome, before its
/// next line: it failed. [`EngineRuns`](crate::EngineRuns) then reports `began` for the next
/// live line, after that work, and the core waits for the report (bounded by the start
/// deadline) before that line's deadline starts. A `NewRun` between two lines is treated the
/// same on both sides.
pub fn engine_work_follows<V>(outcome: &Result<V, LineFailure>) -> bool {
    outcome.is_err()
}
