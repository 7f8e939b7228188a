//! What crosses between the core and its executor: commands out, the data events carry in, and
//! what a synchronous `parse_line` returns.

use parsebox_transcript::{Dropped, LineFailure, TranscriptEntry};
use serde::{Deserialize, Serialize};

use crate::{EngineConfig, EngineId, EngineOp, RunId, Seq};

/// Where an engine runs.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// A sandbox instance on the page thread: answers synchronously, cannot be stopped by the
    /// host mid-line (only by its own in-engine budget).
    Inline,
    /// A sandbox instance inside a Web Worker: answers asynchronously, and the host can end it
    /// at a deadline.
    Worker,
    /// A trusted host JS parser registered with [`Host::register_builtin`](crate::Host::register_builtin):
    /// answers synchronously, is never ended at a deadline.
    Builtin,
}

/// Something the executor must do. Drain them with [`Host::poll_command`](crate::Host::poll_command)
/// after every event.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Fetch `adapter_type`'s parser source, then call
    /// [`Host::handle_load_result`](crate::Host::handle_load_result) with `token`.
    Load {
        /// The adapter type.
        adapter_type: String,
        /// Pass back with the result; a superseded load's result is ignored.
        token: u64,
    },
    /// Instantiate a new engine (its own wasm instance and memory, or the builtin), load the
    /// parser into it, then call [`Host::handle_engine_started`](crate::Host::handle_engine_started).
    /// No ops are sent to it before that.
    StartEngine {
        /// The new engine's id.
        engine: EngineId,
        /// The adapter type it parses for.
        adapter_type: String,
        /// Where to run it.
        placement: Placement,
        /// The `ui-parser.js` text (`None` for a builtin).
        source: Option<String>,
        /// The declared contract version, if any.
        contract_version: Option<String>,
        /// What to configure it with (for `placement`: see
        /// [`HostOptions::engine_config_at`](crate::HostOptions::engine_config_at)).
        config: EngineConfig,
        /// A Worker engine may hold its answers for up to this many milliseconds and post them
        /// together (a message per batch, not per line); it posts what it holds before it
        /// reports its own death. 0: each answer is posted alone, as soon as it exists (inline
        /// engines, and a type whose Worker was once ended while holding answers: see
        /// [`Host::handle_timeout`](crate::Host::handle_timeout)).
        answer_batch_ms: f64,
        /// A Worker engine stops a live line itself once the line has run this long on its
        /// own clock, from the line's start (`began`), and reports that it stopped: the core
        /// ends it at the same deadline, armed when it hears of the start, so later than the
        /// Worker's clock. The page then ends an idle Worker, which it can reuse, not a busy
        /// one: in WebKit, ending a Worker while the engine's code is being compiled left that
        /// code in the interpreter for the rest of the page (BENCHMARKS.md, session 32).
        /// Replayed lines and the engine's own realm work are not stopped by it.
        line_deadline_ms: f64,
    },
    /// Run `ops` in `engine`, in order. Several lines travel in one batch.
    Send {
        /// The engine.
        engine: EngineId,
        /// The operations, in order.
        ops: Vec<EngineOp>,
    },
    /// Terminate `engine` (a Worker is terminated, an inline instance dropped). Answers it may
    /// still send are ignored.
    EndEngine {
        /// The engine.
        engine: EngineId,
    },
    /// The settled entries of a line that was shown provisionally (a
    /// [`LineStep::Deferred`]): replace that line's entries in place.
    LateAnswer {
        /// The type whose parser answered.
        adapter_type: String,
        /// The run the line belongs to (it may have been dropped since: a re-rendering page
        /// drops each render's run, and hears of the answer by its type).
        run: RunId,
        /// The address [`LineStep::Deferred`] gave.
        seq: Seq,
        /// The line, as it was parsed.
        line: String,
        /// Its timestamp.
        ts: String,
        /// What the transcript shows for the line from now on.
        entries: Vec<TranscriptEntry>,
        /// Why the line fell back to the generic entry, when it did (`entries` is then the
        /// generic entry, or nothing with `failedLineEntry: "omit"`).
        failure: Option<LineFailure>,
        /// The entries the parser returned that validation dropped (with a preview of each
        /// under [`HostOptions::dropped_preview_chars`](crate::HostOptions::dropped_preview_chars)).
        dropped: Vec<Dropped>,
    },
    /// `adapter_type`'s status changed (ready, failed, moved to a Worker): a viewer may rebuild
    /// its transcripts. Queued at most once per type until polled.
    Notify {
        /// The adapter type.
        adapter_type: String,
    },
}

/// What [`Host::parse_line`](crate::Host::parse_line) returns.
#[derive(Clone, Debug, PartialEq)]
pub enum LineStep {
    /// The final entries, now (no engine is involved: the generic parser answered).
    Answered(Vec<TranscriptEntry>),
    /// Run `ops` in the inline or builtin `engine` synchronously, then pass its answers to
    /// [`Host::handle_answers`](crate::Host::handle_answers) (or its death to
    /// [`Host::handle_engine_died`](crate::Host::handle_engine_died)); the returned
    /// [`Answered`] with this `seq` holds the entries. Absent there, show the generic entry.
    RunNow {
        /// The engine to run the ops in.
        engine: EngineId,
        /// The line's address.
        seq: Seq,
        /// The ops, ending with the line.
        ops: Vec<EngineOp>,
    },
    /// Show `entries` (the generic entry) now; the final answer comes later as
    /// [`Command::LateAnswer`] with this `seq`.
    Deferred {
        /// The line's address.
        seq: Seq,
        /// The provisional entries.
        entries: Vec<TranscriptEntry>,
    },
}

/// The settled answer of a line whose caller is waiting synchronously.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    /// The run the line belongs to.
    pub run: RunId,
    /// The line's address.
    pub seq: Seq,
    /// The line, as it was parsed.
    pub line: String,
    /// Its timestamp.
    pub ts: String,
    /// What the transcript shows for the line.
    pub entries: Vec<TranscriptEntry>,
    /// Why the line fell back to the generic entry, when it did.
    pub failure: Option<LineFailure>,
    /// The entries the parser returned that validation dropped (with a preview of each under
    /// [`HostOptions::dropped_preview_chars`](crate::HostOptions::dropped_preview_chars)).
    pub dropped: Vec<Dropped>,
}

/// What the executor's loader found for a [`Command::Load`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadResult {
    /// The parser source and, when the package declares one, `paperclip.adapterUiParser`.
    Source {
        /// The `ui-parser.js` text.
        source: String,
        /// The declared contract version, e.g. `1.0.0`.
        contract_version: Option<String>,
    },
    /// This type has no parser: the generic parser is the right answer, not a failure.
    NoParser,
    /// The load failed (non-OK response, network error, loader threw), with a reason.
    Failed(String),
}
