//! `parsebox check` and `parsebox parse` over the compatibility corpus
//! (`tests/corpus/compat/<name>/{ui-parser.js,sample.log}`): every real-style parser passes the
//! check with its sample log, except where the corpus itself says otherwise, asserted precisely
//! here. The line budget is raised to 250 ms so a busy test machine cannot turn a slow line into
//! a budget failure; what the default budget catches is tested with the hostile parsers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{check, parsebox, problems, repo, status};

const BUDGET: &[&str] = &["--line-budget-ms", "250", "--init-budget-ms", "2000"];

fn check_json(name: &str, extra: &[&str]) -> (common::Run, serde_json::Value) {
    let parser = repo(&format!("tests/corpus/compat/{name}/ui-parser.js"));
    let log = repo(&format!("tests/corpus/compat/{name}/sample.log"));
    let mut args = vec!["check", parser.as_str(), "--log", log.as_str(), "--json"];
    args.extend_from_slice(BUDGET);
    args.extend_from_slice(extra);
    let run = parsebox(&args);
    let report = run.json();
    (run, report)
}

/// The check passes with nothing to report but the skipped package checks.
fn passes(name: &str) {
    let (run, report) = check_json(name, &[]);
    assert_eq!(
        problems(&report),
        Vec::<(String, String)>::new(),
        "{name}:\n{}",
        run.stdout
    );
    assert_eq!(run.code, 0, "{name}");
    assert_eq!(report["passed"], true);
    assert_eq!(status(&report, "contract_version"), "skip");
    parse_ok(name);
}

/// The check passes with one warning: replaying the log after `reset()` in the same run gives
/// other ids (module-level counters or Math.random() ids that reset() cannot rewind).
fn passes_with_reset_warning(name: &str) {
    let (run, report) = check_json(name, &[]);
    assert_eq!(
        problems(&report),
        vec![("reset_replay".to_owned(), "warn".to_owned())],
        "{name}:\n{}",
        run.stdout
    );
    assert_eq!(run.code, 0, "{name}: a warning does not fail the check");
    // --strict turns the warning into a failure.
    let (strict, report) = check_json(name, &["--strict"]);
    assert_eq!(strict.code, 1, "{name}");
    assert_eq!(report["passed"], false);
    parse_ok(name);
}

/// `parse` prints one valid JSON entry per line, and nothing on stderr but the summary.
fn parse_ok(name: &str) -> Vec<serde_json::Value> {
    let parser = repo(&format!("tests/corpus/compat/{name}/ui-parser.js"));
    let log = repo(&format!("tests/corpus/compat/{name}/sample.log"));
    let mut args = vec![
        "parse",
        "--parser",
        parser.as_str(),
        log.as_str(),
        "--format",
        "jsonl",
    ];
    args.extend_from_slice(BUDGET);
    let run = parsebox(&args);
    assert_eq!(run.code, 0, "{name}: {}", run.stderr);
    let entries: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON entry per line"))
        .collect();
    assert!(!entries.is_empty(), "{name}");
    for e in &entries {
        assert!(e["kind"].is_string() && e["ts"].is_string(), "{name}: {e}");
    }
    assert!(
        run.stderr.starts_with("parsebox: "),
        "{name}: {}",
        run.stderr
    );
    entries
}

macro_rules! corpus {
    ($($test:ident => $body:expr;)*) => { $(#[test] fn $test() { $body })* };
}

corpus! {
    acpx_session => passes("acpx-session");
    both_exports_droid => passes("both-exports-droid");
    class_private_cursor => passes("class-private-cursor");
    claude_partial_deltas => passes("claude-partial-deltas");
    claude_stream_json => passes("claude-stream-json");
    codex_items => passes("codex-items");
    esbuild_cjs_gemini => passes("esbuild-cjs-gemini");
    handwritten_cjs_aider => passes("handwritten-cjs-aider");
    modern_syntax_pi => passes("modern-syntax-pi");
    // One line takes 95 % of the default line budget (the sandbox's budgets test keeps it there).
    near_budget_scanner => passes("near-budget-scanner");
    single_entry_returns => passes("single-entry-returns");
    tsc_cjs_opencode => passes("tsc-cjs-opencode");
    // Tool ids from Math.random(): the generator is seeded per run, not rewound by reset().
    date_ids_gateway => passes_with_reset_warning("date-ids-gateway");
    // A module-level id generator.
    generators_kimi => passes_with_reset_warning("generators-kimi");
    // A module-level counter behind a stateless parseStdoutLine.
    hermes_counter => passes_with_reset_warning("hermes-counter");
    // A module-level tool sequence shared by all instances.
    hermes_emoji => passes_with_reset_warning("hermes-emoji");
}

/// The corpus marks one line of json-reviver-openhands `@@parsebox-expect-throw@@`: the
/// parser throws there on purpose. The check fails on exactly that line, and `parse` shows it
/// as a plain stdout entry.
#[test]
fn json_reviver_openhands_throws_on_its_marked_line() {
    let (run, report) = check_json("json-reviver-openhands", &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        problems(&report),
        vec![("sample_log".to_owned(), "fail".to_owned())],
        "{}",
        run.stdout
    );
    let sample = check(&report, "sample_log");
    assert!(
        sample["summary"]
            .as_str()
            .unwrap()
            .starts_with("1 of 33 lines failed (threw ×1)"),
        "{sample}"
    );
    let log = std::fs::read_to_string(repo(
        "tests/corpus/compat/json-reviver-openhands/sample.log",
    ))
    .unwrap();
    let marked: Vec<usize> = log
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("@@parsebox-expect-throw@@"))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(marked.len(), 1);
    let detail = sample["details"][0].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "line {}: threw: Error: intentional failure",
            marked[0]
        )),
        "{detail}"
    );

    let entries = parse_ok("json-reviver-openhands");
    let fallback: Vec<&serde_json::Value> = entries
        .iter()
        .filter(|e| {
            e["text"]
                .as_str()
                .is_some_and(|t| t.contains("@@parsebox-expect-throw@@"))
        })
        .collect();
    assert_eq!(fallback.len(), 1);
    assert_eq!(
        fallback[0]["kind"], "stdout",
        "the throwing line falls back to the generic parser"
    );
}

/// unicode-strings-qwen splits its plain lines on `/(\s)/` and returns the whitespace it found.
/// On the awkward 65 KB plain line that is more than 10,000 items, which the contract refuses
/// (`max_array_len`): the check reports that entry and nothing else, as Node would give the
/// same array. (Until the sandbox's split searched from match to match, boa's split tried every
/// position of those lines, each a search from there: seconds in one native step, reported as
/// a line the sandbox could not interrupt.)
#[test]
fn unicode_strings_qwen_reports_its_oversized_array_on_a_huge_line() {
    let (run, report) = check_json("unicode-strings-qwen", &["--hang-timeout-ms", "3000"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let problems: Vec<String> = problems(&report).into_iter().map(|(id, _)| id).collect();
    assert_eq!(problems, ["entries"], "{}", run.stdout);
    assert_eq!(status(&report, "sample_log"), "pass");
    assert_eq!(status(&report, "awkward_lines"), "pass");
    let text = run.stdout.as_str();
    assert!(text.contains("huge plain line"), "{text}");
    assert!(text.contains("max_array_len"), "{text}");
}
