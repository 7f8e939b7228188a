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
use parsebox_transcript::{
    Chunk, EntryOrigin, LineFailure, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use serde_json::{json, Value};

fn parse(line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    let entry = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|mut v| {
            v.as_object_mut()?.insert("ts".to_owned(), json!(ts));
            serde_json::from_value(v).ok()
        })
        .unwrap_or_else(|| TranscriptEntry::stdout(ts, line));
    Ok(vec![entry])
}

/// Line `i`: a cycle of twenty lines that looks like a coding agent's turn.
fn line(i: usize) -> String {
    let id = format!("c{}", i / 20);
    let v = match i % 20 {
        0 => json!({"kind": "user", "text": "next step"}),
        1..=5 => json!({"kind": "assistant", "text": "some streamed words ", "delta": true}),
        6 => json!({"kind": "tool_call", "name": "Edit", "toolUseId": id,
                    "input": {"file_path": "src/lib.rs", "old": "a", "new": "b"}}),
        7..=12 => json!({"kind": "diff", "changeType": "add", "text": "+ let x = 1;"}),
        13 => json!({"kind": "tool_result", "toolUseId": id, "content": "ok", "isError": false}),
        14 => json!({"kind": "tool_call", "name": "Bash", "toolUseId": format!("{id}b"),
                     "input": {"command": "cargo test"}}),
        15 => json!({"kind": "system", "text": "running"}),
        16 => json!({"kind": "tool_result", "toolUseId": format!("{id}b"),
                     "content": "test result: ok", "isError": i % 40 == 16}),
        17 => json!({"kind": "thinking", "text": "hmm"}),
        18 => return "plain stdout line".to_owned(),
        _ => json!({"kind": "assistant", "text": "done"}),
    };
    v.to_string()
}

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
