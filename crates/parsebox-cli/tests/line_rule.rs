//! The CLI shows exactly what the UI shows for each line: both go through the one line rule
//! (`parsebox_transcript::settle_line`), and a stateful parser is reset after a failed line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{parsebox, status};

const DIR: &str = "tests/fixtures/line-rule";

fn texts(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{}:{}",
                v["kind"].as_str().unwrap(),
                v["text"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn parse_shows_a_line_whose_entries_are_all_invalid() {
    let run = parsebox(&[
        "parse",
        "--parser",
        &format!("{DIR}/all-invalid.js"),
        &format!("{DIR}/all-invalid.log"),
        "--format",
        "jsonl",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        texts(&run.stdout),
        vec!["assistant:hello", "stdout:junk 1", "assistant:bye"],
        "the line is never lost"
    );
    assert!(run.stderr.contains("all_entries_invalid"), "{}", run.stderr);
}

#[test]
fn parse_resets_a_stateful_parser_after_a_failed_line() {
    let run = parsebox(&[
        "parse",
        "--parser",
        &format!("{DIR}/poisoned.js"),
        &format!("{DIR}/poisoned.log"),
        "--format",
        "jsonl",
    ]);
    assert_eq!(
        texts(&run.stdout),
        vec!["assistant:first", "stdout:boom", "assistant:after"]
    );
}

#[test]
fn check_resets_a_stateful_parser_after_a_failed_line() {
    // Without the reset the line after the throw returns an invalid entry, which the UI never
    // shows: the entries check must not report it.
    let run = parsebox(&[
        "check",
        &format!("{DIR}/poisoned.js"),
        "--log",
        &format!("{DIR}/poisoned.log"),
        "--json",
    ]);
    let report = run.json();
    assert_eq!(status(&report, "entries"), "pass", "{report:#}");
    let sample = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "sample_log")
        .unwrap()
        .to_string();
    assert!(sample.contains("threw"), "{sample}");
}

/// The contract's priority: a module exporting both entry points is driven through one
/// `createStdoutParser()` instance, whose state carries from line to line.
#[test]
fn parse_drives_the_factory_when_a_module_exports_both() {
    let run = parsebox(&[
        "parse",
        "--parser",
        "tests/fixtures/priority/both-exports.js",
        "tests/fixtures/priority/both-exports.log",
        "--format",
        "jsonl",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        texts(&run.stdout),
        vec!["assistant:#1 a", "assistant:#2 b", "assistant:#3 c"]
    );
}

/// A line over `--max-line-bytes` is read without keeping more than the bound, is not handed to
/// the parser, and shows the generic entry (its first bytes); the stateful parser keeps its
/// state, and stderr says what happened. An NDJSON row cut short is skipped, and said.
#[test]
fn parse_bounds_a_line_and_says_so() {
    let long = "x".repeat(200_000);
    let log = format!("a\n{long}\nb\n");
    let run = common::parsebox_with_stdin(
        &[
            "parse",
            "--parser",
            "tests/fixtures/priority/both-exports.js",
            "--max-line-bytes",
            "1000",
            "--format",
            "jsonl",
        ],
        Some(log.as_bytes()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cut = format!("stdout:{}", "x".repeat(1000));
    assert_eq!(
        texts(&run.stdout),
        vec![
            "assistant:#1 a".to_owned(),
            cut,
            "assistant:#2 b".to_owned()
        ]
    );
    assert!(
        run.stderr
            .contains("line is 200000 bytes, over --max-line-bytes 1000"),
        "{}",
        run.stderr
    );

    let row = format!(
        "{{\"ts\":\"t\",\"stream\":\"stdout\",\"chunk\":\"{long}\\n\"}}\n{{\"ts\":\"t\",\"stream\":\"stdout\",\"chunk\":\"b\\n\"}}\n"
    );
    let run = common::parsebox_with_stdin(
        &[
            "parse",
            "--parser",
            "tests/fixtures/priority/both-exports.js",
            "--ndjson",
            "--max-line-bytes",
            "1000",
            "--format",
            "jsonl",
        ],
        Some(row.as_bytes()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(texts(&run.stdout), vec!["assistant:#1 b"]);
    assert!(
        run.stderr
            .contains("1 input line over --max-line-bytes (1000) skipped"),
        "{}",
        run.stderr
    );
    let bad = common::parsebox(&[
        "parse",
        "--parser",
        "tests/fixtures/priority/both-exports.js",
        "--max-line-bytes",
        "0",
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("--max-line-bytes must be between 1 and"),
        "{}",
        bad.stderr
    );
}
