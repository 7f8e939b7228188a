//! The one rule for what a transcript gets from one line (SPEC §2, §4).
//!
//! Whatever answered the line — the sandbox in this thread, the sandbox in a Worker, a trusted
//! built-in, `parsebox check` or `parsebox parse` — its outcome goes through [`settle_line`]
//! with the registry's configured [`EntryLimits`], and nothing else decides which entries the
//! transcript shows, whether the line fell back to the generic entry, what diagnostics count
//! and whether a stateful parser is reset before the next line. Two paths that must agree call
//! this one function instead of keeping twins in step.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::entry::{Extra, ResultInfo, RunResult, TranscriptEntry};
use crate::validate::{entries_from_return_previewing, CheckedEntries, Dropped, EntryLimits};

/// Why a line fell back to the generic entry. The snake_case names are stable: diagnostics
/// count by them and the TypeScript types list them as a string-literal union. Declared in
/// alphabetical order, so counts keyed by code list the way string-keyed ones do.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// Every entry the parser returned was invalid (each is counted as dropped).
    AllEntriesInvalid,
    /// The parser returned something that is not an array of entries, an entry or `null`, or
    /// a value too large or too deep to convert.
    BadReturn,
    /// The call ran past its wall-clock budget, or hit an engine loop/recursion limit.
    BudgetExceeded,
    /// The line ran past the worker host's hard deadline: the worker was terminated.
    Deadline,
    /// The engine itself faulted (a panic, a trap); the adapter is marked failed.
    EngineFault,
    /// The line is longer than the sandbox hands to a parser.
    LineTooLong,
    /// The call allocated more than the sandbox allows.
    MemoryExceeded,
    /// The parser's realm could not be rebuilt after an earlier abort.
    RealmUnavailable,
    /// The parser threw.
    Threw,
    /// The worker running the parser faulted while the line was in it.
    WorkerFault,
}

impl FailureCode {
    /// Every code, in alphabetical order (for tables and generated types).
    pub const ALL: [FailureCode; 10] = [
        Self::AllEntriesInvalid,
        Self::BadReturn,
        Self::BudgetExceeded,
        Self::Deadline,
        Self::EngineFault,
        Self::LineTooLong,
        Self::MemoryExceeded,
        Self::RealmUnavailable,
        Self::Threw,
        Self::WorkerFault,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Threw => "threw",
            Self::BudgetExceeded => "budget_exceeded",
            Self::MemoryExceeded => "memory_exceeded",
            Self::BadReturn => "bad_return",
            Self::LineTooLong => "line_too_long",
            Self::AllEntriesInvalid => "all_entries_invalid",
            Self::EngineFault => "engine_fault",
            Self::RealmUnavailable => "realm_unavailable",
            Self::Deadline => "deadline",
            Self::WorkerFault => "worker_fault",
        }
    }

    /// The parser itself failed the line (it threw, ran over, returned a non-entry, …), so a
    /// stateful parser's state can no longer be trusted and the transcript may show the
    /// parse-error entry. Not so for a line whose entries were all invalid (the parser ran to
    /// completion) or a line too long to hand over (the parser never saw it): those keep the
    /// parser's state and always show the generic entry, the line's full text.
    pub fn is_parser_failure(self) -> bool {
        !matches!(self, Self::AllEntriesInvalid | Self::LineTooLong)
    }

    /// An overrun: work the in-thread budget could only stop late, or not at all. A host that
    /// can move the parser to a Worker it can terminate should do so.
    pub fn is_overrun(self) -> bool {
        matches!(
            self,
            Self::BudgetExceeded | Self::MemoryExceeded | Self::Deadline
        )
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for FailureCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Why a parser could not answer a line. The line then shows the generic entry, so it is never
/// lost.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineFailure {
    /// The stable reason.
    pub code: FailureCode,
    /// A human-readable explanation.
    pub message: String,
    /// For `threw`: the thrown value as Paperclip's transcript words it (the `Error`'s
    /// message, the thrown string, else the value as JSON); absent when that gives nothing
    /// (a thrown `undefined`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub thrown: Option<String>,
}

impl LineFailure {
    /// A failure with a reason code and message.
    pub fn new(code: FailureCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            thrown: None,
        }
    }

    /// A `threw` failure: `message` for diagnostics, `thrown` for the transcript (see
    /// [`LineFailure::thrown`]).
    pub fn threw(message: impl Into<String>, thrown: Option<String>) -> Self {
        Self {
            code: FailureCode::Threw,
            message: message.into(),
            thrown,
        }
    }

    /// The error text of Paperclip's parse-error entry: what was thrown, or for a failure that
    /// is not a throw (over budget, a bad return value, …) the message; `unknown parser
    /// error` when that is empty.
    pub fn error_text(&self) -> &str {
        let text = match self.code {
            FailureCode::Threw => self.thrown.as_deref().unwrap_or(""),
            _ => &self.message,
        };
        if text.is_empty() {
            "unknown parser error"
        } else {
            text
        }
    }
}

/// What ends a text [`cut_text`] shortened.
pub const CUT_MARKER: &str = "… (cut)";

/// `text` within `max_bytes` UTF-8 bytes: whole when it fits, else its longest start that ends
/// at a character boundary and leaves room for [`CUT_MARKER`], followed by it. (With a bound
/// smaller than the marker, the start alone.)
pub fn cut_text(text: &str, max_bytes: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max_bytes {
        return std::borrow::Cow::Borrowed(text);
    }
    let room = max_bytes.saturating_sub(CUT_MARKER.len());
    let marker = if room == 0 { "" } else { CUT_MARKER };
    let keep = if room == 0 { max_bytes } else { room };
    let mut end = keep.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + marker.len());
    out.push_str(text.get(..end).unwrap_or(""));
    out.push_str(marker);
    std::borrow::Cow::Owned(out)
}

impl LineFailure {
    /// The failure with its message and thrown text each cut to `max_bytes` ([`cut_text`]): a
    /// parser controls what it throws, and its text must obey the entry limits' string bound
    /// wherever it is shown (the parse-error entry, diagnostics' `lastError`).
    #[must_use]
    pub fn bounded(self, max_bytes: usize) -> LineFailure {
        let cut = |s: String| match cut_text(&s, max_bytes) {
            std::borrow::Cow::Borrowed(_) => s,
            std::borrow::Cow::Owned(c) => c,
        };
        LineFailure {
            code: self.code,
            message: cut(self.message),
            thrown: self.thrown.map(cut),
        }
    }
}

/// What the transcript shows for a line whose parser failed (it threw, ran over budget,
/// returned something that is not entries).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FailedLineEntry {
    /// Paperclip's `buildTranscript` entry, byte for byte: `{ kind: "result", ts, text:
    /// "Chat transcript error: <error>. Falling back for line: <line>", inputTokens: 0,
    /// outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "transcript_parse_error",
    /// isError: true, errors: [] }`, the line cut to 157 UTF-16 units and `...` when it is
    /// longer than 160. What a transcript shows by default in the package (Paperclip's
    /// `TranscriptBuilder` drop-in).
    ParseError,
    /// The generic parser's `{ kind: "stdout", ts, text: line }`: the raw line, as if no
    /// parser were registered. What a single `parseLine` answers (Paperclip's own would
    /// throw), and the Rust default.
    #[default]
    Generic,
}

/// Longest line Paperclip's parse-error entry quotes whole, in UTF-16 units.
const PREVIEW_UNITS: usize = 160;

/// `line` as Paperclip's parse-error entry quotes it: whole up to 160 UTF-16 units, else the
/// first 157 and `...` (a surrogate pair cut in half becomes U+FFFD, as a string cannot hold
/// half a pair).
fn line_preview(line: &str) -> String {
    if line.len() <= PREVIEW_UNITS || line.encode_utf16().nth(PREVIEW_UNITS).is_none() {
        return line.to_owned();
    }
    let head: Vec<u16> = line.encode_utf16().take(PREVIEW_UNITS - 3).collect();
    let mut out = String::from_utf16_lossy(&head);
    out.push_str("...");
    out
}

/// The entry a failed line shows: the one rule for every path that gives up on a line (the
/// line rule, a builder's own parser, the host's fallbacks). A line the parser did not fail
/// ([`FailureCode::is_parser_failure`]: all its entries invalid, or too long to hand over)
/// shows the generic entry, its whole text, whatever the style.
///
/// The entry's text stays within the default entry limits' string bound, the error cut
/// ([`cut_text`]) to make room for the rest: [`settle_line`] has already cut the failure to
/// the configured bound ([`LineFailure::bounded`]); this holds for every other path too (a
/// builder's own parser).
pub fn failed_line_entry(
    line: &str,
    ts: &str,
    failure: &LineFailure,
    style: FailedLineEntry,
) -> TranscriptEntry {
    failed_line_entry_within(
        line,
        ts,
        failure,
        style,
        EntryLimits::default().max_string_bytes,
    )
}

/// [`failed_line_entry`] whose text stays within `max_bytes` (at least what the entry's fixed
/// words and the line's preview take).
fn failed_line_entry_within(
    line: &str,
    ts: &str,
    failure: &LineFailure,
    style: FailedLineEntry,
    max_bytes: usize,
) -> TranscriptEntry {
    if style == FailedLineEntry::Generic || !failure.code.is_parser_failure() {
        return crate::generic_entry(line, ts);
    }
    let preview = line_preview(line);
    let (head, middle) = ("Chat transcript error: ", ". Falling back for line: ");
    let room = max_bytes.saturating_sub(head.len() + middle.len() + preview.len());
    TranscriptEntry::Result(Box::new(RunResult {
        ts: ts.into(),
        text: format!(
            "{head}{}{middle}{preview}",
            cut_text(failure.error_text(), room)
        ),
        info: ResultInfo {
            input_tokens: 0.into(),
            output_tokens: 0.into(),
            cached_tokens: 0.into(),
            cost_usd: 0.into(),
            subtype: "transcript_parse_error".to_owned(),
            is_error: true,
            errors: Vec::new(),
        },
        extra: Extra::new(),
    }))
}

impl fmt::Display for LineFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for LineFailure {}

/// What a parser did with one line, before the line rule: the plain value it returned (an
/// engine converts the guest value to JSON data), or why it gave no value.
pub type LineOutcome = Result<Value, LineFailure>;

/// What one line gives the transcript, and what the host must know about it.
#[derive(Clone, Debug, PartialEq)]
pub struct SettledLine {
    /// The entries the transcript shows for the line: the parser's valid entries, or the one
    /// generic entry when the line fell back. Empty when the parser legitimately returned
    /// nothing (`[]`, `null`).
    pub entries: Vec<TranscriptEntry>,
    /// Why the line fell back to the generic entry, if it did.
    pub fallback: Option<LineFailure>,
    /// One per entry the parser returned that validation dropped: why, and (when asked for,
    /// [`settle_line_previewing`]) what it was.
    pub dropped: Vec<Dropped>,
}

impl SettledLine {
    /// The parser's state can no longer be trusted: a stateful instance must be reset before
    /// its next line (SPEC §4). A line whose entries were all invalid still ran to completion,
    /// and a line too long to hand over never reached the parser, so neither resets it
    /// ([`FailureCode::is_parser_failure`]).
    pub fn resets_parser(&self) -> bool {
        self.fallback
            .as_ref()
            .is_some_and(|f| f.code.is_parser_failure())
    }

    /// Nothing went wrong: no fallback and no dropped entry.
    pub fn is_clean(&self) -> bool {
        self.fallback.is_none() && self.dropped.is_empty()
    }

    /// The entries, or the failure when the line fell back: the shape of
    /// [`LineParser::parse_line`](crate::LineParser::parse_line).
    ///
    /// # Errors
    /// The fallback reason when the line fell back.
    pub fn into_result(self) -> Result<Vec<TranscriptEntry>, LineFailure> {
        match self.fallback {
            Some(f) => Err(f),
            None => Ok(self.entries),
        }
    }
}

/// The line rule: turns one parser outcome for `line` (arrived at `ts`) into what the transcript
/// gets, validating returned entries against `limits`.
///
/// | outcome | entries | fallback | resets parser |
/// |---|---|---|---|
/// | an array, an entry object, `null` | the valid entries (invalid ones are dropped with a reason) | none | no |
/// | entries returned, every one invalid | the generic entry | `all_entries_invalid` | no |
/// | any other value (string, number, boolean) | the generic entry | `bad_return` | yes |
/// | a failure (threw, over budget, …) | the generic entry | that failure | yes |
pub fn settle_line(
    line: &str,
    ts: &str,
    outcome: LineOutcome,
    limits: &EntryLimits,
    style: FailedLineEntry,
) -> SettledLine {
    settle_line_previewing(line, ts, outcome, limits, style, 0)
}

/// [`settle_line`], with a preview of the first `preview_chars` characters of each dropped
/// entry ([`entries_from_return_previewing`]; none with 0), for a report of what the parser
/// returned.
pub fn settle_line_previewing(
    line: &str,
    ts: &str,
    outcome: LineOutcome,
    limits: &EntryLimits,
    style: FailedLineEntry,
    preview_chars: usize,
) -> SettledLine {
    let checked = outcome.and_then(|value| {
        entries_from_return_previewing(value, limits, preview_chars)
            .map_err(|m| LineFailure::new(FailureCode::BadReturn, m))
    });
    let max = limits.max_string_bytes;
    match checked {
        Err(failure) => fell_back(line, ts, failure.bounded(max), Vec::new(), style, max),
        Ok(CheckedEntries { entries, dropped }) if entries.is_empty() && !dropped.is_empty() => {
            let message = dropped
                .first()
                .map(|d| d.why.to_string())
                .unwrap_or_default();
            let failure = LineFailure::new(FailureCode::AllEntriesInvalid, message).bounded(max);
            fell_back(line, ts, failure, dropped, style, max)
        }
        Ok(CheckedEntries { entries, dropped }) => SettledLine {
            entries,
            fallback: None,
            dropped,
        },
    }
}

/// A parser's return value as JSON text, as an engine instance's converter writes it while it
/// walks the guest value (no value tree built, hashed and encoded again). The host decodes it
/// into a [`LineOutcome`] and trusts nothing about it beyond that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnJson(String);

impl ReturnJson {
    /// Wraps JSON text the caller wrote (an engine's converter).
    pub fn new(json: String) -> Self {
        Self(json)
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What the reset rule reads of a returned value: whether it is `null`, an array or an object
/// (entries, or nothing), the shapes after which a stateful parser keeps its state.
pub trait ReturnShape {
    /// `null`, an array or an object.
    fn is_entries_shaped(&self) -> bool;
}

impl ReturnShape for Value {
    fn is_entries_shaped(&self) -> bool {
        self.is_null() || self.is_array() || self.is_object()
    }
}

impl ReturnShape for ReturnJson {
    fn is_entries_shaped(&self) -> bool {
        matches!(
            self.0.trim_start().as_bytes().first(),
            Some(b'n' | b'[' | b'{')
        )
    }
}

/// Whether a stateful parser must be reset after this outcome, decided from the outcome alone
/// (no limits needed), so an engine running a batch of lines resets exactly where
/// [`SettledLine::resets_parser`] says the host would: after a failure, and after a return
/// value that is not an array, an entry object or `null`. The same rule for a value and for its
/// JSON text ([`ReturnShape`]).
pub fn outcome_resets_parser<V: ReturnShape>(outcome: &Result<V, LineFailure>) -> bool {
    match outcome {
        Err(f) => f.code.is_parser_failure(),
        Ok(v) => !v.is_entries_shaped(),
    }
}

/// [`settle_line`] for a line no parser answered (`failure` says why), its texts cut to the
/// default entry limits' string bound.
pub fn settle_failure(
    line: &str,
    ts: &str,
    failure: LineFailure,
    style: FailedLineEntry,
) -> SettledLine {
    let max = EntryLimits::default().max_string_bytes;
    fell_back(line, ts, failure.bounded(max), Vec::new(), style, max)
}

fn fell_back(
    line: &str,
    ts: &str,
    failure: LineFailure,
    dropped: Vec<Dropped>,
    style: FailedLineEntry,
    max_bytes: usize,
) -> SettledLine {
    SettledLine {
        entries: vec![failed_line_entry_within(
            line, ts, &failure, style, max_bytes,
        )],
        fallback: Some(failure),
        dropped,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use serde_json::json;

    const LINE: &str = "the line";
    const TS: &str = "2026-01-01T00:00:00Z";

    fn failed(code: FailureCode) -> LineOutcome {
        Err(LineFailure::new(code, "why"))
    }

    /// One row per rule: outcome → (kinds shown, fallback code, dropped codes, resets parser).
    #[test]
    fn the_line_rule_table() {
        let user = json!({ "kind": "user", "ts": TS, "text": "hi" });
        let bad = json!({ "kind": "nope", "ts": TS });
        #[allow(clippy::type_complexity)]
        let rows: Vec<(&str, LineOutcome, &[&str], Option<&str>, &[&str], bool)> = vec![
            (
                "array of entries",
                Ok(json!([user.clone()])),
                &["user"],
                None,
                &[],
                false,
            ),
            (
                "single entry object",
                Ok(user.clone()),
                &["user"],
                None,
                &[],
                false,
            ),
            ("null is nothing", Ok(json!(null)), &[], None, &[], false),
            (
                "empty array is nothing",
                Ok(json!([])),
                &[],
                None,
                &[],
                false,
            ),
            (
                "invalid entries dropped, valid kept",
                Ok(json!([bad.clone(), user.clone()])),
                &["user"],
                None,
                &["unknown_kind"],
                false,
            ),
            (
                "all invalid shows the line",
                Ok(json!([bad.clone(), 3])),
                &["stdout"],
                Some("all_entries_invalid"),
                &["unknown_kind", "not_an_object"],
                false,
            ),
            (
                "a string is a bad return",
                Ok(json!("text")),
                &["stdout"],
                Some("bad_return"),
                &[],
                true,
            ),
            (
                "a number is a bad return",
                Ok(json!(42)),
                &["stdout"],
                Some("bad_return"),
                &[],
                true,
            ),
            (
                "threw",
                failed(FailureCode::Threw),
                &["stdout"],
                Some("threw"),
                &[],
                true,
            ),
            (
                "over budget",
                failed(FailureCode::BudgetExceeded),
                &["stdout"],
                Some("budget_exceeded"),
                &[],
                true,
            ),
            (
                "deadline in the worker",
                failed(FailureCode::Deadline),
                &["stdout"],
                Some("deadline"),
                &[],
                true,
            ),
            (
                "engine fault",
                failed(FailureCode::EngineFault),
                &["stdout"],
                Some("engine_fault"),
                &[],
                true,
            ),
            (
                "too long to hand over: the parser never saw it",
                failed(FailureCode::LineTooLong),
                &["stdout"],
                Some("line_too_long"),
                &[],
                false,
            ),
        ];
        for (what, outcome, kinds, fallback, dropped, resets) in rows {
            let outcome_copy = outcome.clone();
            let s = settle_line(
                LINE,
                TS,
                outcome,
                &EntryLimits::default(),
                FailedLineEntry::Generic,
            );
            let got: Vec<&str> = s.entries.iter().map(TranscriptEntry::kind).collect();
            assert_eq!(got, kinds, "{what}: kinds");
            assert_eq!(
                s.fallback.as_ref().map(|f| f.code.as_str()),
                fallback,
                "{what}: fallback"
            );
            let got: Vec<&str> = s.dropped.iter().map(|d| d.why.code()).collect();
            assert_eq!(got, dropped, "{what}: dropped");
            assert_eq!(s.resets_parser(), resets, "{what}: resets");
            assert_eq!(
                outcome_resets_parser(&outcome_copy),
                resets,
                "{what}: engine-side rule"
            );
            let as_json = outcome_copy.map(|v| ReturnJson::new(serde_json::to_string(&v).unwrap()));
            assert_eq!(
                outcome_resets_parser(&as_json),
                resets,
                "{what}: engine-side rule on JSON text"
            );
            if fallback.is_some() {
                assert_eq!(
                    s.entries[0].text(),
                    Some(LINE),
                    "{what}: the line is never lost"
                );
            }
        }
    }

    /// The limits are the caller's: a host configured for larger values keeps them.
    #[test]
    fn configured_limits_are_the_ones_applied() {
        let big = "x".repeat(1_500_000);
        let entry = json!({ "kind": "assistant", "ts": TS, "text": big });
        let default = settle_line(
            LINE,
            TS,
            Ok(entry.clone()),
            &EntryLimits::default(),
            FailedLineEntry::Generic,
        );
        assert_eq!(
            default.fallback.unwrap().code,
            FailureCode::AllEntriesInvalid
        );
        let limits = EntryLimits {
            max_string_bytes: 4 << 20,
            ..EntryLimits::default()
        };
        let raised = settle_line(LINE, TS, Ok(entry), &limits, FailedLineEntry::Generic);
        assert!(raised.is_clean());
        assert_eq!(raised.entries[0].text().map(str::len), Some(1_500_000));

        let many: Vec<_> = (0..2_003)
            .map(|i| json!({ "kind": "user", "ts": TS, "text": i.to_string() }))
            .collect();
        let limits = EntryLimits {
            max_entries_per_line: 5_000,
            ..EntryLimits::default()
        };
        assert_eq!(
            settle_line(LINE, TS, Ok(json!(many)), &limits, FailedLineEntry::Generic)
                .entries
                .len(),
            2_003
        );
    }

    #[test]
    fn settling_settled_entries_changes_nothing() {
        let out = json!([{ "toolUseId": "t1", "kind": "tool_call", "ts": TS, "name": "ls", "input": {} }]);
        let once = settle_line(
            LINE,
            TS,
            Ok(out),
            &EntryLimits::default(),
            FailedLineEntry::Generic,
        );
        let again = settle_line(
            LINE,
            TS,
            Ok(serde_json::to_value(&once.entries).unwrap()),
            &EntryLimits::default(),
            FailedLineEntry::Generic,
        );
        assert_eq!(once, again);
    }

    /// Paperclip's parse-error entry, byte for byte, for each kind of failure.
    #[test]
    fn a_failed_line_shows_paperclips_parse_error_entry() {
        let expect = |error: &str, line: &str| {
            format!(
                r#"{{"kind":"result","ts":"{TS}","text":"Chat transcript error: {error}. Falling back for line: {line}","inputTokens":0,"outputTokens":0,"cachedTokens":0,"costUsd":0,"subtype":"transcript_parse_error","isError":true,"errors":[]}}"#
            )
        };
        let shown = |outcome: LineOutcome, line: &str| {
            let s = settle_line(
                line,
                TS,
                outcome,
                &EntryLimits::default(),
                FailedLineEntry::ParseError,
            );
            assert_eq!(s.entries.len(), 1);
            serde_json::to_string(&s.entries[0]).unwrap()
        };
        let threw =
            |thrown: Option<&str>| Err(LineFailure::threw("Error: x", thrown.map(str::to_owned)));
        assert_eq!(shown(threw(Some("bad line")), "l"), expect("bad line", "l"));
        assert_eq!(shown(threw(Some("42")), "l"), expect("42", "l"));
        assert_eq!(shown(threw(None), "l"), expect("unknown parser error", "l"));
        let budget = Err(LineFailure::new(
            FailureCode::BudgetExceeded,
            "parser exceeded its 50 ms budget",
        ));
        assert_eq!(
            shown(budget, "l"),
            expect("parser exceeded its 50 ms budget", "l")
        );
        // Lines up to 160 UTF-16 units are quoted whole; longer ones cut to 157 and "...".
        let exact = "é".repeat(160);
        assert_eq!(shown(threw(Some("e")), &exact), expect("e", &exact));
        let long = format!("{}💬{}", "a".repeat(150), "b".repeat(20));
        let cut = format!("{}💬{}...", "a".repeat(150), "b".repeat(5));
        assert_eq!(shown(threw(Some("e")), &long), expect("e", &cut));
        // A line whose entries were all invalid ran to completion: the generic entry.
        let all_invalid = settle_line(
            "l",
            TS,
            Ok(json!([{ "kind": "nope" }])),
            &EntryLimits::default(),
            FailedLineEntry::ParseError,
        );
        assert_eq!(all_invalid.entries, vec![crate::generic_entry("l", TS)]);
        // A line too long to hand over keeps its whole text: the generic entry.
        let huge = "x".repeat(10_000);
        let too_long = settle_line(
            &huge,
            TS,
            failed(FailureCode::LineTooLong),
            &EntryLimits::default(),
            FailedLineEntry::ParseError,
        );
        assert_eq!(too_long.entries, vec![crate::generic_entry(&huge, TS)]);
        // The generic style keeps the raw line.
        let generic = settle_line(
            "l",
            TS,
            threw(Some("e")),
            &EntryLimits::default(),
            FailedLineEntry::Generic,
        );
        assert_eq!(generic.entries, vec![crate::generic_entry("l", TS)]);
        assert_eq!(
            serde_json::to_value(FailedLineEntry::ParseError).unwrap(),
            json!("parseError")
        );
    }

    /// A parser controls what it throws: the parse-error entry and the failure kept for
    /// diagnostics hold at most the entry limits' string bound of it, cut at a character
    /// boundary and marked.
    #[test]
    fn a_thrown_text_obeys_the_string_bound() {
        let huge = "é".repeat(2 << 20);
        let thrown = LineFailure::threw(format!("Error: {huge}"), Some(huge.clone()));
        for (limits, style) in [
            (EntryLimits::default(), FailedLineEntry::ParseError),
            (
                EntryLimits {
                    max_string_bytes: 1000,
                    ..EntryLimits::default()
                },
                FailedLineEntry::ParseError,
            ),
        ] {
            let max = limits.max_string_bytes;
            let s = settle_line("l", TS, Err(thrown.clone()), &limits, style);
            let f = s.fallback.unwrap();
            for text in [f.message.as_str(), f.thrown.as_deref().unwrap()] {
                assert!(text.len() <= max, "{} > {max}", text.len());
                assert!(text.ends_with(CUT_MARKER), "marked");
                assert!(
                    text.trim_end_matches(CUT_MARKER).ends_with('é'),
                    "whole characters"
                );
            }
            let text = s.entries[0].text().unwrap();
            assert!(text.len() <= max, "entry text {} > {max}", text.len());
            assert!(
                text.starts_with("Chat transcript error: éé"),
                "{}",
                &text[..40]
            );
            assert!(text.ends_with(". Falling back for line: l"));
        }
        // Every path that builds the entry keeps it within the default bound.
        let entry = failed_line_entry("l", TS, &thrown, FailedLineEntry::ParseError);
        assert!(entry.text().unwrap().len() <= EntryLimits::default().max_string_bytes);
        let settled = settle_failure("l", TS, thrown, FailedLineEntry::ParseError);
        assert!(settled.fallback.unwrap().message.len() <= EntryLimits::default().max_string_bytes);
        // Short texts are left as they are.
        assert_eq!(cut_text("short", 1000), "short");
        assert_eq!(cut_text("abcdef", 3), "abc");
    }

    #[test]
    fn codes_serialise_as_their_names_and_sort_by_them() {
        for code in FailureCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
        }
        for pair in FailureCode::ALL.windows(2) {
            assert!(pair[0] < pair[1] && pair[0].as_str() < pair[1].as_str());
        }
    }
}
