//! Snapshots (insta) of what a person sees: the pretty transcript with colour off and on, JSON
//! lines, a stored NDJSON run, and the check report. Colour is forced with `--color`, so the
//! snapshots do not depend on the terminal the tests run in.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{parsebox, repo};

const GOOD: &str = "tests/fixtures/good/ui-parser.js";
const GOOD_LOG: &str = "tests/fixtures/good/sample.log";

/// stdout of a successful `parse` (the stderr summary has timings, so it is not snapshotted).
fn parse_stdout(args: &[&str]) -> String {
    let run = parsebox(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn pretty_without_colour() {
    insta::assert_snapshot!(parse_stdout(&[
        "parse", "--parser", GOOD, GOOD_LOG, "--color", "never"
    ]));
}

#[test]
fn pretty_with_colour() {
    // Real escape codes shown as `␛` (an escaped one from the log stays `\e`).
    let out = parse_stdout(&["parse", "--parser", GOOD, GOOD_LOG, "--color", "always"]);
    insta::assert_snapshot!(out.replace('\x1b', "␛"));
}

#[test]
fn colour_is_off_when_stdout_is_not_a_terminal() {
    let auto = parse_stdout(&["parse", "--parser", GOOD, GOOD_LOG]);
    assert!(!auto.contains('\x1b'));
    assert_eq!(
        auto,
        parse_stdout(&["parse", "--parser", GOOD, GOOD_LOG, "--color", "never"])
    );
}

#[test]
fn jsonl() {
    insta::assert_snapshot!(parse_stdout(&[
        "parse", "--parser", GOOD, GOOD_LOG, "--format", "jsonl"
    ]));
}

#[test]
fn stored_ndjson_run() {
    let run = parsebox(&[
        "parse",
        "--parser",
        GOOD,
        "--ndjson",
        "tests/fixtures/stored-run.ndjson",
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr
            .contains("parsebox: 2 malformed NDJSON rows skipped"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn stdin_gives_the_same_transcript_as_a_file() {
    let log = std::fs::read(GOOD_LOG).unwrap();
    let run =
        common::parsebox_with_stdin(&["parse", "--parser", GOOD, "--color", "never"], Some(&log));
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        parse_stdout(&["parse", "--parser", GOOD, GOOD_LOG, "--color", "never"])
    );
    let dash = common::parsebox_with_stdin(
        &["parse", "--parser", GOOD, "-", "--color", "never"],
        Some(&log),
    );
    assert_eq!(dash.stdout, run.stdout);
}

#[test]
fn redacted_home_paths() {
    let out = parse_stdout(&[
        "parse",
        "--parser",
        GOOD,
        GOOD_LOG,
        "--color",
        "never",
        "--redact-home-paths",
    ]);
    assert!(out.contains("/home/a****/project"), "{out}");
    assert!(!out.contains("alice"), "{out}");
}

#[test]
fn pretty_compat_acpx_session() {
    // Diffs, tool calls and results from a real-style parser.
    let parser = repo("tests/corpus/compat/acpx-session/ui-parser.js");
    let log = repo("tests/corpus/compat/acpx-session/sample.log");
    insta::assert_snapshot!(parse_stdout(&[
        "parse", "--parser", &parser, &log, "--color", "never"
    ]));
}

#[test]
fn pretty_compat_claude_partial_deltas() {
    // Streamed deltas merge into one assistant entry before they are printed.
    let parser = repo("tests/corpus/compat/claude-partial-deltas/ui-parser.js");
    let log = repo("tests/corpus/compat/claude-partial-deltas/sample.log");
    insta::assert_snapshot!(parse_stdout(&[
        "parse", "--parser", &parser, &log, "--color", "never"
    ]));
}

#[test]
fn check_report_text() {
    let run = parsebox(&[
        "check",
        "tests/fixtures/sloppy/ui-parser.js",
        "--package",
        "tests/fixtures/sloppy/package.json",
        "--log",
        "tests/fixtures/sloppy/sample.log",
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn check_report_json() {
    let run = parsebox(&[
        "check",
        GOOD,
        "--package",
        "tests/fixtures/good/package.json",
        "--log",
        GOOD_LOG,
        "--json",
    ]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}
