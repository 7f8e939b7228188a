//! Counters a viewer shows so people can see what a parser, and the host around it, did.

use std::collections::BTreeMap;

use parsebox_transcript::SettledLine;
use serde::Serialize;

/// Counters for one adapter type (or, summed, for the whole host).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "CoreDiagnostics"))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostics {
    /// Lines settled (by any parser, fallbacks included). Replayed lines are not counted.
    pub lines_parsed: u64,
    /// Lines answered by the adapter's own parser without falling back.
    pub lines_by_parser: u64,
    /// Lines that fell back to the generic entry, by [`FailureCode`](parsebox_transcript::FailureCode) name.
    #[cfg_attr(feature = "ts", ts(type = "Partial<Record<FailureCode, number>>"))]
    pub fallbacks: BTreeMap<String, u64>,
    /// Entries dropped by validation, by [`Rejection::code`](parsebox_transcript::Rejection::code).
    pub dropped_entries: BTreeMap<String, u64>,
    /// Entries delivered.
    pub entries: u64,
    /// The last failure (load, line or engine) as a sentence.
    pub last_error: Option<String>,
    /// The first 5 lines that fell back (`FALLBACK_LINES_KEPT`), each with its sentence: which
    /// lines a viewer or the command line can point at, where `fallbacks` only counts them.
    pub fallback_lines: Vec<FallbackLine>,
    /// Runs created (the default run included).
    pub runs_created: u64,
    /// Time the last successful load took (compile and trial evaluation), in milliseconds.
    pub load_ms: Option<f64>,
    /// What the host did around the parser.
    pub host: HostCounters,
}

/// How many fallen-back lines [`Diagnostics::fallback_lines`] keeps (the first ones).
pub const FALLBACK_LINES_KEPT: usize = 5;

/// How many characters of a fallen-back line [`FallbackLine::line`] keeps.
pub const FALLBACK_LINE_CHARS: usize = 120;

/// A line that fell back to the generic entry, and why.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackLine {
    /// The line's timestamp, as it was parsed.
    pub ts: String,
    /// The line's first 120 characters (`FALLBACK_LINE_CHARS`; the whole line when shorter).
    pub line: String,
    /// The line's length in characters (Unicode scalar values).
    pub line_chars: u64,
    /// Why it fell back: its failure code, a colon and the sentence (`lastError`'s form).
    pub error: String,
}

impl FallbackLine {
    fn new(line: &str, ts: &str, error: String) -> Self {
        Self {
            ts: ts.to_owned(),
            line: line.chars().take(FALLBACK_LINE_CHARS).collect(),
            line_chars: line.chars().count() as u64,
            error,
        }
    }
}

/// What the host core did: engines started again, lines killed, replays.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostCounters {
    /// Engines started again after a death or a deadline (placement moves not included).
    pub respawns: u64,
    /// Engines ended because a line, a start or a replay ran past its deadline.
    pub deadline_kills: u64,
    /// Of `deadlineKills`, those of a Worker that batched its answers and had several lines:
    /// which line it was stuck on was not known, so no line was failed, and the type's
    /// Workers since answer line by line and ran those lines again.
    pub unattributed_kills: u64,
    /// Of `deadlineKills`, those on a line's first run past the deadline: the line was not
    /// failed but ran once more on a fresh engine (a stalled machine is not the parser's
    /// fault); it fails only if that engine is ended on it too.
    pub deadline_retries: u64,
    /// Engines that died on their own (trap, out of memory, worker error).
    pub engine_faults: u64,
    /// Journal lines replayed into a fresh engine and answered there.
    pub replayed_lines: u64,
    /// Runs whose history was dropped (journal over its cap, a replay given up, or the type's
    /// replay allowance spent by repeated recoveries): a later replay cannot bring their parser
    /// state back exactly. Also counted when an engine could not restore a run's parser state
    /// after a line left its realm unusable (replaying the run's earlier lines would not fit
    /// its replay budget): the parser started over without them.
    pub state_lost: u64,
    /// Moves of a type from an inline engine to a Worker engine.
    pub placement_moves: u64,
    /// Calls into an inline engine that took longer than their lines' budget by the host's
    /// clock (whatever the engine's own budget saw), less the realm work the engine reported
    /// (a new run's realm, a rebuild after a failed line).
    pub clock_overruns: u64,
    /// Calls of the page (a push, a rebuild) that spent more than `callBudgetMs` in the type's
    /// inline engine, summed over their lines.
    pub call_overruns: u64,
    /// Lines shown provisionally and settled later ([`Command::LateAnswer`](crate::Command::LateAnswer)).
    pub late_answers: u64,
    /// Answers ignored: from an ended engine, for a dropped run, out of order or duplicated.
    pub stale_answers: u64,
    /// Lines sent to an engine and not settled yet.
    pub lines_pending: u64,
    /// Lines answered at once with what the parser answered for the same line reached by the
    /// same history (a re-render's fresh run re-parsing the log), instead of generically.
    pub memo_answers: u64,
    /// Bytes this type's transcripts hold now, as their budget counts them
    /// (`TranscriptBuilder.counts().budgetBytes`, summed).
    pub transcript_bytes: u64,
    /// Lines shown with the generic entry because their entries would have taken a
    /// transcript past its budget (`maxTranscriptBytes`, or the registry's
    /// `maxTranscriptBytesTotal`).
    pub over_budget_lines: u64,
    /// Chunks a transcript refused (`ParseboxMemoryError`): they did not fit its budget.
    pub refused_chunks: u64,
    /// Times the type's engine was ended while idle to make room for another type's
    /// (`maxLiveEngines`): its next line started it again, replaying its runs' history.
    pub parked: u64,
    /// Engines started beside the type's engine, each in a Worker, to spread a long backlog of
    /// its stateless lines (`maxWorkers`).
    pub spread_starts: u64,
}

/// Who answered a settled line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnsweredBy {
    /// The adapter's parser (its outcome went through the line rule).
    Parser,
    /// The generic parser, because the type has no parser (yet).
    Generic,
}

/// The one place a settled line (`line` at `ts`) is counted (the registry counts with it too).
pub fn count_line(
    diag: &mut Diagnostics,
    line: &str,
    ts: &str,
    settled: &SettledLine,
    by: AnsweredBy,
) {
    diag.lines_parsed += 1;
    diag.entries += settled.entries.len() as u64;
    for d in &settled.dropped {
        *diag
            .dropped_entries
            .entry(d.why.code().to_owned())
            .or_default() += 1;
    }
    match &settled.fallback {
        Some(f) => {
            *diag
                .fallbacks
                .entry(f.code.as_str().to_owned())
                .or_default() += 1;
            let said = f.to_string();
            if diag.fallback_lines.len() < FALLBACK_LINES_KEPT {
                diag.fallback_lines
                    .push(FallbackLine::new(line, ts, said.clone()));
            }
            diag.last_error = Some(said);
        }
        None if by == AnsweredBy::Parser => diag.lines_by_parser += 1,
        None => {}
    }
}

/// Adds each named counter of `$other` into `$into`.
macro_rules! add_counters {
    ($into:expr, $other:expr; $($field:ident),+ $(,)?) => {
        $( $into.$field += $other.$field; )+
    };
}

impl Diagnostics {
    /// Adds another type's counters into these (for a host-wide total).
    pub fn add(&mut self, other: &Diagnostics) {
        add_counters!(self, other; lines_parsed, lines_by_parser, entries, runs_created);
        for (k, v) in &other.fallbacks {
            *self.fallbacks.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.dropped_entries {
            *self.dropped_entries.entry(k.clone()).or_default() += v;
        }
        let room = FALLBACK_LINES_KEPT.saturating_sub(self.fallback_lines.len());
        self.fallback_lines
            .extend(other.fallback_lines.iter().take(room).cloned());
        if other.last_error.is_some() {
            self.last_error.clone_from(&other.last_error);
        }
        if other.load_ms.is_some() {
            self.load_ms = other.load_ms;
        }
        add_counters!(self.host, other.host;
            respawns, deadline_kills, unattributed_kills, deadline_retries, engine_faults, replayed_lines,
            state_lost, placement_moves, clock_overruns, call_overruns, late_answers,
            stale_answers, lines_pending, memo_answers, transcript_bytes, over_budget_lines,
            refused_chunks, parked, spread_starts,
        );
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use parsebox_transcript::{FailureCode, LineFailure};

    /// Every counter is summed: the struct literals list every field (a new counter does not
    /// compile here until it is given), and each must come out doubled.
    #[test]
    fn the_total_sums_every_counter() {
        let one = Diagnostics {
            lines_parsed: 1,
            lines_by_parser: 2,
            fallbacks: BTreeMap::from([("threw".to_owned(), 3)]),
            dropped_entries: BTreeMap::from([("too_long".to_owned(), 4)]),
            entries: 5,
            last_error: Some("e".into()),
            fallback_lines: Vec::new(),
            runs_created: 6,
            load_ms: Some(7.0),
            host: HostCounters {
                respawns: 8,
                deadline_kills: 9,
                unattributed_kills: 10,
                deadline_retries: 21,
                engine_faults: 11,
                replayed_lines: 12,
                state_lost: 13,
                placement_moves: 14,
                clock_overruns: 15,
                call_overruns: 16,
                late_answers: 17,
                stale_answers: 18,
                lines_pending: 19,
                memo_answers: 20,
                transcript_bytes: 22,
                over_budget_lines: 23,
                refused_chunks: 24,
                parked: 25,
                spread_starts: 26,
            },
        };
        let mut total = one.clone();
        total.add(&one);
        let (one, total) = (
            serde_json::to_value(&one).unwrap_or_default(),
            serde_json::to_value(&total).unwrap_or_default(),
        );
        // Every whole-number counter, by its path in the JSON (`loadMs` is a time, kept).
        let numbers = |v: &serde_json::Value| -> Vec<(String, u64)> {
            let mut out = Vec::new();
            let mut stack = vec![(String::new(), v.clone())];
            while let Some((path, v)) = stack.pop() {
                match v {
                    serde_json::Value::Object(m) => {
                        stack.extend(m.into_iter().map(|(k, v)| (format!("{path}.{k}"), v)));
                    }
                    serde_json::Value::Number(n) if !path.ends_with("loadMs") => {
                        out.push((path, n.as_u64().unwrap_or_default()));
                    }
                    _ => {}
                }
            }
            out.sort();
            out
        };
        let doubled: Vec<(String, u64)> =
            numbers(&one).into_iter().map(|(k, n)| (k, 2 * n)).collect();
        assert_eq!(numbers(&total), doubled);
        assert_eq!(doubled.len(), 25, "every counter was seen");
    }

    fn failed(code: FailureCode) -> SettledLine {
        SettledLine {
            entries: Vec::new(),
            fallback: Some(LineFailure::new(code, "why".to_owned())),
            dropped: Vec::new(),
        }
    }

    #[test]
    fn the_first_fallen_back_lines_are_kept_with_their_sentence() {
        let mut d = Diagnostics::default();
        let long = "é".repeat(FALLBACK_LINE_CHARS + 30);
        count_line(
            &mut d,
            &long,
            "t0",
            &failed(FailureCode::Threw),
            AnsweredBy::Parser,
        );
        for i in 1..9 {
            count_line(
                &mut d,
                &format!("line {i}"),
                &format!("t{i}"),
                &failed(FailureCode::Deadline),
                AnsweredBy::Parser,
            );
        }
        assert_eq!(d.fallback_lines.len(), FALLBACK_LINES_KEPT);
        let first = &d.fallback_lines[0];
        assert_eq!(first.line.chars().count(), FALLBACK_LINE_CHARS);
        assert_eq!(first.line_chars, (FALLBACK_LINE_CHARS + 30) as u64);
        assert_eq!(first.error, "threw: why");
        assert_eq!(d.fallback_lines[4].ts, "t4");
        assert_eq!(d.fallback_lines[4].line, "line 4");
        assert_eq!(
            d.fallbacks.values().sum::<u64>(),
            9,
            "every one is still counted"
        );
    }

    #[test]
    fn a_host_wide_total_keeps_the_first_lines_of_all_types() {
        let (mut a, mut b) = (Diagnostics::default(), Diagnostics::default());
        for i in 0..3 {
            count_line(
                &mut a,
                &format!("a{i}"),
                "t",
                &failed(FailureCode::Threw),
                AnsweredBy::Parser,
            );
            count_line(
                &mut b,
                &format!("b{i}"),
                "t",
                &failed(FailureCode::Threw),
                AnsweredBy::Parser,
            );
        }
        a.add(&b);
        let lines: Vec<_> = a.fallback_lines.iter().map(|l| l.line.as_str()).collect();
        assert_eq!(lines, ["a0", "a1", "a2", "b0", "b1"]);
    }
}
