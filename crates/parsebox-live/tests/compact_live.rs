//! A transcript that keeps its final entries compactly (the builder's frozen prefix, and with
//! a timeline the timeline's) hands the page what one that keeps them live does. Three pages
//! run the same generated calls (chunks of plain, parsed, streamed, blank, user and partial
//! lines, late answers at frames, redaction turned on and off, rebuilds, a window of chunks, a
//! finish): a reference transcript that freezes nothing (a timeline beside a window of chunks
//! too large to drop any: that keeps everything live), a compact one with its timeline and a
//! compact one without. After every call each page's copy, built only from the changes it was
//! handed, equals its transcript's entries and the reference's; every side was handed the same
//! changes; and the timelines (whole, and each change with its texts resolved against the
//! page's copy, as `builder.js` resolves them) are the reference's.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::rc::Rc;

use common::page::*;
use common::rng::Rng;
use common::FakeExecutor;
use parsebox_live::{Changes, LiveTranscript, TranscriptSettings, Update};
use parsebox_timeline::shared_text::resolve;
use parsebox_timeline::TimelineItem;
use parsebox_transcript::{Chunk, Stream, TranscriptEntry};
use serde_json::{json, Value};

/// What the Worker makes of a line: `d…` a streamed delta, `n…` two entries, `s…` the line
/// as a plain stdout entry (not a slice of the chunk), `u…` a user message, `c…` a tool call and
/// `r…` its result (by the digit), others one assistant entry.
fn answer(_: u64, line: &str) -> serde_json::Value {
    let entry = |kind: &str, text: &str| json!({ "kind": kind, "ts": "t", "text": text });
    let id = line.get(1..2).unwrap_or("0");
    let entries = match line.as_bytes().first() {
        Some(b'd') => vec![json!({ "kind": "assistant", "ts": "t", "text": line, "delta": true })],
        Some(b'n') => vec![entry("thinking", line), entry("assistant", line)],
        Some(b's') => vec![entry("stdout", line)],
        Some(b'u') => vec![entry("user", line)],
        Some(b'c') => vec![
            json!({ "kind": "tool_call", "ts": "t", "name": "Bash", "input": { "c": line }, "toolUseId": id }),
        ],
        Some(b'r') => vec![
            json!({ "kind": "tool_result", "ts": "t", "toolUseId": id, "content": line, "isError": false }),
        ],
        _ => vec![entry("assistant", &format!("w:{line}"))],
    };
    json!({ "Ok": entries })
}

/// A line: plain text, a home path, a delta, blank.
fn line(rng: &mut Rng) -> String {
    match rng.below(10) {
        7 => format!("u{}", rng.below(10)),
        8 => format!("c{}", rng.below(4)),
        9 => format!("r{}", rng.below(4)),
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

/// What one call handed the page: dropped, from, length and the entries, then the timeline's
/// change (its items' texts resolved against the page's copy), when it keeps one.
type Seen = (usize, usize, usize, Vec<TranscriptEntry>, Option<Value>);

/// The timeline's change as the page reads it: each item's shared texts put back from `copy`.
fn resolved(timeline: Option<Value>, copy: &[TranscriptEntry]) -> Option<Value> {
    let mut timeline = timeline?;
    for list in ["changed", "added"] {
        for item in timeline[list].as_array_mut().unwrap() {
            assert!(resolve(item, copy), "a shared text names the page's entry");
        }
    }
    Some(timeline)
}

struct Side {
    page: Page,
    t: LiveTranscript<FakeExecutor>,
    copy: Vec<TranscriptEntry>,
    /// What the last call and its frames handed over.
    seen: Vec<Seen>,
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

    /// The page takes a change.
    fn take(&mut self, (dropped, from, length, entries, timeline): Seen) {
        let changes = Changes {
            dropped,
            from,
            length,
            entries: entries.into(),
        };
        apply(&mut self.copy, &changes);
        let timeline = resolved(timeline, &self.copy);
        self.seen
            .push((dropped, from, length, changes.entries.to_vec(), timeline));
    }

    /// One call, then the page's frames.
    fn call(&mut self, op: &Op) {
        self.seen.clear();
        let seen = self.t.metered(|t| match op {
            Op::Push(c) => key(&t.push(c, None).unwrap()),
            Op::Redact(on) => key(&t.set_redact_home_paths(*on)),
            Op::Rebuild => {
                let c = t.rebuild(false);
                (c.dropped, c.from, c.length, c.entries.to_vec(), None)
            }
            Op::Finish => key(&t.finish()),
        });
        self.take(seen);
        let mut updates = Vec::new();
        self.page.drive_with(&mut self.t, |u| updates.push(key(u)));
        for seen in updates {
            self.take(seen);
        }
    }

    /// The whole timeline, when it keeps one.
    fn timeline(&self) -> Option<Vec<TimelineItem>> {
        let items = self.t.timeline_items().ok()?;
        Some(items.into_iter().map(|i| i.into_owned()).collect())
    }
}

/// What an update hands over, its timeline as JSON.
fn key(u: &Update<'_>) -> Seen {
    let c = &u.changes;
    let timeline = u
        .timeline
        .as_ref()
        .map(|t| serde_json::to_value(t).unwrap());
    (c.dropped, c.from, c.length, c.entries.to_vec(), timeline)
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
    // A window too large to drop a chunk keeps everything live.
    let mut reference = Side::new(&placed, true, max_chunks.or(Some(1e9)));
    let mut with_timeline = Side::new(&placed, true, max_chunks);
    let mut without = Side::new(&placed, false, max_chunks);
    let calls = 4 + rng.below(30);
    for call in 0..=calls {
        let op = if call == calls {
            Op::Finish
        } else {
            match rng.below(14) {
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
            }
        };
        for side in [&mut reference, &mut with_timeline, &mut without] {
            side.call(&op);
        }
        let what =
            format!("seed {seed} ({placed:?}, max_chunks {max_chunks:?}), call {call}: {op:?}");
        let entries = reference.t.entries().to_vec();
        assert_eq!(reference.copy, entries, "the reference's copy: {what}");
        for (name, side) in [("with its timeline", &with_timeline), ("without", &without)] {
            assert_eq!(*side.t.entries(), entries, "{name}: {what}");
            assert_eq!(side.copy, entries, "{name}, the page's copy: {what}");
            assert_eq!(
                side.t.counts().dropped_entries,
                reference.t.counts().dropped_entries
            );
        }
        let strip = |seen: &[Seen]| -> Vec<Seen> {
            seen.iter()
                .map(|(d, f, l, e, _)| (*d, *f, *l, e.clone(), None))
                .collect()
        };
        assert_eq!(
            strip(&without.seen),
            strip(&reference.seen),
            "the changes handed over: {what}"
        );
        assert_eq!(
            with_timeline.seen, reference.seen,
            "the changes and timeline changes: {what}"
        );
        assert_eq!(
            with_timeline.timeline(),
            reference.timeline(),
            "the timeline: {what}"
        );
    }
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
