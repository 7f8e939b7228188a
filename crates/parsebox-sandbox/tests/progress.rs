//! The count of work an embedder watches (`work_done`) moves while a long native call does
//! counted work, before the call returns: a `replace` whose callback runs for every match
//! yields nowhere, and its work used to show only when the call ended, so a watcher (the page's
//! Worker poll, the command's engine process) took it for one stuck native step and ended an
//! honest line at the hard deadline on a busy machine. Its own binary: the count is the
//! process's, and no other test may move it meanwhile.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parsebox_sandbox::{work_done, ParserModule, SandboxOptions};

#[test]
fn the_count_of_work_moves_during_one_long_native_call() {
    common::on_stack(2 << 20, || {
        // One statement, one native call: the callbacks' bytecode runs inside `replace`.
        let source = r#"export function parseStdoutLine(line, ts) {
            const text = "a".repeat(200000).replace(/a/g, () => "b");
            return [{ kind: "stdout", ts, text: text.slice(0, 3) }];
        }"#;
        let options = SandboxOptions {
            line_budget_ms: 100_000.0,
            ..SandboxOptions::default()
        };
        let module = ParserModule::load(source, options).unwrap();
        let mut run = module.new_run().unwrap();
        let running = Arc::new(AtomicBool::new(true));
        let watcher = {
            let running = Arc::clone(&running);
            std::thread::spawn(move || {
                // How many times the count was seen to move while the call ran.
                let (mut last, mut moves) = (work_done(), 0u32);
                while running.load(Ordering::Relaxed) {
                    let now = work_done();
                    if now != last {
                        moves += 1;
                        last = now;
                    }
                    std::thread::yield_now();
                }
                moves
            })
        };
        let answered = run.parse_line("x", "2026-01-01T00:00:00.000Z").unwrap();
        running.store(false, Ordering::Relaxed);
        let moves = watcher.join().unwrap();
        assert_eq!(answered.entries.len(), 1);
        // 200,000 matches scanned, each charged as it is: the watcher sees many moves (it saw
        // at most one, at the call's end, when the scans were counted only there).
        assert!(
            moves >= 10,
            "the count of work moved {moves} times during the call"
        );
    });
}
