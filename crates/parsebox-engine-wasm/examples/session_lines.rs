//! Per-line cost of one engine instance's session, natively: the engine module's whole path for
//! a line (the ops batch decoded, the parser run in the sandbox, its value converted and the
//! answer encoded), without wasm or JS around it. Run it under callgrind for instruction counts
//! that do not depend on the machine's load (BENCHMARKS.md, issue 14):
//!
//! ```sh
//! node tests/bench/gen-log.mjs hermes 3000 > /tmp/hermes3k.log
//! cargo build --release -p parsebox-engine-wasm --example session_lines
//! valgrind --tool=callgrind target/release/examples/session_lines \
//!     tests/bench/hermes-parser.js /tmp/hermes3k.log
//! ```
//!
//! Each line gets its own ts and travels in a batch of its own (an ops frame; JSON with
//! `PARSEBOX_OPS=json`), as an inline `parseLine` does.
//! Prints the lines, the answer bytes and the wall time per line.

#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]

use std::time::Instant;

use parsebox_engine_wasm::{Hooks, Session};
use parsebox_protocol::{wire, EngineOp, LineOp, RunId};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (parser, log) = match args.as_slice() {
        [_, parser, log] => (parser, log),
        _ => {
            eprintln!("usage: session_lines PARSER.js RUN.log");
            std::process::exit(2);
        }
    };
    // PARSEBOX_OPS=json: the batches as JSON, as the engine read them before the ops frame.
    let json = std::env::var("PARSEBOX_OPS").is_ok_and(|v| v == "json");
    let source = std::fs::read(parser).expect("read the parser");
    let log = std::fs::read_to_string(log).expect("read the log");
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();

    let mut session = Session::new(Hooks::default());
    let config = br#"{"lineBudgetMs":1000,"initBudgetMs":1000,"maxSourceBytes":1048576,"maxLineBytes":4194304,"maxMemoryBytes":268435456}"#;
    let started = session.start(&source, config);
    assert!(started.starts_with(r#"{"Ok""#), "start failed: {started}");
    let new_run = serde_json::to_vec(&[EngineOp::NewRun {
        run: RunId(1),
        stateless: false,
    }])
    .unwrap();
    session.run(&new_run, true, |_| {});

    let t0 = Instant::now();
    let mut bytes = 0;
    for (i, line) in lines.iter().enumerate() {
        let seconds = i % 60;
        let minutes = (i / 60) % 60;
        let op = EngineOp::Line(LineOp {
            seq: i as u64,
            run: RunId(1),
            line: (*line).to_owned(),
            ts: format!("2026-01-01T00:{minutes:02}:{seconds:02}.000Z"),
            replay: false,
        });
        let ops = if json {
            serde_json::to_vec(&[op]).unwrap()
        } else {
            wire::ops_frame(&[op])
        };
        bytes += session.run(&ops, true, |_| {}).len();
    }
    let dt = t0.elapsed();
    println!(
        "{} lines, {} answer bytes, {:.2} us/line",
        lines.len(),
        bytes,
        dt.as_secs_f64() * 1e6 / lines.len() as f64
    );
}
