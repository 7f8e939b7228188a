//! Late answers: a line shown with its generic entry and answered later (by a parser running
//! in a Worker) ends in exactly the transcript an immediate answer would have given.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::cell::Cell;

use parsebox_transcript::{
    validate_entry, Chunk, EntryLimits, LineFailure, LineParser, TranscriptBuilder,
    TranscriptEntry, TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::json;

/// Lines `+x` are assistant deltas, `~x` thinking deltas, `2x` two entries, others stdout.
fn answer(line: &str, ts: &str) -> Vec<TranscriptEntry> {
    let v = |v| validate_entry(v, &EntryLimits::default()).unwrap();
    match line.chars().next() {
        Some('+') => vec![v(
            json!({"kind":"assistant","ts":ts,"text":&line[1..],"delta":true}),
        )],
        Some('~') => vec![v(
            json!({"kind":"thinking","ts":ts,"text":&line[1..],"delta":true}),
        )],
        Some('2') => vec![
            v(json!({"kind":"assistant","ts":ts,"text":"a","delta":true})),
            v(json!({"kind":"system","ts":ts,"text":line})),
        ],
        _ => vec![v(json!({"kind":"stdout","ts":ts,"text":line}))],
    }
}

/// Answers at once, or later for the lines `mask` picks (in turn, cycling).
struct Masked {
    mask: Vec<bool>,
    n: Cell<usize>,
}

impl LineParser for Masked {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(answer(line, ts))
    }
    fn answers_later(&self) -> bool {
        let n = self.n.get() + 1;
        self.n.set(n);
        self.mask[n % self.mask.len()]
    }
}

fn opts() -> TranscriptOptions {
    TranscriptOptions {
        track_lines: true,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn late_answers_in_any_order_give_the_immediate_transcript(
        lines in prop::collection::vec(prop::sample::select(vec!["+a", "+b", "~t", "2x", "plain", "+c", "~u", "err"]), 1..40),
        defer_mask in prop::collection::vec(any::<bool>(), 40),
        order_seed in any::<u64>(),
    ) {
        // "err" lines go to stderr chunks in between, which never merge.
        let mut chunks = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let ts = format!("t{i}");
            if *l == "err" { chunks.push(Chunk::stderr(&ts, "oops")); } else { chunks.push(Chunk::stdout(&ts, &format!("{l}\n"))); }
        }
        let mut direct = TranscriptBuilder::new(|l: &str, ts: &str| Ok::<_, LineFailure>(answer(l, ts)), opts());
        for c in &chunks { direct.push(c); }

        let mut late = TranscriptBuilder::new(Masked { mask: defer_mask, n: Cell::new(0) }, opts());
        for c in &chunks { late.push(c); }
        let mut pending = late.take_deferred();
        prop_assert_eq!(late.lines_fallen_back(), 0, "deferred lines are not failures");
        // Answer in a shuffled order, some in batches (as a frame's worth from a worker).
        let mut s = order_seed;
        while !pending.is_empty() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let d = pending.remove((s >> 33) as usize % pending.len());
            if s % 3 == 0 && !pending.is_empty() {
                let e = pending.remove(0);
                let changed = late.replace_lines(vec![(d.item, answer(&d.line, &d.ts)), (e.item, answer(&e.line, &e.ts))]);
                prop_assert!(changed.end == late.entries().len());
            } else {
                let changed = late.replace_line(d.item, answer(&d.line, &d.ts));
                prop_assert!(changed.end == late.entries().len());
            }
        }
        prop_assert_eq!(late.entries(), direct.entries());
    }
}

#[test]
fn a_deferred_line_shows_the_generic_entry_until_answered() {
    let later = Masked {
        mask: vec![true],
        n: Cell::new(0),
    };
    let mut b = TranscriptBuilder::new(later, opts());
    b.push(&Chunk::stdout("t1", "+Hel\n+lo\n"));
    assert_eq!(
        b.entries().iter().map(|e| e.kind()).collect::<Vec<_>>(),
        vec!["stdout", "stdout"]
    );
    let d = b.take_deferred();
    assert_eq!(d.len(), 2);
    // The second answer arrives first: it cannot merge with a still-generic line.
    assert_eq!(b.replace_line(d[1].item, answer("+lo", "t1")), 1..2);
    // Then the first: the two deltas merge, and entry 1 disappears into entry 0.
    assert_eq!(b.replace_line(d[0].item, answer("+Hel", "t1")), 0..1);
    assert_eq!(b.entries().len(), 1);
    let history: Vec<_> = b.line_history().collect();
    assert_eq!(history, vec![("+Hel", "t1"), ("+lo", "t1")]);
    assert_eq!(b.entries()[0].text(), Some("Hello"));
    // After a rebuild, old item numbers belong to an older generation.
    let g = b.generation();
    b.rebuild();
    assert_eq!(b.generation(), g + 1);
}
