//! What feeding a line gives the report: each line's outcome and the entries validation
//! dropped; the lines fed (the sample log's, the awkward ones). Under WASI, feeding itself,
//! exactly as the registry does, and overruns by the clock.

#[cfg(target_os = "wasi")]
use std::time::Duration;

#[cfg(target_os = "wasi")]
use parsebox_sandbox::{ParserRun, SandboxOptions};
#[cfg(target_os = "wasi")]
use parsebox_transcript::{settle_line_previewing, FailedLineEntry, FailureCode};
use parsebox_transcript::{DroppedEntry, LineFailure, TranscriptEntry};

use crate::awkward;
use crate::lines::{fed_lines, line_ts};
#[cfg(target_os = "wasi")]
use crate::watch::{overran, Watch};

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

/// (WASI: natively the live core feeds the lines, `runs.rs`.) Feeds one line exactly as the registry does — the raw outcome through the one line rule
/// ([`settle_line`]), and a stateful parser reset before the next line when the rule says so —
/// but keeps the raw value of every entry that validation drops (so the report can show it),
/// and times the call under the watchdog: a call that returned long after its budget ran one
/// native step the sandbox could not interrupt, and counts as a budget overrun.
#[cfg(target_os = "wasi")]
pub(super) fn feed(
    run: &mut ParserRun,
    line: &Line,
    options: &SandboxOptions,
    watch: &Watch,
    reset_owed: &mut bool,
) -> Answer {
    if std::mem::take(reset_owed) {
        // A reset that fails shows on the next line as that line's failure, as in the UI.
        let _ = run.reset();
    }
    watch.begin(line.label.clone());
    let raw = run.parse_line_raw(&line.text, &line.ts);
    let elapsed = watch.end();
    let raw = match raw {
        // Stopped (or answered) only long after the deadline: a native step ran past it first.
        Ok(_)
        | Err(LineFailure {
            code: FailureCode::BudgetExceeded,
            ..
        }) if overran(elapsed, options.line_budget_ms) => Err(LineFailure::new(
            FailureCode::BudgetExceeded,
            uninterruptible(elapsed, options.line_budget_ms),
        )),
        other => other,
    };
    let settled = settle_line_previewing(
        &line.text,
        &line.ts,
        raw,
        &options.entry_limits,
        FailedLineEntry::default(),
        PREVIEW_CHARS,
    );
    *reset_owed = settled.resets_parser();
    let invalid = settled.dropped.iter().map(DroppedEntry::from).collect();
    let outcome = match settled.fallback {
        // The line ran to completion; its entries were all invalid (listed in `invalid`), so
        // the UI shows the line itself.
        Some(f) if f.code != FailureCode::AllEntriesInvalid => Outcome::Failed(f),
        _ => Outcome::Entries(settled.entries),
    };
    Answer { outcome, invalid }
}

/// The message for a call that overran its budget in one uninterruptible native step.
#[cfg(target_os = "wasi")]
pub(super) fn uninterruptible(elapsed: Duration, budget_ms: f64) -> String {
    format!(
        "took {} ms, over the {budget_ms} ms budget, in one native operation the sandbox cannot \
         interrupt (a regex, split or replace over a long line, JSON.parse, building a huge \
         string); in the browser the page freezes until the Worker host kills the parser",
        elapsed.as_millis()
    )
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
