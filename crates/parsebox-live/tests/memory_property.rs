//! The memory budget over generated input: random line shapes (empty, one character, short,
//! long, very long), chunkings, streams, parser placements and answers (none, many small
//! entries, long texts, dense tool inputs, streamed deltas), under random budgets. After every
//! call the transcript's real bytes (this binary installs the counting allocator, as the core
//! module does) stay within its budget and one answer, `counts().heldBytes` says what they are
//! (the registry's memo of answers apart: the core's, counted by itself), and nothing panics,
//! which in the core module would be a trap.
//!
//! A few dozen cases run with `cargo test`. The long run, for as many minutes as asked:
//!
//! ```sh
//! PARSEBOX_MEMORY_MINUTES=60 cargo test --release -p parsebox-live --test memory_property -- --nocapture
//! ```
//!
//! A failure prints its seed; `PARSEBOX_MEMORY_SEED=<seed>` runs that case alone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::rc::Rc;
use std::time::{Duration, Instant};

use common::page::*;
use common::rng::Rng;
use parsebox_host::HostOptions;
use parsebox_live::memory::CALL_SLACK_BYTES;
use parsebox_live::TranscriptSettings;
use parsebox_meter::{Counting, Meter};
use parsebox_transcript::{Chunk, Stream};
use serde_json::json;

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting::new(std::alloc::System);

/// A line of one of the shapes real logs have.
fn line(rng: &mut Rng) -> String {
    let len = rng.pick(&[0usize, 1, 1, 34, 34, 120, 300, 2_000, 40_000]);
    let c = rng.pick(&['a', 'x', 'é', '→', '🚀']);
    std::iter::repeat_n(c, len).collect()
}

/// How a generated Worker answers: the shape is the seed's, each line's answer the same.
fn answers(rng: &mut Rng) -> (&'static str, Answers) {
    match rng.below(5) {
        0 => ("one", Rc::new(one)),
        1 => ("many", many(1 + rng.below(200) as usize)),
        2 => ("dense", dense(1 + rng.below(60_000) as u32)),
        3 => {
            let len = 1 + rng.below(300_000) as usize;
            let answers: Answers = Rc::new(
                move |_, line: &str| json!({ "Ok": [{ "kind": "assistant", "ts": "t", "text": "y".repeat(len) + line }] }),
            );
            ("long text", answers)
        }
        _ => {
            // Streamed deltas: each line's answer merges into the one before.
            let answers: Answers = Rc::new(|seq, line: &str| {
                let text = format!("{seq}:{line} ");
                json!({ "Ok": [{ "kind": "assistant", "ts": "t", "text": text, "delta": true }] })
            });
            ("deltas", answers)
        }
    }
}

/// The most a type's memo holds (`parsebox_host`'s `MEMO_BYTES`) and one answer past it.
const MEMO_BYTES_MOST: usize = (16 << 20) + ONE_ANSWER_BYTES;

/// The largest answer a case's Worker gives, as the core may hold it past the budget once.
const ONE_ANSWER_BYTES: usize = 8 << 20;

fn run_case(seed: u64) {
    let mut rng = Rng(seed | 1);
    let placed = match rng.below(3) {
        0 => Placed::Nowhere,
        1 => Placed::Inline,
        _ => {
            let (name, answers) = answers(&mut rng);
            Placed::Worker(name, answers)
        }
    };
    let budget = (1 + rng.below(24) as usize) << 20;
    let timeline = rng.below(4) != 0;
    let page = page_with(&placed, HostOptions::default());
    let meter = Meter::start();
    let mut t = page.transcript(TranscriptSettings {
        max_transcript_bytes: Some(budget as f64),
        timeline: Some(timeline),
        max_chunks: (rng.below(4) == 0).then(|| (1 + rng.below(50)) as f64),
        ..TranscriptSettings::default()
    });
    let calls = 10 + rng.below(80);
    for call in 0..calls {
        let stream = match rng.below(12) {
            0 => Stream::Stderr,
            1 => Stream::System,
            _ => Stream::Stdout,
        };
        let lines = 1 + rng.below(3_000) as usize;
        let mut text = String::new();
        while text.len() < 256 << 10 && text.matches('\n').count() < lines {
            text.push_str(&line(&mut rng));
            text.push('\n');
        }
        // Some chunks end mid-line.
        if rng.below(3) == 0 {
            text.push_str(&line(&mut rng));
        }
        let c = Chunk {
            stream,
            ..chunk(text)
        };
        let pushed = t.metered(|t| t.push(&c, None).map(|_| ()));
        drop(c);
        page.drive(&mut t);
        // The registry's memo (answers remembered for a re-render) is the core's, not the
        // transcript's: its real bytes are told apart.
        let memo = page.core.enter().unwrap().host().memo_bytes();
        let real = usize::try_from(meter.held())
            .unwrap_or(0)
            .saturating_sub(memo);
        let counted = t.counts().held_bytes;
        let what = format!(
            "seed {seed} ({placed:?}, budget {budget}, timeline {timeline}), call {call}: real {real} (memo {memo} besides), counted {counted}, {pushed:?}"
        );
        assert!(memo <= MEMO_BYTES_MOST, "{what}");
        assert!(
            real <= budget + ONE_ANSWER_BYTES + CALL_SLACK_BYTES,
            "{what}"
        );
        assert!(
            counted.abs_diff(real) <= real / 20 + (64 << 10),
            "heldBytes is what the transcript holds: {what}"
        );
        if rng.below(10) == 0 {
            t.metered(|t| {
                t.finish();
            });
        }
        if rng.below(15) == 0 {
            t.metered(|t| {
                t.rebuild(false);
            });
            page.drive(&mut t);
        }
    }
    drop(t);
    let _ = page.seen.borrow();
}

fn seeds() -> Box<dyn Iterator<Item = u64>> {
    if let Some(seed) = std::env::var("PARSEBOX_MEMORY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return Box::new(std::iter::once(seed));
    }
    let minutes: u64 = std::env::var("PARSEBOX_MEMORY_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    let base = 0x5eed_0054_u64;
    if minutes == 0 {
        return Box::new((0..24).map(move |i| base + i));
    }
    let until = Instant::now() + Duration::from_secs(minutes * 60);
    Box::new(
        (0..)
            .map(move |i| base + i)
            .take_while(move |_| Instant::now() < until),
    )
}

#[test]
fn no_generated_input_takes_a_transcript_past_its_budget_and_held_bytes_are_the_real_figure() {
    let mut cases = 0;
    let long = std::env::var_os("PARSEBOX_MEMORY_MINUTES").is_some();
    for seed in seeds() {
        if long {
            eprintln!("seed {seed}");
        }
        run_case(seed);
        cases += 1;
    }
    eprintln!("{cases} generated cases");
}
