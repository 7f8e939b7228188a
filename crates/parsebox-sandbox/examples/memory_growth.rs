//! The heap one parser run holds as its lines go by, for BENCHMARKS.md ("memory flat across a
//! run"): every byte the process has allocated (a counting allocator), read after boa's
//! collector has run, at fixed line counts; first what loading the parser left allocated, and
//! the most it had allocated at once.
//!
//! ```text
//! node -e 'import("./tests/bench/gen-log.mjs").then(m => process.stdout.write(m.hermesLog(100000)))' > /tmp/run.log
//! cargo run --release -p parsebox-sandbox --example memory_growth -- tests/bench/hermes-parser.js /tmp/run.log
//! ```

#![allow(clippy::unwrap_used, missing_docs, clippy::print_stdout)]

use std::alloc::System;

use cap::Cap;
use parsebox_sandbox::{ParserModule, SandboxOptions};

mod common;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

fn main() {
    let common::Input { src, log, text, .. } =
        common::parser_and_log("tests/bench/hermes-parser.js");
    let lines = common::lines(&text);
    let before = ALLOC.allocated();
    let module = ParserModule::load(&src, SandboxOptions::default()).unwrap();
    boa_engine::gc::force_collect();
    // What stays once loaded, and the most the load held at once (its parse and compile of the
    // prelude and the parser): in wasm the second is what the instance's memory grew to.
    println!(
        "load: {} KB held after it, {} KB at its peak",
        (ALLOC.allocated() - before) / 1024,
        (ALLOC.max_allocated() - before) / 1024
    );
    let mut run = module.new_run().unwrap();
    let marks = [1usize, 1_000, 5_000, 10_000, 20_000, 50_000, 100_000];
    println!("{} lines from {log}", lines.len());
    for (i, line) in lines.iter().enumerate() {
        let _ = run.parse_line(line, "2026-01-01T00:00:00.000Z");
        if marks.contains(&(i + 1)) {
            boa_engine::gc::force_collect();
            println!(
                "after {:>7} lines: {:>6} KB allocated",
                i + 1,
                ALLOC.allocated() / 1024
            );
        }
    }
}
