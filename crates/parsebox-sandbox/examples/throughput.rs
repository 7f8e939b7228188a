//! Native throughput of the sandbox on the shared benchmark (hermes-style parser), for
//! BENCHMARKS.md:
//!
//! ```text
//! node /work/shared/bench/gen-log.js 100000 > /tmp/run.log
//! cargo run --release -p parsebox-sandbox --example throughput -- /work/shared/bench/ui-parser.js /tmp/run.log
//! ```
//!
//! Lines are split and trimmed like the transcript builder does; each configuration parses every
//! line through one run, three times, and reports the best lines/s.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    clippy::print_stdout
)]

use std::time::Instant;

use parsebox_sandbox::{ParserModule, SandboxOptions};

mod common;

fn main() {
    let common::Input {
        src,
        log,
        text,
        rest: mut args,
    } = common::parser_and_log("/work/shared/bench/ui-parser.js");
    // Optional third argument: run only that configuration (0, 1, 2) once, and skip the
    // load/new_run timing (for `valgrind --tool=callgrind`, whose instruction counts do not
    // depend on the machine's load).
    let only: Option<usize> = args.next().and_then(|a| a.parse().ok());
    let lines = common::lines(&text);
    let ts: Vec<String> = (0..lines.len())
        .map(|i| format!("2026-01-01T00:{:02}:{:02}.000Z", (i / 60) % 60, i % 60))
        .collect();
    let configs: [(&str, SandboxOptions); 3] = [
        ("all layers (default options)", SandboxOptions::default()),
        (
            "no bounded built-ins / guarded RegExp",
            SandboxOptions {
                bounded_builtins: false,
                ..SandboxOptions::default()
            },
        ),
        (
            "no budget layers (no deadline yields, no bounded built-ins)",
            SandboxOptions {
                bounded_builtins: false,
                budget_cycles: u32::MAX,
                line_budget_ms: 1e9,
                ..SandboxOptions::default()
            },
        ),
    ];
    println!("{} lines from {log}", lines.len());
    for (k, (name, opts)) in configs.into_iter().enumerate() {
        if only.is_some_and(|o| o != k) {
            continue;
        }
        let module = ParserModule::load(&src, opts).unwrap();
        let mut best = 0.0f64;
        let mut entries = 0usize;
        let mut failures = 0usize;
        for _ in 0..if only.is_some() { 1 } else { 3 } {
            let mut run = module.new_run().unwrap();
            entries = 0;
            failures = 0;
            let t = Instant::now();
            for (line, ts) in lines.iter().zip(&ts) {
                match run.parse_line(line, ts) {
                    Ok(c) => entries += c.entries.len(),
                    Err(_) => failures += 1,
                }
            }
            best = best.max(lines.len() as f64 / t.elapsed().as_secs_f64());
        }
        println!("{name}: {best:.0} lines/s ({entries} entries, {failures} failed lines)");
    }
    if only.is_some() {
        return;
    }
    let t = Instant::now();
    let module = ParserModule::load(&src, SandboxOptions::default()).unwrap();
    let load = t.elapsed();
    let t = Instant::now();
    for _ in 0..100 {
        drop(module.new_run().unwrap());
    }
    println!(
        "load: {:.2} ms, new_run: {:.2} ms",
        load.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 10.0
    );
}
