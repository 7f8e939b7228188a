//! Late answers: a line shown with its generic entry and answered later (by a parser running
//! in a Worker) ends in exactly the transcript an immediate answer would have given.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    generic_entry, validate_entry, Chunk, EntryLimits, EntryOrigin, LineAnswer, LineFailure,
    LineParser, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
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

/// Answers at once, or later for the lines `mask` picks (in turn, cycling); the lines answered
/// later wait in `pending` as (token, line, ts).
struct Masked {
    mask: Vec<bool>,
    n: usize,
    pending: Vec<(u64, String, String)>,
}

impl Masked {
    fn new(mask: Vec<bool>) -> Self {
        Self {
            mask,
            n: 0,
            pending: Vec::new(),
        }
    }
}

impl LineParser for Masked {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(answer(line, ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        self.n += 1;
        if !self.mask[self.n % self.mask.len()] {
            return LineAnswer::Now(self.parse_line(line, ts));
        }
        let token = 1000 + self.n as u64;
        self.pending.push((token, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token,
            provisional: vec![generic_entry(line, ts)],
        }
    }
}

/// What a view that held `before` shows after taking in a change to `changed`: its entries
/// before `changed.start`, the changed ones from `now`, then as many of its last entries as
/// follow `changed.end` in `now` (a bounded refold keeps them as they were).
fn mirrored(
    before: &[TranscriptEntry],
    now: &[TranscriptEntry],
    changed: std::ops::Range<usize>,
) -> Vec<TranscriptEntry> {
    let kept = now.len() - changed.end;
    let mut view = before[..changed.start].to_vec();
    view.extend_from_slice(&now[changed.clone()]);
    view.extend_from_slice(&before[before.len() - kept..]);
    view
}

/// Every entry's origin.
fn origins<P: LineParser>(b: &TranscriptBuilder<P>) -> Vec<EntryOrigin> {
    (0..b.entries().len()).map(|i| b.entry_origin(i)).collect()
}

/// An answer to `changed` (entries `before` → `now`) moved no other entry's origin: the
/// entries before the range and the kept ones after it came from where they did.
fn assert_origins_held(
    before: &[EntryOrigin],
    now: &[EntryOrigin],
    changed: std::ops::Range<usize>,
) {
    assert_eq!(before[..changed.start], now[..changed.start]);
    let kept = now.len() - changed.end;
    assert_eq!(before[before.len() - kept..], now[changed.end..]);
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

        let mut late = TranscriptBuilder::new(Masked::new(defer_mask), opts());
        for c in &chunks { late.push(c); }
        let mut pending = std::mem::take(&mut late.parser_mut().pending);
        prop_assert_eq!(late.lines_fallen_back(), 0, "deferred lines are not failures");
        // Answer in a shuffled order, some in batches (as a frame's worth from a worker).
        let mut s = order_seed;
        while !pending.is_empty() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let d = pending.remove((s >> 33) as usize % pending.len());
            if s % 3 == 0 && !pending.is_empty() {
                let e = pending.remove(0);
                let (before, from) = (late.entries().to_vec(), origins(&late));
                let changed = late.replace_answers(vec![(d.0, answer(&d.1, &d.2)), (e.0, answer(&e.1, &e.2))]);
                prop_assert_eq!(mirrored(&before, late.entries(), changed.clone()), late.entries());
                assert_origins_held(&from, &origins(&late), changed);
            } else {
                let (before, from) = (late.entries().to_vec(), origins(&late));
                let changed = late.replace_answers(vec![(d.0, answer(&d.1, &d.2))]);
                prop_assert_eq!(mirrored(&before, late.entries(), changed.clone()), late.entries());
                assert_origins_held(&from, &origins(&late), changed);
            }
        }
        prop_assert_eq!(late.entries(), direct.entries());
        prop_assert_eq!(origins(&late), origins(&direct));
        // Asked in any order, the same answers (the builder looks near its last answer first).
        let mut backwards: Vec<EntryOrigin> = (0..late.entries().len()).rev().map(|i| late.entry_origin(i)).collect();
        backwards.reverse();
        prop_assert_eq!(backwards, origins(&late));
    }
}

#[test]
fn a_deferred_line_shows_the_generic_entry_until_answered() {
    let mut b = TranscriptBuilder::new(Masked::new(vec![true]), opts());
    b.push(&Chunk::stdout("t1", "+Hel\n+lo\n"));
    assert_eq!(
        b.entries().iter().map(|e| e.kind()).collect::<Vec<_>>(),
        vec!["stdout", "stdout"]
    );
    let d = std::mem::take(&mut b.parser_mut().pending);
    assert_eq!(d.len(), 2);
    // The second answer arrives first: it cannot merge with a still-generic line.
    assert_eq!(b.replace_answers(vec![(d[1].0, answer("+lo", "t1"))]), 1..2);
    // Then the first: the two deltas merge, and entry 1 disappears into entry 0.
    assert_eq!(
        b.replace_answers(vec![(d[0].0, answer("+Hel", "t1"))]),
        0..1
    );
    // A token answered already changes nothing.
    assert_eq!(b.replace_answers(vec![(d[0].0, answer("x", "t1"))]), 1..1);
    assert_eq!(b.entries().len(), 1);
    assert_eq!(b.entries()[0].text(), Some("Hello"));
    // After a rebuild, the tokens of before it change nothing.
    b.rebuild();
    b.push(&Chunk::stdout("t2", "+again\n"));
    assert_eq!(
        b.replace_answers(vec![(d[1].0, answer("stale", "t1"))]),
        1..1
    );
    assert_eq!(b.entries()[0].text(), Some("+again"));
}

#[test]
fn an_answer_changes_its_own_entries_not_the_lines_still_waiting_after_it() {
    // Every line waits for its answer; a worker answers the first two of 1,000.
    let mut b = TranscriptBuilder::new(Masked::new(vec![true]), opts());
    let log: String = (0..1000).map(|i| format!("line{i}\n")).collect();
    b.push(&Chunk::stdout("t1", &log));
    let d = std::mem::take(&mut b.parser_mut().pending);
    // A parser's answer that differs from the generic entry (two entries for the line).
    let changed = b.replace_answers(vec![
        (d[0].0, answer("2x", "t1")),
        (d[1].0, answer("line1", "t1")),
    ]);
    assert_eq!(
        changed,
        0..3,
        "the 998 lines still waiting are not handed over again"
    );
    assert_eq!(b.entries().len(), 1001);
    assert_eq!(b.entries()[3].text(), Some("line2"));
    // Each entry is still named by the line that made it, whatever its index now.
    let named = |i: usize| b.entry_origin(i).to_string();
    assert_eq!(
        [named(0), named(1), named(2), named(3)],
        ["e0", "e0.1", "e1", "e2"]
    );
    assert_eq!(named(1000), "e999");
    // A delta answer stays open to merges: the fold goes on to the entry that closes it.
    let changed = b.replace_answers(vec![(d[3].0, answer("+a", "t1"))]);
    assert_eq!(changed, 4..6);
    // Two deltas merge: one entry fewer, and the waiting lines after them keep their entries.
    let changed = b.replace_answers(vec![(d[2].0, answer("+b", "t1"))]);
    assert_eq!(changed, 3..5);
    assert_eq!(b.entries().len(), 1000);
    assert_eq!(b.entries()[3].text(), Some("ba"));
    assert_eq!(b.entries()[4].text(), Some("line4"));
    assert_eq!(b.entries()[999].text(), Some("line999"));
}

#[test]
fn origins_count_from_the_run_start_through_a_window_and_a_rebuild() {
    let direct = |l: &str, ts: &str| Ok::<_, LineFailure>(answer(l, ts));
    let mut b = TranscriptBuilder::new(
        direct,
        TranscriptOptions {
            track_lines: true,
            retain_chunks: true,
            max_chunks: Some(3),
            ..Default::default()
        },
    );
    // Line 4 makes two entries; line 5 is an assistant delta that line 6's merges into.
    for (i, line) in ["a", "b", "c", "d", "2x", "+p", "+q", "e", "f", "g"]
        .iter()
        .enumerate()
    {
        b.push(&Chunk::stdout(&format!("t{i}"), &format!("{line}\n")));
    }
    let named = |b: &TranscriptBuilder<_>| {
        (0..b.entries().len())
            .map(|i| b.entry_origin(i).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(b.counts().dropped_chunks, 7);
    assert_eq!(named(&b), ["e7", "e8", "e9"]);
    b.rebuild();
    assert_eq!(
        named(&b),
        ["e7", "e8", "e9"],
        "a rebuild re-parses the same lines"
    );

    let mut whole = TranscriptBuilder::new(direct, opts());
    for (i, line) in ["a", "b", "c", "d", "2x", "+p", "+q", "e"]
        .iter()
        .enumerate()
    {
        whole.push(&Chunk::stdout(&format!("t{i}"), &format!("{line}\n")));
    }
    // "2x" starts an assistant delta ("a") and a system entry; "+p" and "+q" one merged entry.
    assert_eq!(
        named(&whole),
        ["e0", "e1", "e2", "e3", "e4", "e4.1", "e5", "e7"]
    );
}
