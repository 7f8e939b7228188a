//! The timeline rules (SPEC §9 and `Timeline`'s docs), one test each: what a viewer shows for a
//! given transcript.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::*;
use parsebox_timeline::{
    DiffLine, EntriesMoved, TimelineItemType as T, TimelineUpdate, ToolContent, ToolKind,
    ToolLocation, ToolStatus,
};
use parsebox_transcript::DiffChangeType;
use serde_json::json;

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_call_and_its_result_are_one_card() {
    let got = items(
        &[
            call("Read", Some("c1")),
            assistant("reading"),
            res("c1", "fn main() {}", false, None),
        ],
        false,
    );
    assert_eq!(
        outline(&got),
        [("e0".into(), T::ToolCall), ("e1".into(), T::Assistant)]
    );
    let c = card(&got[0]);
    assert_eq!(c.status, ToolStatus::Completed);
    assert_eq!(c.tool_call_id.as_deref(), Some("c1"));
    assert_eq!(c.title, "Read");
    assert_eq!(c.kind, ToolKind::Read);
    assert_eq!(c.raw_input, Some(json!({"file_path": "src/a.rs"}).into()));
    assert_eq!(
        c.locations,
        Some(vec![ToolLocation {
            path: "src/a.rs".into()
        }])
    );
    assert_eq!(results(&got[0]), ["fn main() {}"]);
    assert_eq!(got[0].entries, [0, 2]);
}

#[test]
fn a_call_is_pending_until_its_result_and_failed_on_is_error() {
    let pending = items(&[call("Bash", Some("c1"))], false);
    assert_eq!(status(&pending[0]), ToolStatus::Pending);
    let failed = items(
        &[call("Bash", Some("c1")), res("c1", "exit 1", true, None)],
        false,
    );
    assert_eq!(status(&failed[0]), ToolStatus::Failed);
    assert_eq!(
        card(&failed[0]).content,
        [ToolContent::Content(parsebox_timeline::ToolOutput {
            text: "exit 1".into(),
            is_error: true
        })]
    );
}

#[test]
fn results_out_of_order_each_find_their_call() {
    let got = items(
        &[
            call("Bash", Some("a")),
            call("Bash", Some("b")),
            res("b", "B", true, None),
            res("a", "A", false, None),
        ],
        true,
    );
    assert_eq!(got.len(), 2);
    assert_eq!(results(&got[0]), ["A"]);
    assert_eq!(status(&got[0]), ToolStatus::Completed);
    assert_eq!(results(&got[1]), ["B"]);
    assert_eq!(status(&got[1]), ToolStatus::Failed);
    assert_eq!(got[0].entries, [0, 3]);
    assert_eq!(got[1].entries, [1, 2]);
}

#[test]
fn a_result_before_its_call_is_an_orphan_until_the_call_claims_it() {
    let entries = [
        res("x", "early", false, Some("Grep")),
        assistant("meanwhile"),
        call("Grep", Some("x")),
    ];
    // Before the call: its own `tool_result` item, already completed.
    let early = items(&entries[..2], false);
    assert_eq!(early[0].item_type, T::ToolResult);
    assert_eq!(card(&early[0]).title, "Grep");
    assert_eq!(card(&early[0]).kind, ToolKind::Search);
    assert_eq!(status(&early[0]), ToolStatus::Completed);
    // The call joins it: same id, same place, now a call card with the result's status.
    let got = items(&entries, true);
    assert_eq!(
        outline(&got),
        [("e0".into(), T::ToolCall), ("e1".into(), T::Assistant)]
    );
    assert_eq!(status(&got[0]), ToolStatus::Completed);
    assert_eq!(
        card(&got[0]).raw_input,
        Some(json!({"file_path": "src/a.rs"}).into())
    );
    assert_eq!(got[0].entries, [0, 2]);
}

#[test]
fn a_result_without_any_call_stays_visible_as_its_own_item() {
    let got = items(
        &[
            res("", "orphan text", true, None),
            res("zz", "other", false, None),
        ],
        true,
    );
    assert_eq!(
        outline(&got),
        [("e0".into(), T::ToolResult), ("e1".into(), T::ToolResult)]
    );
    assert_eq!(card(&got[0]).tool_call_id, None);
    assert_eq!(card(&got[0]).title, "");
    assert_eq!(card(&got[0]).kind, ToolKind::Other);
    assert_eq!(status(&got[0]), ToolStatus::Failed);
    assert_eq!(card(&got[1]).tool_call_id.as_deref(), Some("zz"));
    // A later duplicate of an orphan joins it.
    let dup = items(
        &[res("zz", "one", false, None), res("zz", "two", true, None)],
        true,
    );
    assert_eq!(dup.len(), 1);
    assert_eq!(results(&dup[0]), ["one", "two"]);
}

#[test]
fn duplicate_results_stay_in_the_card_and_the_latest_decides() {
    let got = items(
        &[
            call("Bash", Some("c1")),
            res("c1", "first", false, None),
            res("c1", "second", true, None),
        ],
        true,
    );
    assert_eq!(got.len(), 1);
    assert_eq!(results(&got[0]), ["first", "second"]);
    assert_eq!(status(&got[0]), ToolStatus::Failed);
}

#[test]
fn a_reused_id_pairs_each_result_with_the_oldest_unanswered_call() {
    // aider reuses `edit:<path>` ids: each result goes to the call still waiting.
    let got = items(
        &[
            call("edit", Some("edit:a.py")),
            res("edit:a.py", "one", false, None),
            call("edit", Some("edit:a.py")),
            res("edit:a.py", "two", false, None),
        ],
        true,
    );
    assert_eq!(got.len(), 2);
    assert_eq!(results(&got[0]), ["one"]);
    assert_eq!(results(&got[1]), ["two"]);
}

#[test]
fn without_ids_a_result_joins_the_oldest_unanswered_call_of_its_tool() {
    let got = items(
        &[
            call("Bash", None),
            call("Read", None),
            call("bash", None),
            res("", "read it", false, Some("Read")),
            res("", "ran", false, Some("BASH")), // names match without regard to case
            res("", "ran again", false, Some("Bash")),
        ],
        true,
    );
    assert_eq!(results(&got[0]), ["ran"]);
    assert_eq!(results(&got[1]), ["read it"]);
    assert_eq!(results(&got[2]), ["ran again"]);
    assert!(got.iter().all(|i| status(i) == ToolStatus::Completed));
}

#[test]
fn a_nameless_result_without_id_joins_the_oldest_unanswered_call_without_id() {
    let got = items(
        &[
            call("Bash", Some("c1")),
            call("Read", None),
            call("Grep", None),
            res("", "first", false, None),
            res("", "second", false, None),
        ],
        true,
    );
    assert_eq!(status(&got[0]), ToolStatus::Unanswered); // has an id: not taken by guesswork
    assert_eq!(results(&got[1]), ["first"]);
    assert_eq!(results(&got[2]), ["second"]);
}

#[test]
fn a_result_without_id_but_with_a_name_may_answer_a_call_with_an_id() {
    let got = items(
        &[call("Bash", Some("c1")), res("", "ok", false, Some("Bash"))],
        true,
    );
    assert_eq!(got.len(), 1);
    assert_eq!(status(&got[0]), ToolStatus::Completed);
}

#[test]
fn a_result_with_an_unknown_id_answers_a_call_without_id_by_name() {
    let got = items(
        &[
            call("Bash", Some("c1")),
            call("Bash", None),
            res("r9", "ok", false, Some("Bash")),
        ],
        true,
    );
    // Not the call with another id; the id-less one.
    assert_eq!(status(&got[0]), ToolStatus::Unanswered);
    assert_eq!(results(&got[1]), ["ok"]);
}

#[test]
fn an_empty_tool_use_id_counts_as_none() {
    let got = items(&[call("Bash", Some("")), res("", "ok", false, None)], true);
    assert_eq!(got.len(), 1);
    assert_eq!(card(&got[0]).tool_call_id, None);
    assert_eq!(status(&got[0]), ToolStatus::Completed);
}

#[test]
fn calls_never_answered_say_so_at_finish() {
    let entries = [
        call("Bash", Some("c1")),
        call("Read", Some("c2")),
        res("c2", "ok", false, None),
    ];
    let mut timeline = parsebox_timeline::Timeline::new();
    timeline.update(&entries, 0..3);
    assert_eq!(status(&timeline.items()[0]), ToolStatus::Pending);
    let up = timeline.finish();
    assert_eq!(
        up,
        TimelineUpdate {
            changed: ids(&["e0"]),
            ..TimelineUpdate::default()
        }
    );
    assert_eq!(status(&timeline.items()[0]), ToolStatus::Unanswered);
    assert_eq!(status(&timeline.items()[1]), ToolStatus::Completed);
    assert!(timeline.finish().is_empty(), "finish twice changes nothing");
    // A late answer still pairs.
    let mut late = entries.to_vec();
    late.push(res("c1", "late", false, None));
    let up = timeline.update(&late, 3..4);
    assert_eq!(up.changed, ids(&["e0"]));
    assert_eq!(status(&timeline.items()[0]), ToolStatus::Completed);
    assert_eq!(timeline.items(), items(&late, true));
}

#[test]
fn diff_lines_after_a_call_belong_to_that_call() {
    let got = items(
        &[
            call("Edit", Some("c1")),
            diff("hunk", "@@ -1 +1 @@"),
            diff("remove", "a"),
            diff("add", "b"),
            res("c1", "edited", false, None),
            assistant("done"),
        ],
        true,
    );
    assert_eq!(
        outline(&got),
        [("e0".into(), T::ToolCall), ("e5".into(), T::Assistant)]
    );
    let content = &card(&got[0]).content;
    assert_eq!(content.len(), 4);
    assert_eq!(
        content[2],
        ToolContent::Diff(DiffLine {
            change_type: DiffChangeType::Add,
            text: "b".into()
        })
    );
    assert!(matches!(content[3], ToolContent::Content(_)));
    assert_eq!(got[0].entries, [0, 1, 2, 3, 4]);
}

#[test]
fn diff_lines_after_a_result_join_the_card_it_answered() {
    // Results may come after other calls: the diff follows the result to its card.
    let got = items(
        &[
            call("Edit", Some("a")),
            call("Bash", Some("b")),
            res("a", "edited", false, None),
            diff("add", "x"),
        ],
        true,
    );
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].entries, [0, 2, 3]);
    assert_eq!(got[1].entries, [1]);
}

#[test]
fn system_stderr_and_stdout_lines_do_not_cut_a_diff_from_its_call() {
    // acpx-style: a status line between the call and its diff.
    let got = items(
        &[
            call("Edit", Some("c1")),
            system("applying edit"),
            stderr("warning"),
            diff("add", "x"),
        ],
        true,
    );
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].entries, [0, 3]);
}

#[test]
fn diff_lines_with_no_call_before_them_are_their_own_block() {
    // aider-style: diffs inside assistant text. Text ends a card's claim on later diffs.
    let got = items(
        &[
            diff("file_header", "--- a"),
            diff("add", "x"),
            assistant("and then"),
            call("Edit", Some("c1")),
            res("c1", "ok", false, None),
            assistant("more"),
            diff("remove", "y"),
        ],
        true,
    );
    assert_eq!(
        outline(&got),
        [
            ("e0".into(), T::Diff),
            ("e2".into(), T::Assistant),
            ("e3".into(), T::ToolCall),
            ("e5".into(), T::Assistant),
            ("e6".into(), T::Diff),
        ]
    );
    assert_eq!(got[0].diff.as_ref().unwrap().len(), 2);
    assert_eq!(got[0].entries, [0, 1]);
    assert_eq!(got[4].diff.as_ref().unwrap()[0].text, "y");
}

#[test]
fn positions_follow_the_seed_rule() {
    let got = items(
        &[
            init(),
            user("hi"),
            assistant("a"),
            call("Bash", Some("c1")),
            res("c1", "ok", false, None),
            assistant("b"),
            user("again"),
            system("s"),
            result(),
        ],
        true,
    );
    let flags: Vec<(T, bool, bool)> = got
        .iter()
        .map(|i| (i.item_type, i.is_first, i.is_last))
        .collect();
    assert_eq!(
        flags,
        [
            (T::Init, true, true),       // alone before the first user message
            (T::User, true, true),       // a user message has no connector
            (T::Assistant, true, false), // the line starts here
            (T::ToolCall, false, false), // middle
            (T::Assistant, false, true), // the line ends here
            (T::User, true, true),
            (T::System, true, false),
            (T::Result, false, true),
        ]
    );
}

#[test]
fn a_new_item_flips_is_last_of_the_one_before_and_says_so() {
    let mut entries = vec![user("go"), assistant("a")];
    let mut timeline = parsebox_timeline::Timeline::new();
    timeline.update(&entries, 0..2);
    assert!(timeline.items()[1].is_last);
    entries.push(call("Bash", Some("c1")));
    let up = timeline.update(&entries, 2..3);
    assert_eq!(up.added, ids(&["e2"]));
    assert_eq!(up.changed, ids(&["e1"]));
    assert!(!timeline.items()[1].is_last);
    assert!(timeline.items()[2].is_last);
    // A result changes the card only.
    entries.push(res("c1", "ok", false, None));
    let up = timeline.update(&entries, 3..4);
    assert_eq!(
        up,
        TimelineUpdate {
            changed: ids(&["e2"]),
            ..TimelineUpdate::default()
        }
    );
    // A user message after it ends the sequence.
    entries.push(user("thanks"));
    let up = timeline.update(&entries, 4..5);
    assert_eq!(up.added, ids(&["e4"]));
    assert!(up.changed.is_empty(), "e2 was already last: {up:?}");
}

#[test]
fn ids_do_not_change_as_the_run_grows() {
    let entries = [
        user("go"),
        res("r", "early", false, None),
        call("Bash", None),
        diff("add", "x"),
        call("Grep", Some("r")),
        res("", "ok", false, None),
        assistant("done"),
    ];
    let mut timeline = parsebox_timeline::Timeline::new();
    let mut seen: Vec<(usize, String)> = Vec::new();
    for n in 1..=entries.len() {
        timeline.update(&entries[..n], n - 1..n);
        for (i, item) in timeline.items().iter().enumerate() {
            if let Some((_, id)) = seen.iter().find(|(pos, _)| *pos == i) {
                assert_eq!(&item.id, id, "item {i} changed its id");
            } else {
                seen.push((i, item.id.to_string()));
            }
            assert_eq!(item.id, format!("e{}", item.entries[0]));
        }
    }
    assert_eq!(timeline.items(), items(&entries, false));
}

#[test]
fn a_reset_mid_run_replaces_the_tail() {
    let first = vec![
        user("go"),
        call("Bash", Some("c1")),
        res("c1", "ok", false, None),
        assistant("done"),
    ];
    let mut timeline = parsebox_timeline::Timeline::new();
    timeline.update(&first, 0..4);
    // The parser arrived and the transcript was rebuilt from entry 1: a different tail.
    let second = vec![
        user("go"),
        stdout("{\"type\":\"call\"}"),
        stdout("{\"type\":\"done\"}"),
    ];
    let up = timeline.update(&second, 1..3);
    assert_eq!(up.changed, ids(&["e1"])); // the call's place is now a stdout line
    assert_eq!(up.added, ids(&["e2"]));
    assert_eq!(up.removed, ids(&["e3"]));
    assert_eq!(timeline.items(), items(&second, false));
    // Shrinking to the first entry removes the rest.
    let up = timeline.update(&second[..1], 1..1);
    assert_eq!(up.removed, ids(&["e1", "e2"]));
    assert_eq!(timeline.items(), items(&second[..1], false));
    // A rebuild from scratch (0..len) gives the from-scratch timeline.
    let up = timeline.update(&first, 0..4);
    assert_eq!(up.added, ids(&["e1", "e3"]));
    assert!(up.changed.is_empty(), "e0 is the same user message: {up:?}");
    assert_eq!(timeline.items(), items(&first, false));
}

#[test]
fn replacing_a_result_rolls_its_call_back() {
    let with_result = vec![
        call("Bash", Some("c1")),
        assistant("meanwhile"),
        res("c1", "ok", false, None),
    ];
    let mut timeline = parsebox_timeline::Timeline::from_entries(&with_result, false);
    // Entry 2 replaced by plain stdout: the call is pending again, the stdout is new.
    let replaced = vec![with_result[0].clone(), with_result[1].clone(), stdout("x")];
    let up = timeline.update(&replaced, 2..3);
    assert_eq!(up.changed, ids(&["e0", "e1"])); // e1 is no longer last
    assert_eq!(up.added, ids(&["e2"]));
    assert_eq!(status(&timeline.items()[0]), ToolStatus::Pending);
    assert_eq!(timeline.items(), items(&replaced, false));
    // And a claimed orphan goes back to being an orphan.
    let claimed = vec![res("x", "early", false, None), call("Grep", Some("x"))];
    let mut timeline = parsebox_timeline::Timeline::from_entries(&claimed, true);
    let up = timeline.update(&claimed[..1], 1..1);
    assert_eq!(up.changed, ids(&["e0"]));
    assert_eq!(timeline.items()[0].item_type, T::ToolResult);
    assert_eq!(timeline.items(), items(&claimed[..1], true));
}

#[test]
fn a_merged_delta_changes_its_item_in_place() {
    let mut entries = vec![user("go"), assistant("Hel")];
    let mut timeline = parsebox_timeline::Timeline::new();
    timeline.update(&entries, 0..2);
    entries[1] = assistant("Hello");
    let up = timeline.update(&entries, 1..2);
    assert_eq!(
        up,
        TimelineUpdate {
            changed: ids(&["e1"]),
            ..TimelineUpdate::default()
        }
    );
    assert_eq!(timeline.items()[1].content.as_deref(), Some("Hello"));
    // Replacing an entry with an equal one reports nothing.
    let up = timeline.update(&entries, 1..2);
    assert!(up.is_empty(), "{up:?}");
}

#[test]
fn init_and_result_items_carry_their_summaries() {
    let got = items(&[init(), result()], true);
    let init = got[0].init.as_ref().unwrap();
    assert_eq!((init.model.as_str(), init.session_id.as_str()), ("m", "s"));
    assert_eq!(got[1].content.as_deref(), Some("done"));
    let r = got[1].result.as_ref().unwrap();
    assert_eq!(r.subtype, "success");
    assert_eq!(r.cost_usd.as_f64(), Some(0.5));
}

#[test]
fn the_wire_shape_is_camel_case_with_a_type_tag() {
    let got = items(
        &[
            call("Edit", Some("c1")),
            diff("add", "x"),
            res("c1", "ok", false, None),
        ],
        true,
    );
    let v = serde_json::to_value(&got[0]).unwrap();
    assert_eq!(
        v,
        json!({
            "id": "e0",
            "type": "tool_call",
            "timestamp": "t",
            "toolCall": {
                "toolCallId": "c1",
                "kind": "edit",
                "title": "Edit",
                "status": "completed",
                "rawInput": {"file_path": "src/a.rs"},
                "content": [
                    {"type": "diff", "changeType": "add", "text": "x"},
                    {"type": "content", "text": "ok", "isError": false}
                ],
                "locations": [{"path": "src/a.rs"}]
            },
            "isFirst": true,
            "isLast": true,
            "entries": [0, 1, 2]
        })
    );
    let back: parsebox_timeline::TimelineItem = serde_json::from_value(v).unwrap();
    assert_eq!(back, got[0]);
}

#[test]
fn paths_in_the_input_become_locations() {
    let got = items(
        &[
            entry(
                json!({"kind": "tool_call", "ts": "t", "name": "read_many_files",
                         "input": {"paths": ["a.rs", "b.rs", "a.rs"]}}),
            ),
            entry(json!({"kind": "tool_call", "ts": "t", "name": "Bash",
                         "input": {"command": "ls"}})),
            entry(json!({"kind": "tool_call", "ts": "t", "name": "x"})),
        ],
        false,
    );
    let paths: Vec<&str> = card(&got[0])
        .locations
        .as_ref()
        .unwrap()
        .iter()
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(paths, ["a.rs", "b.rs"]);
    assert_eq!(card(&got[1]).locations, None);
    assert_eq!(card(&got[2]).raw_input, None);
}

#[test]
fn item_for_entry_finds_the_card_of_a_result() {
    let entries = [
        call("Bash", Some("c1")),
        user("?"),
        res("c1", "ok", false, None),
    ];
    let timeline = parsebox_timeline::Timeline::from_entries(&entries, true);
    assert_eq!(timeline.item_for_entry(2).unwrap().id, "e0");
    assert_eq!(timeline.item_for_entry(1).unwrap().id, "e1");
    assert!(timeline.item_for_entry(3).is_none());
    assert!(timeline.is_finished());
}

#[test]
fn an_update_names_items_that_item_finds() {
    let entries = [assistant("hi"), call("Read", Some("c1"))];
    let mut timeline = parsebox_timeline::Timeline::new();
    let up = timeline.update(&entries, 0..2);
    for id in &up.added {
        assert_eq!(timeline.item(id).unwrap().id, *id);
    }
    assert!(timeline.item("e2").is_none());
    assert!(timeline.item("x1").is_none());
    assert!(timeline.item("e").is_none());
}

#[test]
fn the_wire_form_points_at_the_entries_that_hold_the_texts() {
    let entries = vec![
        entry(json!({"kind": "assistant", "ts": "t0", "text": "looking"})),
        entry(
            json!({"kind": "tool_call", "ts": "t1", "name": "Edit", "toolUseId": "c1",
                     "input": {"file_path": "a.rs"}}),
        ),
        entry(json!({"kind": "diff", "ts": "t2", "changeType": "add", "text": "+x"})),
        entry(
            json!({"kind": "tool_result", "ts": "t3", "toolUseId": "c1", "content": "done",
                     "isError": false}),
        ),
    ];
    let timeline = parsebox_timeline::Timeline::from_entries(&entries, false);
    let wire = |k: usize, base: usize| {
        serde_json::to_value(timeline.items()[k].sharing_texts(&entries[base..], base)).unwrap()
    };
    assert_eq!(wire(0, 0)["content"], json!(0));
    assert_eq!(wire(0, 0)["timestamp"], json!(0));
    let card = wire(1, 0);
    assert_eq!(card["toolCall"]["content"][0]["text"], json!(2), "{card}");
    assert_eq!(card["toolCall"]["content"][1]["text"], json!(3), "{card}");
    assert_eq!(card["toolCall"]["rawInput"], json!({"file_path": "a.rs"}));
    // In a window that starts at the result, the indices count from the window, and the diff
    // line before it keeps its text.
    let card = wire(1, 3);
    assert_eq!(
        card["toolCall"]["content"][0]["text"],
        json!("+x"),
        "{card}"
    );
    assert_eq!(card["toolCall"]["content"][1]["text"], json!(0), "{card}");
}

#[test]
fn updates_merge_in_timeline_order_with_their_moves() {
    let update = |changed: &[&str], added: &[&str], moved: Vec<EntriesMoved>| TimelineUpdate {
        changed: ids(changed),
        added: ids(added),
        removed: Vec::new(),
        moved,
    };
    let first = update(&["e10.1"], &["e11"], Vec::new());
    let move_by_two = EntriesMoved { at: 12, by: 2 };
    let then = update(&["e2", "e10"], &["e11.1"], vec![move_by_two]);
    let merged = first.followed_by(then);
    // Ids order as the lines that made them, not as text: e10 before e10.1 before e11.
    assert_eq!(merged.changed, ids(&["e2", "e10", "e10.1"]));
    assert_eq!(merged.added, ids(&["e11", "e11.1"]));
    assert_eq!(merged.moved, [move_by_two]);
    assert_eq!(move_by_two.apply(11), 11);
    assert_eq!(move_by_two.apply(12), 14);
}
