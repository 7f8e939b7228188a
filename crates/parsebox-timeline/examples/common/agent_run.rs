//! The synthetic run the timeline examples share: a coding agent's turn of twenty lines,
//! repeated, and a native JSON line parser for it.

use parsebox_transcript::{LineFailure, TranscriptEntry};
use serde_json::{json, Value};

/// A line's JSON as an entry (with `ts`), or the line as stdout.
pub fn parse(line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    let entry = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|mut v| {
            v.as_object_mut()?.insert("ts".to_owned(), json!(ts));
            serde_json::from_value(v).ok()
        })
        .unwrap_or_else(|| TranscriptEntry::stdout(ts, line));
    Ok(vec![entry])
}

/// Line `i` of the synthetic run: a cycle of twenty lines that looks like a coding agent's turn.
pub fn line(i: usize) -> String {
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
