//! The ops an engine performs, in order, for the runs it holds, as the core sends them.

use serde::{Deserialize, Serialize};

use crate::{RunId, Seq};

/// Parse one line in `run` and answer it with `seq` through
/// the core's `Host::handle_answers`. Before starting the first line with
/// `replay: false` of a batch the engine reports
/// the core's `Host::handle_began`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineOp {
    /// The answer's address.
    pub seq: Seq,
    /// The run the line belongs to.
    pub run: RunId,
    /// The line (already trimmed by the transcript builder).
    pub line: String,
    /// The line's timestamp.
    pub ts: String,
    /// A journal line replayed to rebuild state: its answer is required (in order) but is
    /// neither delivered nor counted, and it runs under the replay budget, not a per-line
    /// deadline (no `began` needed).
    pub replay: bool,
}

/// One operation an engine performs, in order, for the runs it holds. On the wire (core to
/// engine instance) a JSON object tagged by `op`: `{"op":"line","seq":7,"run":1,…}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum EngineOp {
    /// Create `run`: a fresh `createStdoutParser()` instance with fresh module state, `Date`
    /// and seeded `Math.random` (SPEC §3).
    NewRun {
        /// The run to create.
        run: RunId,
        /// Call the module's own `parseStdoutLine` on each line, when it exports one besides
        /// `createStdoutParser`: a type's default run, since Paperclip's
        /// `adapter.parseStdoutLine` is the module's stateless function.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stateless: bool,
    },
    /// Parse one line: [`LineOp`].
    Line(LineOp),
    /// Call the run's `reset()` — the same reset the engine performs by itself after a line
    /// whose outcome [`outcome_resets_parser`](parsebox_transcript::outcome_resets_parser).
    Reset {
        /// The run to reset.
        run: RunId,
    },
    /// Forget `run` and free what it holds. Never answered.
    DropRun {
        /// The run to drop.
        run: RunId,
    },
}
