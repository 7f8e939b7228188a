//! What one push costs the core with a timeline, as the wasm binding does it: a run of LINES
//! lines (the timeline_cost example's coding-agent cycle), one line per push, through a
//! `TranscriptBuilder` that keeps its lines, the timeline following each change with the
//! builder's entry origins, and the items each update names looked up to be sent. With
//! `index`, the origins are the entries' indices instead (to see what the origins cost).
//!
//! ```sh
//! cargo build --release -p parsebox-timeline --example push_cost
//! valgrind --tool=callgrind target/release/examples/push_cost 20000 [builder|index]
//! ```

use std::time::Instant;

use parsebox_timeline::Timeline;
use parsebox_transcript::{Chunk, EntryOrigin, TranscriptBuilder, TranscriptOptions};

#[path = "common/agent_run.rs"]
mod agent_run;

use agent_run::{line, parse};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let by_index = args.next().as_deref() == Some("index");
    let chunks: Vec<Chunk> = (0..n)
        .map(|i| Chunk::stdout("2026-01-01T00:00:00.000Z", &format!("{}\n", line(i))))
        .collect();
    let options = TranscriptOptions {
        track_lines: true,
        ..TranscriptOptions::default()
    };
    let mut builder = TranscriptBuilder::new(parse, options);
    let mut timeline = Timeline::new();
    let mut named = 0;
    let started = Instant::now();
    for chunk in &chunks {
        let changed = builder.push(chunk);
        let update = if by_index {
            timeline.update_keeping_tail(builder.entries(), changed, &EntryOrigin::of_index)
        } else {
            timeline.update_keeping_tail(builder.entries(), changed, &|i| builder.entry_origin(i))
        };
        named += timeline.items_named(&update.changed).len();
        named += timeline.items_named(&update.added).len();
    }
    println!(
        "{n} pushes ({} origins): {:.0?}; {} items, {named} sent",
        if by_index { "index" } else { "builder" },
        started.elapsed(),
        timeline.items().len()
    );
}
