//! What a Worker's late answers cost the page's core: a run of LINES lines, every one shown
//! with its generic entry first (the parser is in a Worker), then answered in batches of BATCH
//! in order, as a Worker's answers arrive a frame's worth at a time, while the lines after the
//! batch still wait. Every fifth answer gives its line two entries where the generic answer
//! gave one, so each batch moves every later entry. After each batch the transcript folds the
//! answers in and the timeline follows with the builder's origins; the items the update names
//! are then looked up as the wasm binding does to send them.
//!
//! ```sh
//! cargo run --release -p parsebox-timeline --example late_answers [-- LINES BATCH]
//! valgrind --tool=callgrind target/release/examples/late_answers 20000 200
//! ```

use std::time::Instant;

use parsebox_timeline::Timeline;
use parsebox_transcript::{
    Chunk, LineAnswer, LineFailure, LineParser, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};
use serde_json::json;

/// Answers every line later; the answers are made by [`answer`].
struct Deferring {
    pending: Vec<(u64, String, String)>,
}

impl LineParser for Deferring {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(answer(line, ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        let token = self.pending.len() as u64;
        self.pending.push((token, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token,
            provisional: vec![TranscriptEntry::stdout(ts, line)],
        }
    }
}

/// A line `note <n>` is an assistant message; every fifth is a thinking block and a message.
fn answer(line: &str, ts: &str) -> Vec<TranscriptEntry> {
    let n: usize = line.trim_start_matches("note ").parse().unwrap_or(0);
    let entry = |v| serde_json::from_value(v).unwrap_or_else(|_| TranscriptEntry::stdout(ts, line));
    let said = entry(json!({"kind": "assistant", "ts": ts, "text": line}));
    if n.is_multiple_of(5) {
        vec![
            entry(json!({"kind": "thinking", "ts": ts, "text": format!("thinking about {n}")})),
            said,
        ]
    } else {
        vec![said]
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let lines: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let batch: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(200)
        .max(1);
    let options = TranscriptOptions {
        track_lines: true,
        ..TranscriptOptions::default()
    };
    let mut builder = TranscriptBuilder::new(
        Deferring {
            pending: Vec::new(),
        },
        options,
    );
    let mut timeline = Timeline::new();
    let log: String = (0..lines).map(|i| format!("note {i}\n")).collect();
    let changed = builder.push(&Chunk::stdout("t", &log));
    timeline.update_keeping_tail(builder.entries(), changed, &|i| builder.entry_origin(i));
    let pending = std::mem::take(&mut builder.parser_mut().pending);

    let started = Instant::now();
    let (mut named, mut changed_items) = (0usize, 0usize);
    for answers in pending.chunks(batch) {
        let answers = answers
            .iter()
            .map(|(token, line, ts)| (*token, answer(line, ts)))
            .collect();
        let changed = builder.replace_answers(answers);
        let update =
            timeline.update_keeping_tail(builder.entries(), changed, &|i| builder.entry_origin(i));
        changed_items += update.changed.len();
        named += timeline.items_named(&update.changed).len();
        named += timeline.items_named(&update.added).len();
    }
    let ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "{lines} lines answered late in batches of {batch}: {ms:.0} ms \
         ({:.1} µs a line); {} entries, {} items; {changed_items} items reported changed, {named} sent",
        ms * 1e3 / lines as f64,
        builder.entries().len(),
        timeline.items().len(),
    );
}
