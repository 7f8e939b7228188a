//! Time-to-stop per hostile-corpus attack, for BENCHMARKS.md:
//! `cargo run --release -p parsebox-sandbox --example attacks`.
//!
//! For each attack: the code the attacked line failed with (or the load error), how long the
//! attacked call took, and how long the next line took (it includes the realm rebuild and the
//! replay of the run's earlier lines when the attack left the realm dirty). A counting global
//! allocator feeds the sandbox's heap probe, so memory attacks are measured with that layer on.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    clippy::print_stdout
)]

use std::alloc::System;
use std::path::PathBuf;
use std::time::Instant;

use cap::Cap;
use parsebox_sandbox::{ParserModule, SandboxOptions};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

fn allocated() -> usize {
    ALLOC.allocated()
}

const TS: &str = "2026-01-01T00:00:00.000Z";

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/hostile");
    let only: Option<String> = std::env::args().nth(1);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".js")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    let opts = SandboxOptions {
        heap_probe: Some(allocated),
        ..SandboxOptions::default()
    };
    println!("| attack | outcome | attacked call | next line (rebuild + replay) |");
    println!("|---|---|---|---|");
    for name in names {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        // Exhausts the machine's memory natively (no in-thread layer can stop it); run it only
        // by name, under a memory limit (e.g. `systemd-run --scope -p MemoryMax=4G`).
        if name == "string_concat_forever" && only.is_none() {
            println!("| {name} | not run (memory bomb, see below) | – | – |");
            continue;
        }
        let src = std::fs::read_to_string(dir.join(format!("{name}.js"))).unwrap();
        let t0 = Instant::now();
        let module = match ParserModule::load(&src, opts.clone()) {
            Ok(m) => m,
            Err(e) => {
                println!(
                    "| {name} | load refused: `{}` | {:.1} ms (load) | – |",
                    e.code,
                    t0.elapsed().as_secs_f64() * 1e3
                );
                continue;
            }
        };
        let mut run = module.new_run().unwrap();
        // Some earlier lines, so the replay after a rebuild has work to do.
        for i in 0..100 {
            let _ = run.parse_line(&format!("line {i}"), TS);
        }
        let attack = if name == "json_parse_deep" {
            "[".repeat(100_000)
        } else {
            "attack".to_owned()
        };
        let t = Instant::now();
        let r = run.parse_line(&attack, TS);
        let attacked = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let next = run.parse_line("after", TS);
        let after = t.elapsed().as_secs_f64() * 1e3;
        let outcome = match r {
            Ok(c) => format!("answered ({} entries)", c.entries.len()),
            Err(f) => format!("`{}`", f.code),
        };
        let next_ok = if next.is_ok() {
            ""
        } else {
            " (next line FAILED)"
        };
        println!("| {name} | {outcome} | {attacked:.1} ms | {after:.1} ms{next_ok} |");
    }
}
