//! Benchmark: replay a synthetic stored run through the builder with the generic parser.
//!
//! `cargo run --release -p parsebox-transcript --example replay_bench [LINES]`
//!
//! The run is a deterministic hermes-style log (as `../shared/bench/gen-log.js` writes) cut into
//! stored NDJSON rows of ~4 KB like Paperclip's pages, with a stderr row every 50 rows. Prints
//! min and median over 7 trials for (a) the builder alone on already-read chunks and (b) reading
//! the NDJSON text plus building.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::time::Instant;

use parsebox_transcript::{
    read_stored_run, Chunk, GenericParser, Stream, TranscriptBuilder, TranscriptOptions,
};

fn synthetic_log(lines: usize) -> String {
    let words: Vec<&str> = "the project is a cli tool written in typescript with tests under tests and a readme describing usage".split(' ').collect();
    let mut s: u64 = 12345;
    let mut r = move || {
        s = (s * 1_103_515_245 + 12345) % 2_147_483_648;
        s as f64 / 2_147_483_648.0
    };
    let mut out = String::new();
    out.push_str("[hermes] Session resumed: abc123\n");
    for _ in 1..lines {
        let x = r();
        let n = 5 + (r() * 20.0) as usize;
        let sent: Vec<&str> = (0..n)
            .map(|_| words[(r() * words.len() as f64) as usize])
            .collect();
        if x < 0.15 {
            out.push_str("┊ 💬 ");
        } else if x < 0.3 {
            out.push_str("┊ [done] read — ");
        }
        out.push_str(&sent.join(" "));
        out.push('\n');
    }
    out
}

fn stored_run(log: &str) -> String {
    let mut ndjson = String::new();
    let mut rest = log;
    let mut seq = 0u64;
    while !rest.is_empty() {
        let mut cut = rest.len().min(4096);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (piece, tail) = rest.split_at(cut);
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", (seq / 60) % 60, seq % 60);
        let chunk = Chunk {
            ts: ts.clone(),
            stream: Stream::Stdout,
            chunk: piece.to_owned(),
            seq: Some(seq),
        };
        ndjson.push_str(&serde_json::to_string(&chunk).unwrap());
        ndjson.push('\n');
        if seq % 50 == 49 {
            ndjson.push_str(
                &serde_json::to_string(&Chunk {
                    ts,
                    stream: Stream::Stderr,
                    chunk: "warning: slow disk\n".into(),
                    seq: None,
                })
                .unwrap(),
            );
            ndjson.push('\n');
        }
        seq += 1;
        rest = tail;
    }
    ndjson
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 2])
}

fn main() {
    let lines: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let log = synthetic_log(lines);
    let ndjson = stored_run(&log);
    let chunks = read_stored_run(&ndjson).chunks;
    let mut build_secs = Vec::new();
    let mut replay_secs = Vec::new();
    let mut entries = 0;
    for _ in 0..7 {
        let t = Instant::now();
        let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
        for c in &chunks {
            b.push(c);
        }
        b.finish();
        build_secs.push(t.elapsed().as_secs_f64());
        entries = b.entries().len();

        let t = Instant::now();
        let run = read_stored_run(&ndjson);
        let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
        for c in &run.chunks {
            b.push(c);
        }
        b.finish();
        replay_secs.push(t.elapsed().as_secs_f64());
        assert_eq!(b.entries().len(), entries);
    }
    let (bmin, bmed) = stats(build_secs);
    let (rmin, rmed) = stats(replay_secs);
    println!(
        "{lines} lines, {} stored rows ({:.1} MB NDJSON), {entries} entries",
        chunks.len(),
        ndjson.len() as f64 / 1e6
    );
    println!(
        "builder only        : min {:.2} ms, median {:.2} ms -> {:.2} M lines/s (median)",
        bmin * 1e3,
        bmed * 1e3,
        lines as f64 / bmed / 1e6
    );
    println!(
        "NDJSON read + build : min {:.2} ms, median {:.2} ms -> {:.2} M lines/s (median)",
        rmin * 1e3,
        rmed * 1e3,
        lines as f64 / rmed / 1e6
    );
}
