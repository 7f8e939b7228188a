//! Per-line cost of the core's side of a page's `parseLine`, natively: the host core's call,
//! the ops frame for the inline engine, the engine's answer read back, the line settled and
//! the entries written as the JSON the page parses. The engine itself is a stand-in that answers
//! each line as the floor parser would (`[{"kind":"stdout","ts":ts,"text":line}]`, written by
//! `serde_json`), so what is counted is the core's part alone. Run it under callgrind for
//! instruction counts that do not depend on the machine's load (issue 55, the floor):
//!
//! ```sh
//! node -e 'import("./tests/bench/gen-log.mjs").then((m) => console.log(m.shapeLog(2000).join("\n")))' > /tmp/shape.log
//! cargo build --release -p parsebox-live --example page_lines
//! valgrind --tool=callgrind target/release/examples/page_lines /tmp/shape.log
//! ```
//!
//! Prints the lines, the bytes handed to the page and the wall time per line.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    missing_docs,
    clippy::print_stdout
)]

use std::time::Instant;

use parsebox_host::{wire, EngineId, EngineOp, Host, HostOptions, HostPlacement};
use parsebox_live::{EngineDeath, Executor, LiveCore};
use parsebox_transcript::lone_surrogates::to_page_json;
use parsebox_transcript::FailedLineEntry;

// The live tests' page side, for its built-in parser (this example registers none).
#[path = "../tests/common/mod.rs"]
mod common;

/// What the binding hands the page for a line (registry_core.rs' `LineResult`).
#[derive(serde::Serialize)]
struct LineResult<'a> {
    entries: &'a [parsebox_transcript::TranscriptEntry],
    late: Option<parsebox_host::Seq>,
}

/// An inline engine that answers every line with one stdout entry of the line.
struct FloorEngine;

impl Executor for FloorEngine {
    type Builtin = common::FakeBuiltin;

    fn now_ms(&self) -> f64 {
        0.0
    }

    fn start_inline(
        &mut self,
        _: EngineId,
        _: &str,
        _: &str,
        _: &str,
    ) -> Result<String, EngineDeath> {
        Ok(r#"{"Ok":{"entryPoint":"parseStdoutLine"}}"#.to_owned())
    }

    fn run_inline(&mut self, _: EngineId, ops_frame: &[u8]) -> Result<Vec<u8>, EngineDeath> {
        let mut out = Vec::with_capacity(512);
        out.push(b'[');
        for op in wire::decode_ops(ops_frame).unwrap() {
            if let EngineOp::Line(l) = op {
                if out.len() > 1 {
                    out.push(b',');
                }
                out.extend_from_slice(
                    format!("[{},{{\"Ok\":[{{\"kind\":\"stdout\",\"ts\":", l.seq).as_bytes(),
                );
                serde_json::to_writer(&mut out, &l.ts).unwrap();
                out.extend_from_slice(b",\"text\":");
                serde_json::to_writer(&mut out, &l.line).unwrap();
                out.extend_from_slice(b"}]}]");
            }
        }
        out.push(b']');
        Ok(out)
    }

    fn end_inline(&mut self, _: EngineId) {}
    fn post_ops(&mut self, _: EngineId, _: Vec<u8>) {}
    fn wake(&mut self) {}
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, log] = args.as_slice() else {
        eprintln!("usage: page_lines RUN.log");
        std::process::exit(2);
    };
    let log = std::fs::read_to_string(log).expect("read the log");
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();

    let host = Host::new(HostOptions {
        host: HostPlacement::Inline,
        load_sources: false,
        ..HostOptions::default()
    })
    .unwrap();
    let mut live = LiveCore::new(host, "{}".into(), FloorEngine);
    live.register_source(
        "floor",
        "export function parseStdoutLine(line, ts) { return []; }",
        None,
    )
    .unwrap();
    let run = live
        .create_run("floor", FailedLineEntry::Generic, false)
        .unwrap();

    let t0 = Instant::now();
    let mut bytes = 0;
    for line in &lines {
        let (entries, late) = live
            .parse_page_line(run, line, "2026-01-01T00:00:00.000Z")
            .unwrap();
        assert!(late.is_none(), "an inline line is answered at once");
        // What the binding hands the page (registry_core.rs' LineResult, boundary.rs' to_json).
        let json = to_page_json(&LineResult {
            entries: &entries,
            late,
        })
        .unwrap();
        bytes += json.len();
    }
    let dt = t0.elapsed();
    println!(
        "{} lines, {} bytes to the page, {:.2} us/line",
        lines.len(),
        bytes,
        dt.as_secs_f64() * 1e6 / lines.len() as f64
    );
}
