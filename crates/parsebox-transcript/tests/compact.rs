//! The frozen prefix (`TranscriptOptions::compact_final`): a builder that freezes what is final
//! after every call shows exactly the transcript one that keeps everything live shows, and
//! returns the same changes (its indices counted from the transcript's start), over generated
//! runs of plain lines, deltas, late answers, stderr, redaction, windows and rebuilds.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::ops::Range;

use parsebox_transcript::{
    generic_entry, validate_entry, Chunk, EntryLimits, LineAnswer, LineFailure, LineParser,
    PushChange, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::json;

/// Lines `+x` are assistant deltas, `2x` two entries, `0` none, others stdout as they came
/// (the generic entry).
fn answer(line: &str, ts: &str) -> Vec<TranscriptEntry> {
    let v = |v| validate_entry(v, &EntryLimits::default()).unwrap();
    match line.chars().next() {
        Some('+') => vec![v(
            json!({"kind":"assistant","ts":ts,"text":&line[1..],"delta":true}),
        )],
        Some('2') => vec![
            v(json!({"kind":"assistant","ts":ts,"text":"a","delta":true})),
            v(json!({"kind":"system","ts":ts,"text":line})),
        ],
        Some('0') => vec![],
        _ => vec![generic_entry(line, ts)],
    }
}

/// Answers lines starting with `?` later (their tokens wait in `pending`), others at once.
#[derive(Default)]
struct Late {
    n: u64,
    pending: Vec<(u64, String, String)>,
}

impl LineParser for Late {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(answer(line.trim_start_matches('?'), ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        if !line.starts_with('?') {
            return LineAnswer::Now(self.parse_line(line, ts));
        }
        self.n += 1;
        self.pending.push((self.n, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token: self.n,
            provisional: vec![generic_entry(line, ts)],
        }
    }
    fn reset(&mut self) {
        self.pending.clear();
    }
}

#[derive(Clone, Debug)]
enum Op {
    Stdout(String),
    Stderr(String),
    Answer(usize),
    Redact(bool),
    Rebuild,
    DropBefore(usize),
    Finish,
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-c]{1,3}",
        1 => "\\+[a-c]{1,2}",
        1 => "\\?[a-c+2]{1,2}",
        1 => Just("2x".to_owned()),
        1 => Just("0".to_owned()),
        1 => Just("/Users/bob/x".to_owned()),
        1 => Just("  \r".to_owned()),
        1 => Just(" a \r".to_owned()),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (prop::collection::vec(line(), 0..6), any::<bool>()).prop_map(|(lines, cut)| {
            let mut text = lines.join("\n");
            if !cut { text.push('\n'); }
            Op::Stdout(text)
        }),
        1 => "[a-z ]{1,4}".prop_map(Op::Stderr),
        3 => (0usize..4).prop_map(Op::Answer),
        1 => any::<bool>().prop_map(Op::Redact),
        1 => Just(Op::Rebuild),
        1 => (0usize..4).prop_map(Op::DropBefore),
        1 => Just(Op::Finish),
    ]
}

fn builder(compact: bool, max_chunks: Option<usize>) -> TranscriptBuilder<Late> {
    TranscriptBuilder::new(
        Late::default(),
        TranscriptOptions {
            retain_chunks: true,
            track_lines: true,
            max_chunks,
            compact_final: compact,
            ..TranscriptOptions::default()
        },
    )
}

/// What `op` changed: the entries dropped from the front and the range changed (counted
/// from the transcript's start).
/// (`redacting`: the redaction setting, as the test last set it.)
fn apply(
    b: &mut TranscriptBuilder<Late>,
    op: &Op,
    n: usize,
    redacting: &mut bool,
) -> (Vec<TranscriptEntry>, Range<usize>) {
    let ts = format!("t{n}");
    // The window's indices count after the frozen prefix as it is after the call.
    let shift = |b: &TranscriptBuilder<Late>, r: Range<usize>| {
        let at = b.frozen_len();
        r.start + at..r.end + at
    };
    match op {
        Op::Stdout(text) => {
            let PushChange { dropped, changed } = b.push_change(&Chunk::stdout(&ts, text));
            (dropped, shift(b, changed))
        }
        Op::Stderr(text) => {
            let PushChange { dropped, changed } = b.push_change(&Chunk::stderr(&ts, text));
            (dropped, shift(b, changed))
        }
        Op::Answer(k) => {
            let pending = &mut b.parser_mut().pending;
            if pending.is_empty() {
                return (Vec::new(), 0..0);
            }
            let (token, line, ts) = pending.remove(k % pending.len());
            let entries = answer(line.trim_start_matches('?'), &ts);
            let r = b.replace_answers(vec![(token, entries)]);
            (Vec::new(), shift(b, r))
        }
        Op::Redact(on) => {
            let r = b.set_redact_home_paths(*on);
            // A new setting changes the frozen prefix too: every entry from the start.
            let all = std::mem::replace(redacting, *on) != *on;
            let r = shift(b, r);
            (Vec::new(), if all { 0..r.end } else { r })
        }
        Op::Rebuild => {
            b.rebuild();
            (Vec::new(), 0..b.entries().len())
        }
        Op::DropBefore(k) => {
            let PushChange { dropped, .. } = b.drop_chunks_before(*k);
            (dropped, 0..0)
        }
        Op::Finish => {
            let r = b.finish();
            (Vec::new(), shift(b, r))
        }
    }
}

fn check(ops: &[Op], max_chunks: Option<usize>) -> Result<(), TestCaseError> {
    let mut live = builder(false, max_chunks);
    let mut compact = builder(true, max_chunks);
    let (mut r1, mut r2) = (false, false);
    for (n, op) in ops.iter().enumerate() {
        // Sometimes a timeline beside it lets only a few entries go.
        let most = [usize::MAX, 0, 1, 2, 5][n % 5];
        let would = compact.final_prefix_len();
        let moved = compact.freeze_final_within(most);
        prop_assert!(
            moved <= most.min(would),
            "moved {} of {} (at most {})",
            moved,
            would,
            most
        );
        if most == usize::MAX {
            prop_assert_eq!(moved, would);
        }
        let a = apply(&mut live, op, n, &mut r1);
        let b = apply(&mut compact, op, n, &mut r2);
        let all: Vec<TranscriptEntry> = compact.all_entries().collect();
        prop_assert_eq!(&all, live.entries(), "after {:?} (op {})", op, n);
        prop_assert_eq!(&b.0, &a.0, "dropped by {:?}", op);
        if !matches!(op, Op::Rebuild | Op::DropBefore(_)) {
            prop_assert_eq!(b.1, a.1, "changed by {:?}", op);
        }
        prop_assert_eq!(compact.units(), live.units());
        prop_assert_eq!(compact.counts(), live.counts());
        prop_assert_eq!(compact.len(), live.len());
        for k in 0..=live.counts().retained_chunks {
            prop_assert_eq!(
                compact.first_entry_of_chunk(k),
                live.first_entry_of_chunk(k),
                "chunk {} after {:?}",
                k,
                op
            );
        }
        let origins: Vec<_> = compact.frozen_with_origins().collect();
        prop_assert_eq!(origins.len(), compact.frozen_len());
        for (i, (origin, entry)) in origins.iter().enumerate() {
            prop_assert_eq!(origin, &live.entry_origin(i), "origin of {}", i);
            prop_assert_eq!(entry, &live.entries()[i]);
        }
        prop_assert_eq!(compact.last_frozen(), origins.last().cloned());
        for from in [0, live.len() / 2, live.len()] {
            prop_assert_eq!(&*compact.entries_from(from), &live.entries()[from..]);
        }
    }
    compact.freeze_final();
    let all: Vec<TranscriptEntry> = compact.all_entries().collect();
    prop_assert_eq!(&all, live.entries());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_compact_builder_shows_what_a_live_one_shows(ops in prop::collection::vec(op(), 1..24)) {
        check(&ops, None)?;
    }

    #[test]
    fn and_in_a_window(ops in prop::collection::vec(op(), 1..24), max in 1usize..4) {
        check(&ops, Some(max))?;
    }
}

#[test]
fn plain_lines_leave_the_window_and_read_back() {
    let mut b = builder(true, None);
    b.push(&Chunk::stdout("t1", "a\nbb\n\n  c \r\nd"));
    assert_eq!(b.freeze_final(), 3);
    assert_eq!(b.entries().len(), 0);
    b.push(&Chunk::stdout("t2", "e\n"));
    let texts: Vec<String> = b
        .all_entries()
        .map(|e| e.text().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["a", "bb", "c", "de"]);
}

/// Found by `and_in_a_window`: redaction switched off, then the window moved past a streamed
/// delta that a frozen prefix had merged into.
#[test]
fn a_delta_survives_redaction_off_then_a_window_move() {
    let ops = [
        Op::Redact(true),
        Op::Stdout("+a\n0".into()),
        Op::Stdout("\n".into()),
        Op::Stdout("+a\na".into()),
        Op::Redact(false),
        Op::DropBefore(2),
    ];
    check(&ops, Some(2)).unwrap();
}
