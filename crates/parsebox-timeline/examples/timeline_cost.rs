//! What the timeline adds to building a transcript: a 100,000-line run (tool calls with ids,
//! results, diff lines, streamed assistant deltas, system and stdout lines) pushed one line per
//! chunk through a `TranscriptBuilder` with a native JSON line parser, with and without a
//! `Timeline::update` after every push.
//!
//! ```sh
//! cargo run --release -p parsebox-timeline --example timeline_cost [-- LINES]
//! ```
//!
//! The native parser is far cheaper than a sandboxed one, so the percentage printed is an upper
//! bound of what the timeline adds to the transcript's main-thread time.

use std::time::{Duration, Instant};

use parsebox_timeline::Timeline;
use parsebox_transcript::{Chunk, TranscriptBuilder, TranscriptOptions};

#[path = "common/agent_run.rs"]
mod agent_run;

use agent_run::{line, parse};

/// Total time, time inside the timeline's calls, entries, items.
fn run(chunks: &[Chunk], with_timeline: bool) -> (Duration, Duration, usize, usize) {
    let mut builder = TranscriptBuilder::new(parse, TranscriptOptions::default());
    let mut timeline = Timeline::new();
    let mut in_timeline = Duration::ZERO;
    let started = Instant::now();
    for chunk in chunks {
        let changed = builder.push(chunk);
        if with_timeline {
            let t = Instant::now();
            timeline.update(builder.entries(), changed);
            in_timeline += t.elapsed();
        }
    }
    let changed = builder.finish();
    if with_timeline {
        let t = Instant::now();
        timeline.update(builder.entries(), changed);
        timeline.finish();
        in_timeline += t.elapsed();
    }
    (
        started.elapsed(),
        in_timeline,
        builder.entries().len(),
        timeline.items().len(),
    )
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let chunks: Vec<Chunk> = (0..n)
        .map(|i| {
            let ts = format!("2026-01-01T00:00:{:02}.000Z", i % 60);
            Chunk::stdout(&ts, &format!("{}\n", line(i)))
        })
        .collect();
    let best = |with: bool| {
        (0..7)
            .map(|_| run(&chunks, with))
            .min_by_key(|r| r.0)
            .unwrap_or_default()
    };
    let (plain, _, entries, _) = best(false);
    let (with, inside, _, items) = best(true);
    let scratch = {
        let mut builder = TranscriptBuilder::new(parse, TranscriptOptions::default());
        for chunk in &chunks {
            builder.push(chunk);
        }
        builder.finish();
        let started = Instant::now();
        let timeline = Timeline::from_entries(builder.entries(), true);
        (started.elapsed(), timeline.items().len())
    };
    let pct = |d: Duration| d.as_secs_f64() / plain.as_secs_f64() * 100.0;
    println!("{n} lines → {entries} entries → {items} timeline items (best of 7)");
    println!("transcript alone (native JSON parser): {plain:.2?}");
    println!(
        "transcript + an update per push:       {with:.2?} (+{:.1} %); inside Timeline calls {inside:.2?} ({:.1} %)",
        pct(with.saturating_sub(plain)),
        pct(inside)
    );
    println!(
        "Timeline::from_entries alone:          {:.2?} ({} items)",
        scratch.0, scratch.1
    );
}
