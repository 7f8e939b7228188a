//! Prints the transcript of a run log with the generic parser, one JSON entry per line.
//!
//! `cargo run -p parsebox-transcript --example transcript -- <run.log | stored.ndjson>`
//!
//! A file whose first non-blank line is a `{ts, stream, chunk}` object is read as Paperclip's
//! stored NDJSON; anything else is plain stdout text.
#![allow(missing_docs)]

use std::io::Write;
use std::process::ExitCode;

use parsebox_transcript::{
    read_stored_run, Chunk, GenericParser, TranscriptBuilder, TranscriptOptions,
};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: transcript <run.log | stored.ndjson>");
        return ExitCode::from(2);
    };
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let stored = read_stored_run(&text);
    let chunks = if stored.chunks.is_empty() {
        vec![Chunk::stdout("1970-01-01T00:00:00.000Z", &text)]
    } else {
        if stored.skipped_rows > 0 {
            eprintln!("{} malformed rows skipped", stored.skipped_rows);
        }
        stored.chunks
    };
    let mut builder = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    for chunk in &chunks {
        builder.push(chunk);
    }
    builder.finish();
    let mut out = std::io::stdout().lock();
    for entry in builder.entries() {
        let Ok(json) = serde_json::to_string(entry) else {
            continue;
        };
        if writeln!(out, "{json}").is_err() {
            break; // closed pipe (e.g. `| head`)
        }
    }
    ExitCode::SUCCESS
}
