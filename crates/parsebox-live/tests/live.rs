//! The live core driven as the binding drives it, with a fake executor: built-in parsers answer
//! in the core, inline engines behind the executor, Worker engines get their ops as one frame
//! per drain, and late answers wait for the page's frame. What a page would notice: which
//! entries a line shows now, what the JS driver is asked to do, and when it is woken.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::rc::Rc;

use common::*;
use parsebox_host::{HostOptions, HostPlacement};
use parsebox_live::{
    EngineDeath, ExecutorCommand, HostRunParser, LineUpdate, LiveCore, Reentered, SharedCore,
};

#[test]
fn a_builtin_answers_its_line_at_once_with_nothing_for_the_executor() {
    let (mut live, seen) = live(HostPlacement::Inline);
    let status = live.register_builtin("b", FakeBuiltin).unwrap();
    assert_eq!(status.state, parsebox_host::AdapterState::Builtin);
    let run = live.create_run("b", GENERIC, false).unwrap();
    let (entries, late) = live.parse_line(run, "hello", "t1").unwrap();
    assert_eq!(texts(&entries), ["builtin:hello"]);
    assert_eq!(late, None);
    let status = live.host().status("b");
    assert!(
        status.entry_point.is_some() && status.module.is_none(),
        "a built-in has no module: {status:?}"
    );
    assert!(live
        .take_commands()
        .iter()
        .all(|c| matches!(c, ExecutorCommand::Notify { .. })));
    assert!(live.is_idle());
    drop(seen);
}

#[test]
fn an_inline_engine_answers_at_once_and_its_death_fails_that_line_alone() {
    let (mut live, _seen) = live(HostPlacement::Inline);
    live.register_source("i", SOURCE, None).unwrap();
    assert_eq!(
        live.host().status("i").state,
        parsebox_host::AdapterState::Ready
    );
    let run = live.create_run("i", GENERIC, false).unwrap();
    let (entries, late) = live.parse_line(run, "one", "t1").unwrap();
    assert_eq!(
        (texts(&entries), late),
        (vec!["inline:one".to_owned()], None)
    );
    for (line, code) in [("die", "engine_fault"), ("oom", "memory_exceeded")] {
        let (entries, late) = live.parse_line(run, line, "t2").unwrap();
        assert_eq!(late, None, "{line}");
        assert_eq!(
            texts(&entries),
            [line],
            "{line}: the line falls back to its generic entry"
        );
        let d = live.host().diagnostics(Some("i"));
        assert!(
            serde_json::to_string(&d).unwrap().contains(code),
            "{line}: {code} in {d:?}"
        );
    }
    let (entries, _) = live.parse_line(run, "two", "t3").unwrap();
    assert_eq!(
        texts(&entries),
        ["inline:two"],
        "the parser stays registered"
    );
}

#[test]
fn more_inline_types_than_live_engines_each_answer_every_line_with_their_parser() {
    // Issue 54: with more types than `maxLiveEngines` in use inline, each line's engine had
    // been parked to make room, so every `parseLine` answered generic (and nothing counted
    // it). A parked engine starts again, with its runs replayed, inside the call: the line is
    // answered by its parser in that call.
    let (mut live, _seen) = live_with(HostOptions {
        host: HostPlacement::Inline,
        load_sources: false,
        max_live_engines: 2,
        ..HostOptions::default()
    });
    let types = ["a", "b", "c", "d"];
    let runs: Vec<_> = types
        .iter()
        .map(|t| {
            live.register_source(t, SOURCE, None).unwrap();
            live.create_run(t, GENERIC, false).unwrap()
        })
        .collect();
    for round in 0..3 {
        for (t, run) in types.iter().zip(&runs) {
            let line = format!("{t}{round}");
            let (entries, late) = live.parse_line(*run, &line, "t").unwrap();
            assert_eq!(
                (texts(&entries), late),
                (vec![format!("inline:{line}")], None),
                "{line}"
            );
        }
    }
    let parked: u64 = types
        .iter()
        .map(|t| live.host().diagnostics(Some(t)).host.parked)
        .sum();
    assert!(
        parked >= 8,
        "engines were parked and started again: {parked}"
    );
    assert!(
        live.take_frame().lines.is_empty(),
        "nothing answered late: every answer was the call's own"
    );
}

#[test]
fn an_inline_line_its_engine_stops_at_the_deadline_runs_once_more_within_the_call() {
    // One native step that does not return (a regex backtracking without end) is stopped by
    // the engine's own loops inline too; the line runs once more on a fresh engine, in the
    // same call, and falls back with `deadline` only when it is stopped again.
    let (mut live, seen) = live(HostPlacement::Inline);
    live.register_source("i", SOURCE, None).unwrap();
    let run = live.create_run("i", GENERIC, false).unwrap();
    assert_eq!(
        texts(&live.parse_line(run, "one", "t").unwrap().0),
        ["inline:one"]
    );
    let (entries, late) = live.parse_line(run, "stop-once", "t").unwrap();
    assert_eq!(
        (texts(&entries), late),
        (vec!["inline:stop-once".to_owned()], None)
    );
    assert_eq!(seen.borrow().stopped_once, 1);
    let (entries, late) = live.parse_line(run, "stop", "t").unwrap();
    assert_eq!(
        (texts(&entries), late),
        (vec!["stop".to_owned()], None),
        "its generic entry"
    );
    let d = live.host().diagnostics(Some("i"));
    assert_eq!(d.host.deadline_retries, 2, "each line got its one more try");
    assert_eq!(d.fallbacks.get("deadline"), Some(&1));
    assert_eq!(
        texts(&live.parse_line(run, "two", "t").unwrap().0),
        ["inline:two"]
    );
}

#[test]
fn worker_lines_travel_as_one_frame_per_drain_announced_by_one_send_and_one_wake() {
    let (mut live, seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let wakes = seen.borrow().wakes;
    let run = live.create_run("w", GENERIC, false).unwrap();
    let mut seqs = Vec::new();
    for line in ["a", "b", "c"] {
        let (entries, late) = live.parse_line(run, line, "t").unwrap();
        assert_eq!(texts(&entries), [line], "the generic entry now");
        seqs.push(late.expect("a late answer will replace it"));
    }
    assert_eq!(
        seen.borrow().wakes,
        wakes + 1,
        "woken once, by the first command"
    );
    let commands = live.take_commands();
    assert_eq!(commands, [ExecutorCommand::Send { engine: engine.0 }]);
    let lines = sent_lines(&live.take_ops(engine));
    assert_eq!(
        lines,
        seqs.iter()
            .copied()
            .zip(["a", "b", "c"].map(String::from))
            .collect::<Vec<_>>()
    );
    assert!(live.take_ops(engine).is_empty(), "a frame is taken once");
    assert!(seen.borrow().posted.is_empty(), "nothing posted early");
}

#[test]
fn a_frame_past_the_post_size_is_posted_at_once() {
    let (mut live, seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let run = live.create_run("w", GENERIC, false).unwrap();
    let big = "x".repeat(64 << 10);
    let mut n = 0;
    while seen.borrow().posted.is_empty() && n < 10_000 {
        live.parse_line(run, &big, "t").unwrap();
        n += 1;
    }
    let posted = seen.borrow().posted.len();
    assert_eq!(
        posted, 1,
        "posted once the frame grew past wire::post_now ({n} lines)"
    );
    assert_eq!(seen.borrow().posted[0].0, engine);
}

#[test]
fn late_answers_wait_for_the_frame_a_builders_run_as_answers_any_other_as_line_updates() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let owned = live.create_run("w", GENERIC, true).unwrap();
    let free = live.create_run("w", GENERIC, false).unwrap();
    let (_, a) = live.parse_line(owned, "a", "t").unwrap();
    let (_, b) = live.parse_line(free, "b", "t").unwrap();
    live.take_commands();
    live.take_ops(engine);
    answer(&mut live, engine, a.unwrap(), "A");
    answer(&mut live, engine, b.unwrap(), "B");
    assert_eq!(
        live.take_commands(),
        [ExecutorCommand::Frame],
        "a frame is asked for once"
    );
    assert!(!live.is_idle(), "not idle while the frame waits");
    let frame = live.take_frame();
    assert_eq!(frame.builders, [owned.0]);
    assert_eq!(frame.lines.len(), 1);
    assert_eq!(frame.lines[0].0, "w");
    assert_eq!(texts(&frame.lines[0].1[0].entries), ["B"]);
    assert_eq!(
        frame.lines[0].1[0].failure, None,
        "the parser's answer stands"
    );
    let (answers, more) = live.take_answers(owned);
    assert!(!more);
    assert_eq!(answers.len(), 1);
    assert_eq!(texts(&answers[0].1), ["A"]);
}

#[test]
fn a_run_let_go_is_forgotten_everywhere_its_late_answers_included() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let run = live.create_run("w", GENERIC, true).unwrap();
    let (_, seq) = live.parse_line(run, "a", "t").unwrap();
    live.take_commands();
    live.take_ops(engine);
    answer(&mut live, engine, seq.unwrap(), "A");
    live.drop_run(run);
    let frame = live.take_frame();
    assert!(
        frame.builders.is_empty() && frame.lines.is_empty(),
        "nothing for a run let go: {frame:?}"
    );
    assert!(live.host().run_type(run).is_none());
}

#[test]
fn dispose_ends_every_engine_and_forgets_what_waited() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let run = live.create_run("w", GENERIC, true).unwrap();
    live.parse_line(run, "a", "t").unwrap();
    live.take_commands();
    live.dispose();
    assert!(live
        .take_commands()
        .contains(&ExecutorCommand::End { engine: engine.0 }));
    assert!(
        live.take_ops(engine).is_empty(),
        "the ended engine's frame is gone"
    );
    assert!(live.host().is_disposed());
}

#[test]
fn a_worker_start_report_that_is_not_json_fails_the_type_with_an_engine_fault() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    live.register_source("w", SOURCE, None).unwrap();
    let engine = started(&live.take_commands()).unwrap();
    live.worker_started(engine, "not json");
    let status = live.host().status("w");
    assert_eq!(status.state, parsebox_host::AdapterState::Failed);
    assert_eq!(
        status.error.map(|e| e.code),
        Some("engine_fault".to_owned())
    );
}

/// The late answers a frame carries for runs no builder owns, as texts, each with the code of
/// the failure it says its line fell back for.
fn line_updates(live: &mut LiveCore<FakeExecutor>) -> Vec<(Vec<String>, Option<String>)> {
    live.take_frame()
        .lines
        .into_iter()
        .flat_map(|(_, updates)| updates)
        .map(|u| (texts(&u.entries), u.failure.map(|f| f.code.to_string())))
        .collect()
}

#[test]
fn malformed_worker_answers_are_the_engines_death_the_line_falls_back_and_a_new_engine_starts() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    line_begun(&mut live, engine, "a");
    live.worker_answered(engine, &["[[1, {\"Ok\": [] }"]);
    let commands = live.take_commands();
    assert!(
        commands.contains(&ExecutorCommand::End { engine: engine.0 }),
        "{commands:?}"
    );
    assert!(started(&commands).is_some(), "{commands:?}");
    assert_eq!(
        line_updates(&mut live),
        [(vec!["a".to_owned()], Some("worker_fault".to_owned()))],
        "the line's generic entry, as its answer, and why"
    );
    assert_eq!(live.host().diagnostics(Some("w")).host.engine_faults, 1);
}

#[test]
fn a_worker_line_past_its_deadline_is_ended_at_the_timeout_and_falls_back_alone() {
    let (mut live, seen) = live(HostPlacement::Worker);
    let mut engine = worker_type(&mut live);
    let run = live.create_run("w", GENERIC, false).unwrap();
    live.parse_line(run, "hang", "t").unwrap();
    live.take_commands();
    // Each engine gets the line, begins it and never answers. The first may have held answers
    // for other lines (it batches), so its kill fails no line and the line runs again on an
    // engine that answers line by line; that one's kill fails the line.
    let mut updates = Vec::new();
    for round in 0..3 {
        let seq = sent_lines(&live.take_ops(engine))
            .into_iter()
            .find_map(|(seq, line)| (line == "hang").then_some(seq))
            .unwrap_or_else(|| panic!("round {round}: the line is sent again"));
        let wakes = seen.borrow().wakes;
        let deadline = live
            .worker_began(engine, seq)
            .expect("began arms a deadline");
        assert_eq!(seen.borrow().wakes, wakes, "began asks for no drain");
        assert!(live.take_commands().is_empty(), "began leads to no command");
        seen.borrow_mut().clock = deadline - 1.0;
        live.timeout_fired();
        assert!(
            !live
                .take_commands()
                .contains(&ExecutorCommand::End { engine: engine.0 }),
            "round {round}: not before its deadline"
        );
        seen.borrow_mut().clock = deadline;
        live.timeout_fired();
        let commands = live.take_commands();
        assert!(
            commands.contains(&ExecutorCommand::End { engine: engine.0 }),
            "round {round}: {commands:?}"
        );
        updates = line_updates(&mut live);
        if !updates.is_empty() {
            break;
        }
        let next = started(&commands)
            .unwrap_or_else(|| panic!("round {round}: a new engine starts: {commands:?}"));
        live.worker_started(next, r#"{"Ok":{"entryPoint":"parseStdoutLine"}}"#);
        live.take_commands();
        engine = next;
    }
    assert_eq!(
        updates,
        [(vec!["hang".to_owned()], Some("deadline".to_owned()))],
        "the line falls back to its generic entry, and says why"
    );
    assert!(live.host().diagnostics(Some("w")).host.deadline_kills >= 1);
}

#[test]
fn a_worker_line_that_threw_falls_back_and_its_update_says_what_was_thrown() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let seq = line_begun(&mut live, engine, "x");
    let threw = serde_json::json!([[seq, { "Err": { "code": "threw", "message": "parseStdoutLine threw: boom", "thrown": "boom" } }]]);
    live.worker_answered(engine, &[threw.to_string()]);
    let frame = live.take_frame();
    let update = &frame.lines[0].1[0];
    assert_eq!(texts(&update.entries), ["x"], "the generic entry");
    let failure = update.failure.as_ref().expect("a failure");
    assert_eq!(
        (failure.code.as_str(), failure.thrown.as_deref()),
        ("threw", Some("boom"))
    );
    // On the wire to the page: `failure` with the line's code and sentence, absent otherwise.
    let json = serde_json::to_value(update).unwrap();
    assert_eq!(json["failure"]["code"], "threw");
    assert_eq!(json["failure"]["thrown"], "boom");
}

#[test]
fn a_worker_out_of_memory_is_named_so_and_its_line_falls_back() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    line_begun(&mut live, engine, "big");
    live.worker_died(engine, EngineDeath::OutOfMemory(1 << 20));
    assert_eq!(
        line_updates(&mut live),
        [(vec!["big".to_owned()], Some("memory_exceeded".to_owned()))]
    );
    let d = live.host().diagnostics(Some("w"));
    assert_eq!(d.fallbacks.get("memory_exceeded"), Some(&1), "{d:?}");
}

#[test]
fn one_poll_gives_the_commands_their_ops_frames_and_the_next_timeout() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    live.register_source("w", SOURCE, None).unwrap();
    let polled = live.poll();
    let engine = started(&polled.commands).expect("a Worker to start");
    let start_deadline = live.host().options().start_deadline_ms;
    assert_eq!(
        polled.timeout_ms,
        Some(start_deadline),
        "the start deadline is armed"
    );
    assert!(!polled.idle, "an engine is starting");
    live.worker_started(engine, r#"{"Ok":{"entryPoint":"parseStdoutLine"}}"#);
    let polled = live.poll();
    assert_eq!(polled.timeout_ms, None, "started and idle: no deadline");
    assert_eq!(
        polled.commands,
        [ExecutorCommand::Notify {
            adapter_type: "w".into()
        }]
    );
    let polled = live.poll();
    assert_eq!(polled.commands, [], "taken once");
    assert!(polled.idle, "started, nothing owed: what idle() waits for");
    // A line for the Worker: its send and the frame's bytes come in the same poll.
    let run = live.create_run("w", GENERIC, false).unwrap();
    live.parse_line(run, "a", "t").unwrap();
    live.parse_line(run, "b", "t").unwrap();
    let polled = live.poll();
    assert_eq!(
        polled.commands,
        [ExecutorCommand::Send { engine: engine.0 }],
        "one send for both lines"
    );
    let sent = sent_lines(&polled.ops[0]);
    let lines: Vec<&str> = sent.iter().map(|(_, line)| line.as_str()).collect();
    assert_eq!(lines, ["a", "b"], "the frame travels with its send");
    assert!(live.take_ops(engine).is_empty(), "taken with the poll");
    assert!(!polled.idle, "two lines are owed");
    answer(&mut live, engine, sent[0].0, "A");
    answer(&mut live, engine, sent[1].0, "B");
    assert!(!live.poll().idle, "answered, and the frame waits");
    live.take_frame();
    assert!(live.poll().idle, "the frame taken");
}

#[test]
fn a_call_while_another_holds_the_core_is_refused_and_a_dispose_from_inside_waits_for_it() {
    let (live, _seen) = live(HostPlacement::Worker);
    let core = SharedCore::new(live);
    let held = core.enter().unwrap();
    assert_eq!(core.enter().err(), Some(Reentered));
    core.dispose();
    assert!(
        !held.host().is_disposed(),
        "not while the call holds the core"
    );
    drop(held);
    assert!(
        core.enter().unwrap().host().is_disposed(),
        "when it returns"
    );
}

#[test]
fn a_builder_over_a_worker_run_shows_generic_entries_then_the_answers_and_lets_the_run_go_when_dropped(
) {
    use parsebox_transcript::{Chunk, TranscriptBuilder, TranscriptOptions};
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let run = live.create_run("w", GENERIC, true).unwrap();
    let core = Rc::new(SharedCore::new(live));
    let mut builder = TranscriptBuilder::new(
        HostRunParser::new(Rc::clone(&core), run),
        TranscriptOptions {
            track_lines: true,
            ..TranscriptOptions::default()
        },
    );
    builder.push(&Chunk::stdout("t", "a\nb\n"));
    assert_eq!(
        texts(builder.entries()),
        ["a", "b"],
        "generic entries first"
    );
    {
        let mut s = core.enter().unwrap();
        let sent = sent_lines(&s.take_ops(engine));
        for ((seq, _), text) in sent.into_iter().zip(["A", "B"]) {
            answer(&mut s, engine, seq, text);
        }
    }
    let (answers, _) = core.enter().unwrap().take_answers(run);
    builder.replace_answers(answers);
    assert_eq!(texts(builder.entries()), ["A", "B"]);
    drop(builder);
    assert!(
        core.enter().unwrap().host().run_type(run).is_none(),
        "the run is let go"
    );
}

#[test]
fn an_external_parser_over_a_builtin_gives_way_to_it_and_unregistering_the_builtin_forgets_it() {
    let (mut live, _seen) = live(HostPlacement::Inline);
    live.register_builtin("b", FakeBuiltin).unwrap();
    let status = live.register_source("b", SOURCE, None).unwrap();
    assert_eq!(status.state, parsebox_host::AdapterState::Ready);
    let run = live.create_run("b", GENERIC, false).unwrap();
    let (entries, _) = live.parse_line(run, "x", "t").unwrap();
    assert_eq!(texts(&entries), ["inline:x"], "the external parser answers");
    let status = live.unregister("b").unwrap();
    assert!(status.has_builtin, "{status:?}");
    let run = live.create_run("b", GENERIC, false).unwrap();
    let (entries, _) = live.parse_line(run, "y", "t").unwrap();
    assert_eq!(
        texts(&entries),
        ["builtin:y"],
        "the built-in beneath answers again"
    );
    let status = live.unregister("b").unwrap();
    assert!(!status.has_builtin);
    let run = live.create_run("b", GENERIC, false).unwrap();
    let (entries, _) = live.parse_line(run, "z", "t").unwrap();
    assert_eq!(texts(&entries), ["z"], "the generic parser");
}

#[test]
fn a_worker_line_update_names_each_dropped_entry_and_with_previews_shows_it() {
    let returned = serde_json::json!([
        {"kind": "stdout", "ts": "t", "text": "kept"},
        {"kind": "nope", "ts": "t"},
        {"kind": "stdout", "ts": "t", "text": "é".repeat(50)},
    ]);
    let answer_with = |preview_chars: usize| {
        let (mut live, _seen) = live_with(HostOptions {
            host: HostPlacement::Worker,
            load_sources: false,
            dropped_preview_chars: preview_chars,
            entry_limits: parsebox_transcript::EntryLimits {
                max_entries_per_line: 2,
                ..Default::default()
            },
            ..HostOptions::default()
        });
        let engine = worker_type(&mut live);
        let seq = line_begun(&mut live, engine, "x");
        let ok = serde_json::json!([[seq, { "Ok": returned }]]);
        live.worker_answered(engine, &[ok.to_string()]);
        let frame = live.take_frame();
        frame.lines[0].1[0].clone()
    };
    let plain = answer_with(0);
    assert_eq!(texts(&plain.entries), ["kept"], "the valid entry stands");
    assert_eq!(plain.failure, None);
    let codes: Vec<(&str, Option<&str>)> = plain
        .dropped
        .iter()
        .map(|d| (d.code.as_str(), d.entry.as_deref()))
        .collect();
    assert_eq!(
        codes,
        [("unknown_kind", None), ("too_many_entries", None)],
        "each dropped entry's reason, and no preview unless asked"
    );
    let previewed = answer_with(20);
    let third = serde_json::to_string(&returned[2]).unwrap();
    let got: Vec<(String, Option<usize>)> = previewed
        .dropped
        .iter()
        .map(|d| (d.entry.clone().unwrap(), d.entry_chars))
        .collect();
    assert_eq!(
        got,
        [
            (
                r#"{"kind":"nope","ts":"t"}"#.chars().take(20).collect(),
                Some(24)
            ),
            (
                third.chars().take(20).collect(),
                Some(third.chars().count())
            ),
        ]
    );
    // On the wire: `dropped` with camelCase fields, absent for a line that dropped nothing.
    let json = serde_json::to_value(&previewed).unwrap();
    assert_eq!(json["dropped"][0]["code"], "unknown_kind");
    assert_eq!(json["dropped"][1]["entryChars"], third.chars().count());
    let clean = LineUpdate {
        dropped: Vec::new(),
        ..previewed
    };
    assert!(serde_json::to_value(&clean)
        .unwrap()
        .get("dropped")
        .is_none());
}
