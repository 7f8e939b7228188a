//! What a page asks of a transcript ([`TranscriptSettings`], a `TranscriptBuilder`'s options as
//! they arrive) and how a transcript call can be refused ([`TranscriptError`]).

use std::fmt;

use parsebox_transcript::FailedLineEntry;
use serde::Deserialize;

use crate::shared::Reentered;

/// A `TranscriptBuilder`'s options (the binding checked their keys and kinds; the counts are
/// checked here).
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TranscriptSettings {
    /// Whether home paths show as `~`.
    pub redact_home_paths: Option<bool>,
    /// What a line whose parser failed shows; Paperclip's parse-error entry unless given.
    pub failed_line_entry: Option<FailedLineEntry>,
    /// Whether the transcript keeps a timeline beside it (it does unless `false`).
    pub timeline: Option<bool>,
    /// Most chunks the window keeps.
    pub max_chunks: Option<f64>,
    /// Most bytes of chunk text the window keeps.
    pub max_retained_bytes: Option<f64>,
    /// Whether a chunk seen before (same `seq`) is let go.
    pub drop_duplicate_chunks: Option<bool>,
    /// Most bytes the transcript holds.
    pub max_transcript_bytes: Option<f64>,
}

/// `value` of option `name` as a count: a whole number from 1 up.
pub(crate) fn count_option(
    name: &str,
    value: Option<f64>,
) -> Result<Option<usize>, TranscriptError> {
    match value {
        None => Ok(None),
        Some(v) if v >= 1.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_991.0 => {
            // A whole number below 2^53 fits.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(Some(v as usize))
        }
        Some(v) => Err(TranscriptError::Options(format!(
            "TranscriptBuilder option \"{name}\" must be a whole number from 1 up, got {}",
            parsebox_host::shown_number(v)
        ))),
    }
}

/// Why a transcript call was refused (each is a named `Error` at the JS boundary).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranscriptError {
    /// An option is out of range, or asks for what the transcript does not keep.
    Options(String),
    /// The registry was disposed.
    Disposed,
    /// Called from inside another call into the registry.
    Reentered,
    /// A chunk, or a list of chunks, that cannot be taken.
    Chunk(String),
    /// The chunk does not fit the transcript's budget.
    Memory(MemoryRefusal),
}

/// Why a chunk did not fit, in numbers: written out only when the error is shown, so that a
/// refused call leaves nothing held in the transcript it measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryRefusal {
    /// The page's transcripts together fill what the core may hold.
    Core {
        /// What the core's transcripts hold.
        held: usize,
        /// What they may hold at most.
        limit: usize,
        /// What the chunk may take.
        need: usize,
    },
    /// The transcript's own budget is full.
    Transcript {
        /// What the transcript holds.
        held: usize,
        /// What it may hold.
        room: usize,
        /// Whether the registry's shared total narrowed `room` below `maxTranscriptBytes`.
        narrowed: bool,
        /// What the chunk may take.
        need: usize,
    },
}

/// `b` bytes as a refusal says them.
struct Mib(usize);

impl fmt::Display for Mib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Display only: a byte count is far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let m = self.0 as f64 / f64::from(1 << 20);
        write!(f, "{m:.1} MiB")
    }
}

impl fmt::Display for MemoryRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Core { held, limit, need } => write!(
                f,
                "the page's transcripts hold {} in the core together, and it holds {} at most; \
                 a chunk that may take {} more does not fit. Dispose transcripts no longer shown",
                Mib(held),
                Mib(limit),
                Mib(need)
            ),
            Self::Transcript {
                held,
                room,
                narrowed,
                need,
            } => write!(
                f,
                "this transcript holds {} and may hold {} ({}); a chunk that may take {} more \
                 does not fit. Dispose transcripts no longer shown, or raise the budget",
                Mib(held),
                Mib(room),
                if narrowed {
                    "what the registry's maxTranscriptBytesTotal leaves it beside its other transcripts"
                } else {
                    "maxTranscriptBytes"
                },
                Mib(need)
            ),
        }
    }
}

impl fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Options(m) | Self::Chunk(m) => f.write_str(m),
            Self::Memory(r) => r.fmt(f),
            Self::Disposed => f.write_str("ParserRegistry used after dispose()"),
            Self::Reentered => Reentered.fmt(f),
        }
    }
}

impl std::error::Error for TranscriptError {}

impl From<Reentered> for TranscriptError {
    fn from(_: Reentered) -> Self {
        Self::Reentered
    }
}
