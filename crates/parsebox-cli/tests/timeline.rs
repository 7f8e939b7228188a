//! `parsebox parse --format timeline`: what a viewer would draw, one item per line — tool calls
//! paired with their results, failures and calls that were never answered visible as such.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{parsebox, repo};
use serde_json::Value;

const GOOD: &str = "tests/fixtures/good/ui-parser.js";
const GOOD_LOG: &str = "tests/fixtures/good/sample.log";

/// The timeline items `parse --format timeline` prints for `parser` over `log`.
fn timeline(parser: &str, log: &str) -> Vec<Value> {
    let run = parsebox(&["parse", "--parser", parser, log, "--format", "timeline"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The tool cards whose tool is `title`.
fn cards<'a>(items: &'a [Value], title: &str) -> Vec<&'a Value> {
    items
        .iter()
        .filter(|i| i["toolCall"]["title"] == title)
        .collect()
}

#[test]
fn a_call_and_its_result_print_as_one_completed_card() {
    let items = timeline(GOOD, GOOD_LOG);
    let bash = cards(&items, "Bash");
    assert_eq!(
        bash.len(),
        1,
        "one card for the call and its result: {items:#?}"
    );
    let bash = bash[0];
    assert_eq!(bash["type"], "tool_call");
    assert_eq!(bash["toolCall"]["kind"], "shell");
    assert_eq!(bash["toolCall"]["status"], "completed");
    assert_eq!(
        bash["toolCall"]["rawInput"]["command"],
        "ls -la /home/alice/project"
    );
    assert_eq!(
        bash["toolCall"]["content"][0],
        serde_json::json!({"type": "content", "text": "total 8\nREADME.md\nsrc\ntests", "isError": false})
    );
    // No separate result item: every result found its call.
    assert!(
        items.iter().all(|i| i["type"] != "tool_result"),
        "{items:#?}"
    );
}

#[test]
fn a_failed_result_marks_its_card_failed() {
    let items = timeline(GOOD, GOOD_LOG);
    let read = cards(&items, "Read");
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["toolCall"]["status"], "failed");
    assert_eq!(read[0]["toolCall"]["content"][0]["text"], "No such file");
    assert_eq!(
        read[0]["toolCall"]["locations"][0]["path"],
        "tests/test_app.py"
    );
}

#[test]
fn items_have_stable_ids_and_positions() {
    let items = timeline(GOOD, GOOD_LOG);
    let outline: Vec<(String, String, bool, bool)> = items
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_owned(),
                i["type"].as_str().unwrap().to_owned(),
                i["isFirst"].as_bool().unwrap(),
                i["isLast"].as_bool().unwrap(),
            )
        })
        .collect();
    // An id names the log line that started the item (counted from 0, the blank line not
    // counted), and which of its entries: the library's ids for the same run.
    let expect = [
        ("e0", "init", true, true),
        ("e1", "user", true, true),
        ("e2", "thinking", true, false),
        ("e3", "assistant", false, false), // line 4's delta merged into it
        ("e5", "tool_call", false, false), // line 6's result is in its card
        ("e7", "stdout", false, false),
        ("e8", "tool_call", false, false),
        // Line 9 (the Read result) and line 10's diff lines are in the e8 card.
        ("e11", "stderr", false, false),
        ("e12", "system", false, false),
        ("e13", "result", false, false),
        ("e14", "result", false, true),
    ];
    let expect: Vec<(String, String, bool, bool)> = expect
        .iter()
        .map(|(a, b, c, d)| ((*a).to_owned(), (*b).to_owned(), *c, *d))
        .collect();
    assert_eq!(outline, expect);
}

#[test]
fn a_call_never_answered_says_so() {
    // codex-items: the web search gets no result before the run ends.
    let parser = repo("tests/corpus/compat/codex-items/ui-parser.js");
    let log = repo("tests/corpus/compat/codex-items/sample.log");
    let items = timeline(&parser, &log);
    let search = cards(&items, "web_search");
    assert_eq!(search.len(), 1);
    assert_eq!(search[0]["toolCall"]["status"], "unanswered");
    assert_eq!(search[0]["toolCall"]["kind"], "fetch");
    // Its apply_patch cards carry their diff lines.
    let patches = cards(&items, "apply_patch");
    assert_eq!(patches.len(), 2);
    for p in patches {
        assert_eq!(p["toolCall"]["status"], "completed");
        assert!(
            p["toolCall"]["content"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["type"] == "diff"),
            "{p:#}"
        );
    }
    assert!(
        items.iter().all(|i| i["type"] != "diff"),
        "no stray diff block"
    );
}
