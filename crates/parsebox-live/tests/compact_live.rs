//! A transcript that keeps its final entries compactly (one made with `timeline: false`: the
//! builder's frozen prefix) hands the page what one that keeps them live does. Two pages run
//! the same generated calls (chunks of plain, parsed, streamed, blank and partial lines, late
//! answers at frames, redaction turned on and off, rebuilds, a window of chunks, a finish),
//! one transcript made with the timeline (no frozen prefix) and one without; after every call
//! the page's copy of the compact one, built only from the changes it was handed, equals its
//! entries and the live one's, and both were handed the same changes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::rc::Rc;

use common::page::*;
use common::FakeExecutor;
use parsebox_live::{Changes, LiveTranscript, TranscriptSettings};
use parsebox_transcript::{Chunk, Stream, TranscriptEntry};
use serde_json::json;

/// A small deterministic generator (xorshift64*): every case is its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// What the Worker makes of a line: `d…` a streamed delta, `n…` two entries, `s…` the line
/// as a plain stdout entry (not a slice of the chunk), others one assistant entry.
fn answer(_: u64, line: &str) -> serde_json::Value {
    let entry = |kind: &str, text: &str| json!({ "kind": kind, "ts": "t", "text": text });
    let entries = match line.as_bytes().first() {
        Some(b'd') => vec![json!({ "kind": "assistant", "ts": "t", "text": line, "delta": true })],
        Some(b'n') => vec![entry("thinking", line), entry("assistant", line)],
        Some(b's') => vec![entry("stdout", line)],
        _ => vec![entry("assistant", &format!("w:{line}"))],
    };
    json!({ "Ok": entries })
}

/// A line: plain text, a home path, a delta, blank.
fn line(rng: &mut Rng) -> String {
    match rng.below(7) {
        0 => String::new(),
        1 => "  ".to_owned(),
        2 => format!("d{}", rng.below(10)),
        3 => format!("n{}", rng.below(10)),
        4 => format!("s /Users/alice/{}", rng.below(10)),
        5 => format!("p /home/bob/{}", rng.below(10)),
        _ => "x".repeat(1 + rng.below(40) as usize),
    }
}

/// What the page keeps of a transcript: its copy of the entries, changed as `builder.js`
/// changes it.
fn apply(copy: &mut Vec<TranscriptEntry>, changes: &Changes<'_>) {
    copy.drain(..changes.dropped.min(copy.len()));
    // The entries after the changed ones are the last the page holds already.
    let kept = changes.length - changes.from - changes.entries.len();
    let tail: Vec<TranscriptEntry> = copy[copy.len() - kept..].to_vec();
    copy.truncate(changes.from);
    copy.extend_from_slice(&changes.entries);
    copy.extend(tail);
    assert_eq!(copy.len(), changes.length);
}

/// The comparable part of a change: dropped, from, length and the entries.
fn key(c: &Changes<'_>) -> (usize, usize, usize, Vec<TranscriptEntry>) {
    (c.dropped, c.from, c.length, c.entries.to_vec())
}

struct Side {
    page: Page,
    t: LiveTranscript<FakeExecutor>,
    copy: Vec<TranscriptEntry>,
    /// The changes handed over by the last call and its frames.
    seen: Vec<(usize, usize, usize, Vec<TranscriptEntry>)>,
}

impl Side {
    fn new(placed: &Placed, timeline: bool, max_chunks: Option<f64>) -> Self {
        let page = page(placed);
        let t = page.transcript(TranscriptSettings {
            timeline: Some(timeline),
            max_chunks,
            ..TranscriptSettings::default()
        });
        Self {
            page,
            t,
            copy: Vec::new(),
            seen: Vec::new(),
        }
    }

    /// One call, then the page's frames.
    fn call(&mut self, op: &Op) {
        self.seen.clear();
        let update = self.t.metered(|t| match op {
            Op::Push(c) => t.push(c, None).map(|u| key(&u.changes)).unwrap(),
            Op::Redact(on) => key(&t.set_redact_home_paths(*on).changes),
            Op::Rebuild => key(&t.rebuild(false)),
            Op::Finish => key(&t.finish().changes),
        });
        let changes = Changes {
            dropped: update.0,
            from: update.1,
            length: update.2,
            entries: update.3.into(),
        };
        apply(&mut self.copy, &changes);
        self.seen.push(key(&changes));
        let mut updates = Vec::new();
        self.page
            .drive_with(&mut self.t, |u| updates.push(key(&u.changes)));
        for (dropped, from, length, entries) in updates {
            let c = Changes {
                dropped,
                from,
                length,
                entries: entries.into(),
            };
            apply(&mut self.copy, &c);
            self.seen.push(key(&c));
        }
    }
}

#[derive(Debug)]
enum Op {
    Push(Chunk),
    Redact(bool),
    Rebuild,
    Finish,
}

fn run_case(seed: u64) {
    let mut rng = Rng(seed | 1);
    let placed = match rng.below(3) {
        0 => Placed::Nowhere,
        1 => Placed::Inline,
        _ => Placed::Worker("mixed", Rc::new(answer)),
    };
    let max_chunks = (rng.below(3) == 0).then(|| (1 + rng.below(4)) as f64);
    let mut live = Side::new(&placed, true, max_chunks);
    let mut compact = Side::new(&placed, false, max_chunks);
    let calls = 4 + rng.below(30);
    for call in 0..calls {
        let op = match rng.below(14) {
            0 => Op::Redact(rng.below(2) == 0),
            1 => Op::Rebuild,
            _ => {
                let stream = match rng.below(10) {
                    0 => Stream::Stderr,
                    1 => Stream::System,
                    _ => Stream::Stdout,
                };
                let mut text = String::new();
                for _ in 0..rng.below(12) {
                    text.push_str(&line(&mut rng));
                    text.push('\n');
                }
                if rng.below(3) == 0 {
                    text.push_str(&line(&mut rng));
                }
                Op::Push(Chunk {
                    ts: format!("t{call}"),
                    stream,
                    chunk: text,
                    seq: None,
                })
            }
        };
        live.call(&op);
        compact.call(&op);
        let what =
            format!("seed {seed} ({placed:?}, max_chunks {max_chunks:?}), call {call}: {op:?}");
        assert_eq!(*compact.t.entries(), *live.t.entries(), "{what}");
        assert_eq!(
            compact.copy,
            *compact.t.entries(),
            "the page's copy: {what}"
        );
        assert_eq!(compact.seen, live.seen, "the changes handed over: {what}");
        assert_eq!(
            compact.t.counts().dropped_entries,
            live.t.counts().dropped_entries
        );
    }
    live.call(&Op::Finish);
    compact.call(&Op::Finish);
    assert_eq!(
        *compact.t.entries(),
        *live.t.entries(),
        "seed {seed}: finished"
    );
    assert_eq!(compact.copy, *compact.t.entries(), "seed {seed}: finished");
}

#[test]
fn a_compact_transcript_hands_the_page_what_a_live_one_does() {
    let seeds: u64 = std::env::var("PARSEBOX_COMPACT_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for seed in 0..seeds {
        run_case(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5eed);
    }
}
