//! What feeding a line gives the report: each line's outcome and the entries validation
//! dropped; the lines fed (the sample log's, the awkward ones).

use parsebox_transcript::{DroppedEntry, LineFailure, TranscriptEntry};

use crate::native::awkward;
use crate::native::lines::{fed_lines, line_ts};

/// One line fed to a parser, labelled for the report.
#[derive(Clone, Debug)]
pub(super) struct Line {
    /// "line 12" or "awkward: ANSI colour codes".
    pub(super) label: String,
    /// The line itself.
    pub(super) text: String,
    /// Its timestamp.
    pub(super) ts: String,
}

/// What a parser made of one line.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    /// Valid entries (invalid ones are in [`Answer::invalid`]).
    Entries(Vec<TranscriptEntry>),
    /// The line failed: it would fall back to the generic parser.
    Failed(LineFailure),
}

/// A parser's answer to one line, as the report needs it.
#[derive(Clone, Debug)]
pub(super) struct Answer {
    /// What the line gave.
    pub(super) outcome: Outcome,
    /// Entries dropped by validation, with the start of each ([`PREVIEW_CHARS`]).
    pub(super) invalid: Vec<DroppedEntry>,
}

/// How much of each entry validation dropped the report shows: the core keeps this many
/// characters of it.
pub(super) const PREVIEW_CHARS: usize = 160;

impl Outcome {
    /// Budget overruns depend on the machine's load: they are reported, never compared.
    pub(super) fn is_timing(&self) -> bool {
        matches!(self, Self::Failed(f) if f.code.is_overrun())
    }
}

/// The fed lines of a sample log, labelled by line number.
pub(super) fn sample_lines(log: &[u8]) -> Vec<Line> {
    fed_lines(log)
        .into_iter()
        .map(|l| Line {
            label: format!("line {}", l.number),
            text: l.text,
            ts: l.ts,
        })
        .collect()
}

/// The awkward lines ([`awkward::awkward_lines`]), labelled.
pub(super) fn awkward_lines() -> Vec<Line> {
    awkward::awkward_lines()
        .into_iter()
        .enumerate()
        .map(|(i, a)| Line {
            label: format!("awkward line \"{}\"", a.label),
            text: a.text,
            ts: line_ts(i as u64),
        })
        .collect()
}
