//! How much work the engine counts per millisecond of wall time, natively: the figure behind
//! [`parsebox_sandbox::WORK_PER_MS`] (budgets are counted in work, not time, so they decide
//! the same way on every machine). For BENCHMARKS.md:
//!
//! ```text
//! node /work/shared/bench/gen-log.js 20000 > /tmp/run.log
//! cargo run --release -p parsebox-sandbox --example work_rate -- PARSER.js /tmp/run.log
//! ```
//!
//! Runs every line through one run, three times, and prints, for the best pass: lines, wall
//! milliseconds, the work counted (boa cycles and reference milliseconds), and cycles per wall
//! millisecond, with the largest single line's work.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    clippy::print_stdout,
    clippy::cast_precision_loss
)]

use std::time::Instant;

use parsebox_sandbox::{ParserModule, SandboxOptions, WORK_PER_MS};

mod common;

fn main() {
    let common::Input { src, text, .. } = common::parser_and_log("/work/shared/bench/ui-parser.js");
    let lines = common::lines(&text);
    let opts = SandboxOptions {
        line_budget_ms: 1e6,
        clock_backstop_ms: 1e6,
        // Counted finely, so a short line's work is not lost below one yield.
        budget_cycles: 64,
        ..SandboxOptions::default()
    };
    let module = ParserModule::load(&src, opts).unwrap();
    let mut best: Option<(f64, u64, u64)> = None;
    for _ in 0..3 {
        let mut run = module.new_run().unwrap();
        let mut largest = 0;
        let started = Instant::now();
        for line in &lines {
            let before = run.diagnostics().work_cycles;
            let _ = run.parse_line_raw(line, "2026-01-01T00:00:00.000Z");
            largest = largest.max(run.diagnostics().work_cycles - before);
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let cycles = run.diagnostics().work_cycles;
        match best {
            Some((b, _, _)) if b <= ms => {}
            _ => best = Some((ms, cycles, largest)),
        }
    }
    let (ms, cycles, largest) = best.unwrap();
    println!(
        "{} lines in {ms:.1} ms; work {cycles} cycles = {:.1} reference ms; {:.0} cycles per wall ms; largest line {largest} cycles = {:.3} reference ms",
        lines.len(),
        cycles as f64 / WORK_PER_MS as f64,
        cycles as f64 / ms,
        largest as f64 / WORK_PER_MS as f64,
    );
}
