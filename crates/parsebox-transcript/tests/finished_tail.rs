//! `TranscriptBuilder::finished_tail`: what a re-rendered window shows for its pending line
//! (Paperclip finishes every list it renders) while the run goes on unfinished.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    Chunk, LineFailure, LineParser, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use serde_json::json;

/// A stateful parser: the nth line of its run gives "n:line"; "d:…" a streamed delta.
fn counter() -> impl LineParser {
    let mut n = 0;
    move |line: &str, ts: &str| -> Result<Vec<TranscriptEntry>, LineFailure> {
        n += 1;
        let entry = match line.strip_prefix("d:") {
            Some(d) => json!({ "kind": "assistant", "ts": ts, "text": d, "delta": true }),
            None => json!({ "kind": "assistant", "ts": ts, "text": format!("{n}:{line}") }),
        };
        Ok(vec![serde_json::from_value(entry).unwrap()])
    }
}

fn texts(entries: &[TranscriptEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn builder(chunks: &[&str]) -> TranscriptBuilder<impl LineParser> {
    let options = TranscriptOptions {
        retain_chunks: true,
        ..TranscriptOptions::default()
    };
    let mut b = TranscriptBuilder::new(counter(), options);
    for (i, c) in chunks.iter().enumerate() {
        b.push(&Chunk::stdout(&format!("t{i}"), c));
    }
    b
}

/// (chunks, replay from chunk, entries replaced, entries that take their place)
#[test]
fn the_finished_tail_by_case() {
    let rows: [(&[&str], usize, usize, &[&str]); 4] = [
        // The pending line, parsed after a replay of the whole list: the parser's third line.
        (&["a\nb\nc"], 0, 0, &["3:c"]),
        // A replay from a later chunk is a fresh run from there.
        (&["a\n", "b\nc"], 1, 0, &["2:c"]),
        // A delta pending line merges with the delta before it: that entry is replaced.
        (&["d:x\nd:y"], 0, 1, &["xy"]),
        // Nothing pending: a finish changes nothing.
        (&["a\nb\n"], 0, 0, &[]),
    ];
    for (chunks, from, replaced, entries) in rows {
        let b = builder(chunks);
        let before = texts(b.entries());
        let tail = b.finished_tail(from, counter());
        assert_eq!(tail.replaced, replaced, "{chunks:?} from {from}");
        assert_eq!(texts(&tail.entries), entries, "{chunks:?} from {from}");
        assert_eq!(texts(b.entries()), before, "the run itself is not finished");
    }
}

/// The finished line takes the last chunk's ts, and the run goes on as if nothing happened.
#[test]
fn the_run_goes_on_after_a_look_at_its_finish() {
    let mut b = builder(&["a\nb", "c"]);
    let tail = b.finished_tail(0, counter());
    assert_eq!(serde_json::to_value(&tail.entries[0]).unwrap()["ts"], "t1");
    assert!(b.has_pending_line());
    b.push(&Chunk::stdout("t2", "d\n"));
    assert_eq!(texts(b.entries()), ["1:a", "2:bcd"]);
}
