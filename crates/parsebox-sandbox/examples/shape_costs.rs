//! What a parser shape's time per line is made of, natively: the whole line as a page gets it,
//! the same parser with the bounded built-ins off (the prelude's bytecode `map`, `filter`,
//! `replace` callbacks and the regex input cap), and the floor every line pays whatever the
//! parser does (a parser that only returns the line: the call, the budget set-up and the
//! conversion of one entry). For BENCHMARKS.md (issue 40):
//!
//! ```text
//! node -e 'import("./tests/bench/gen-log.mjs").then((m) => console.log(m.shapeLog(2000).join("\n")))' > /tmp/shape.log
//! cargo run --release -p parsebox-sandbox --example shape_costs -- tests/bench/shapes/chains.js /tmp/shape.log
//! ```
//!
//! Prints µs per line (the best of five passes over every line, one run each) for the three.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    clippy::print_stdout,
    clippy::cast_precision_loss
)]

use std::time::Instant;

use parsebox_sandbox::{ParserModule, SandboxOptions};

mod common;

const FLOOR: &str =
    "export function parseStdoutLine(line, ts) { return [{ kind: \"stdout\", ts, text: line }]; }";

/// µs per line of `src` over `lines`, the best of five passes.
fn per_line(src: &str, lines: &[&str], opts: &SandboxOptions) -> f64 {
    let module = ParserModule::load(src, opts.clone()).unwrap();
    (0..5)
        .map(|_| {
            let mut run = module.new_run().unwrap();
            let started = Instant::now();
            for line in lines {
                let _ = run.parse_line_raw(line, "2026-01-01T00:00:00.000Z");
            }
            started.elapsed().as_secs_f64() * 1e6 / lines.len() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let common::Input { src, text, .. } = common::parser_and_log("tests/bench/shapes/chains.js");
    let lines = common::lines(&text);
    let opts = SandboxOptions {
        line_budget_ms: 1e6,
        clock_backstop_ms: 1e6,
        ..SandboxOptions::default()
    };
    let unbounded = SandboxOptions {
        bounded_builtins: false,
        ..opts.clone()
    };
    let whole = per_line(&src, &lines, &opts);
    let without = per_line(&src, &lines, &unbounded);
    let floor = per_line(FLOOR, &lines, &opts);
    println!(
        "{} lines: whole {whole:.1} µs/line; bounded built-ins off {without:.1} µs/line; floor (return the line) {floor:.1} µs/line",
        lines.len()
    );
}
