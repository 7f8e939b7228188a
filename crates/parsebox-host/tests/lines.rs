//! The one path a line takes: synchronous inline answers, provisional Worker answers settled
//! later, batching, which answers are accepted, journals and the configured entry limits.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{Command, EngineOp, HostPlacement, LineStep, REBUILD_AHEAD_LINES};
use parsebox_transcript::{EntryLimits, FailureCode, LineFailure};
use serde_json::json;
use sim::{options, text, Sim, TS};

fn worker() -> parsebox_host::HostOptions {
    options(|o| o.host = HostPlacement::Worker)
}

/// A created run (a `createStdoutParser()` instance) is not stateless.
#[test]
fn a_created_run_is_a_factory_instance() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.create_run("a").unwrap();
    let LineStep::RunNow { ops, .. } = sim.host.parse_line(sim.now, run, "x", TS).unwrap() else {
        panic!("inline lines run now")
    };
    assert!(matches!(
        ops[0],
        EngineOp::NewRun {
            stateless: false,
            ..
        }
    ));
}

/// The contract's priority (SPEC §3): `parseLine(type, …)`'s default run is a factory instance
/// that keeps its state, even for a module that also exports `parseStdoutLine`; the stateless
/// run (Paperclip's `adapter.parseStdoutLine`) is another run, asked for by name.
#[test]
fn the_default_run_is_a_factory_instance_and_the_stateless_run_is_another() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let default = sim.host.default_run("a").unwrap();
    let stateless = sim.host.stateless_run("a").unwrap();
    assert_ne!(default, stateless);
    assert_eq!(sim.host.default_run("a").unwrap(), default, "long-lived");
    assert_eq!(
        sim.host.stateless_run("a").unwrap(),
        stateless,
        "long-lived"
    );
    for (run, want) in [(default, false), (stateless, true)] {
        let LineStep::RunNow { engine, seq, ops } =
            sim.host.parse_line(sim.now, run, "x", TS).unwrap()
        else {
            panic!("inline lines run now")
        };
        assert!(
            matches!(ops[0], EngineOp::NewRun { run: r, stateless } if r == run && stateless == want),
            "{ops:?}"
        );
        sim.host
            .handle_answers(0.0, engine, vec![(seq, Ok(json!([])))]);
    }
}

/// Inline: the executor runs the ops at once and the answer comes back from
/// `handle_answers`; the run's state carries from line to line; everything is counted once.
#[test]
fn an_inline_line_is_answered_synchronously() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let step = sim.host.parse_line(sim.now, run, "first", TS).unwrap();
    let LineStep::RunNow { engine, seq, ops } = step else {
        panic!("inline lines run now: {step:?}")
    };
    // The type's stateless run calls the module's own parseStdoutLine (Paperclip's
    // adapter.parseStdoutLine); a created run is a createStdoutParser() instance.
    assert!(matches!(ops[0], EngineOp::NewRun { run: r, stateless: true } if r == run));

    assert!(matches!(&ops[1], EngineOp::Line(l) if l.seq == seq && !l.replay));
    let answered = sim.host.handle_answers(
        0.0,
        engine,
        vec![(
            seq,
            Ok(json!({ "kind": "assistant", "ts": TS, "text": "hi" })),
        )],
    );
    assert_eq!(answered.len(), 1);
    assert_eq!(answered[0].seq, seq);
    assert_eq!(text(&answered[0].entries), "hi");

    // Through the simulated executor, state carries on (`first` was answered by hand, so the
    // simulated instance starts counting at the next line).
    assert_eq!(text(&sim.parse(run, "b")), "b#1");
    assert_eq!(text(&sim.parse(run, "c")), "c#2");
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.lines_parsed, d.lines_by_parser, d.entries), (3, 3, 3));
    assert_eq!(d.host.lines_pending, 0);
    assert!(sim.late.is_empty(), "nothing is late inline");
    assert_eq!(d.runs_created, 1);
}

/// Worker: the page shows the generic entry now; the real answer replaces it later, addressed
/// by (run, seq).
#[test]
fn a_worker_line_is_answered_generic_then_late() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let step = sim.host.parse_line(sim.now, run, "hello", TS).unwrap();
    let LineStep::Deferred { seq, entries } = step else {
        panic!("worker lines are deferred: {step:?}")
    };
    assert_eq!(text(&entries), "hello", "the provisional generic entry");
    assert_eq!(sim.host.diagnostics(Some("a")).host.lines_pending, 1);
    sim.pump();
    sim.step();
    assert_eq!(sim.late.len(), 1);
    assert_eq!((sim.late[0].0, sim.late[0].1), (run, seq));
    assert_eq!(text(&sim.late[0].2), "hello#1");
    let d = sim.host.diagnostics(None);
    assert_eq!(
        (d.lines_parsed, d.host.late_answers, d.host.lines_pending),
        (1, 1, 0)
    );
}

/// Many lines between two polls travel in one `Send`.
#[test]
fn lines_are_batched() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let other = sim.host.create_run("a").unwrap();
    for i in 0..50 {
        sim.host
            .parse_line(sim.now, run, &format!("l{i}"), TS)
            .unwrap();
    }
    sim.host.parse_line(sim.now, other, "o", TS).unwrap();
    sim.pump();
    let sends = sim.sends();
    assert_eq!(sends.len(), 1, "one batch");
    let ops = &sends[0].1;
    assert_eq!(ops.len(), 53, "2 NewRuns + 51 lines");
    sim.step();
    assert_eq!(sim.late.len(), 51);
    assert_eq!(sim.late_texts()[49], "l49#50");
    assert_eq!(sim.late_texts()[50], "o#1", "runs keep separate state");
}

/// A rebuild in slices holds its next slice while the run's lines waiting for a Worker reach
/// `REBUILD_AHEAD_LINES`, and goes on once the answers are in; other runs are not held.
#[test]
fn a_rebuild_in_slices_waits_for_a_worker_that_is_behind() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.create_run("a").unwrap();
    let other = sim.host.create_run("a").unwrap();
    assert!(sim.host.rebuild_may_go_on(run));
    for i in 0..REBUILD_AHEAD_LINES - 1 {
        sim.host
            .parse_line(sim.now, run, &format!("l{i}"), TS)
            .unwrap();
    }
    assert!(sim.host.rebuild_may_go_on(run), "one line short");
    sim.host.parse_line(sim.now, run, "last", TS).unwrap();
    assert!(!sim.host.rebuild_may_go_on(run), "held");
    assert!(sim.host.rebuild_may_go_on(other), "another run is not held");
    sim.pump();
    sim.step();
    assert!(sim.host.rebuild_may_go_on(run), "answered: it goes on");
}

/// Answers the core must not accept: from an engine that was ended (reload → superseded
/// generation), for a dropped run, out of order, duplicated. Each is ignored and counted.
#[test]
fn stale_out_of_order_and_duplicate_answers_are_ignored() {
    let ok = || Ok(json!([{ "kind": "user", "ts": TS, "text": "late" }]));
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let seqs: Vec<u64> = (0..3).map(|i| sim.defer(run, &format!("l{i}"))).collect();
    sim.pump();
    let engine = sim.sends()[0].0;

    // Out of order: the engine owes seqs[0] first.
    assert!(sim
        .host
        .handle_answers(0.0, engine, vec![(seqs[1], ok())])
        .is_empty());
    assert!(sim.late.is_empty());
    // In order, then a duplicate.
    sim.host
        .handle_answers(0.0, engine, vec![(seqs[0], ok()), (seqs[0], ok())]);
    sim.pump();
    assert_eq!(sim.late.len(), 1);
    // A seq never issued.
    sim.host.handle_answers(0.0, engine, vec![(9_999, ok())]);
    assert_eq!(sim.host.diagnostics(Some("a")).host.stale_answers, 3);

    // A dropped run: the engine still answers its line; the answer is remembered for a later
    // run reaching the line the same way, and the type's listeners hear of it (not stale).
    sim.host.drop_run(run).unwrap();
    sim.pump();
    assert!(matches!(
        sim.sends().last().unwrap().1.as_slice(),
        [EngineOp::DropRun { .. }]
    ));
    sim.host.handle_answers(0.0, engine, vec![(seqs[1], ok())]);
    sim.pump();
    assert_eq!(sim.late.len(), 2, "told by type");
    assert_eq!(sim.host.diagnostics(Some("a")).host.stale_answers, 3);

    // A superseded generation: reload ends the engine; its answers are stale.
    sim.host
        .register_source(0.0, "a", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    assert!(sim.log.contains(&Command::EndEngine { engine }));
    assert!(sim.host.status("a").generation >= 2);
    sim.host.handle_answers(0.0, engine, vec![(seqs[2], ok())]);
    sim.host.handle_began(0.0, engine, seqs[2]);
    sim.pump();
    assert_eq!(sim.late.len(), 2);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.host.stale_answers, 4);
    assert_eq!(d.lines_parsed, 1, "stale answers are not counted as lines");
    assert_eq!(sim.host.poll_timeout(), None, "a stale began arms nothing");
}

/// A line whose outcome resets the parser leaves the journal and a `Reset` takes its place;
/// the host's own `reset_run` is journaled too. A replay shows both.
#[test]
fn resets_are_journaled_for_replay() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    for l in ["a", "throw", "b"] {
        sim.host.parse_line(sim.now, run, l, TS).unwrap();
    }
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts(),
        ["a#1", "throw", "b#1"],
        "the engine reset itself"
    );
    assert_eq!(sim.host.diagnostics(Some("a")).fallbacks["threw"], 1);
    sim.host.reset_run(run).unwrap();
    sim.host.parse_line(sim.now, run, "c", TS).unwrap();
    sim.pump();
    assert!(matches!(
        sim.sends().last().unwrap().1.as_slice(),
        [EngineOp::Reset { .. }, EngineOp::Line(_)]
    ));
    sim.step();
    assert_eq!(sim.late_texts().last().unwrap(), "c#1");

    // Kill the engine while it is idle: the replay shows the journal.
    let engine = sim.engine_ids()[0];
    sim.host.handle_engine_died(0.0, engine, "trap");
    sim.pump();
    let replay: Vec<String> = sim
        .sends()
        .last()
        .unwrap()
        .1
        .iter()
        .map(|op| match op {
            EngineOp::NewRun { .. } => "new".to_owned(),
            EngineOp::Reset { .. } => "reset".to_owned(),
            EngineOp::DropRun { .. } => "drop".to_owned(),
            EngineOp::Line(l) => format!("{}{}", l.line, if l.replay { "*" } else { "" }),
        })
        .collect();
    assert_eq!(replay, ["new", "a*", "reset", "b*", "reset", "c*"]);
    sim.step();
    sim.host.parse_line(sim.now, run, "d", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts().last().unwrap(), "d#2", "state restored");
}

/// Over `max_journal_bytes` a run's answered history is dropped and counted as state lost;
/// lines still waiting are kept.
#[test]
fn the_journal_cap_loses_state_not_lines() {
    let mut sim = Sim::with_parser(
        options(|o| {
            o.host = HostPlacement::Worker;
            o.max_journal_bytes = 1_000;
        }),
        "a",
    );
    let run = sim.host.stateless_run("a").unwrap();
    for i in 0..40 {
        sim.host
            .parse_line(sim.now, run, &format!("line {i:02}"), TS)
            .unwrap();
        sim.pump();
        sim.step();
    }
    let d = sim.host.diagnostics(Some("a"));
    assert!(d.host.state_lost >= 1, "{:?}", d.host);
    assert_eq!(sim.late.len(), 40, "every line answered");
}

/// The entry limits applied are the configured ones, never the defaults.
#[test]
fn configured_entry_limits_apply() {
    let limits = EntryLimits {
        max_string_bytes: 4 << 20,
        max_entries_per_line: 5_000,
        ..EntryLimits::default()
    };
    let mut sim = Sim::with_parser(options(|o| o.entry_limits = limits), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let big = sim.parse(run, "big:1500000");
    assert_eq!(big.len(), 1);
    assert_eq!(big[0].text().map(str::len), Some(1_500_000));
    assert_eq!(sim.parse(run, "many:2003").len(), 2_003);
    let d = sim.host.diagnostics(Some("a"));
    assert!(
        d.fallbacks.is_empty() && d.dropped_entries.is_empty(),
        "{d:?}"
    );

    // The same lines under default limits are cut.
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    assert_eq!(
        text(&sim.parse(run, "big:1500000")),
        "big:1500000",
        "fell back"
    );
    assert_eq!(sim.parse(run, "many:2003").len(), 1_000);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["all_entries_invalid"], 1);
    assert_eq!(d.dropped_entries["too_many_entries"], 1_003);
}

/// Diagnostics serialise in camelCase for the page.
#[test]
fn diagnostics_serialise_in_camel_case() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.parse(run, "throw");
    let v = serde_json::to_value(sim.host.diagnostics(None)).unwrap();
    assert_eq!(v["linesParsed"], 1);
    assert_eq!(v["fallbacks"]["threw"], 1);
    assert_eq!(v["host"]["deadlineKills"], 0);
    assert_eq!(v["host"]["linesPending"], 0);
    assert_eq!(
        v["lastError"],
        LineFailure::new(FailureCode::Threw, "throw failed").to_string()
    );
}

/// A builtin (or a listener) that calls back into the host while its own line runs: the
/// nested line gets the generic entry at once and the outer answer is still accepted.
#[test]
fn a_reentrant_line_does_not_strand_the_engine() {
    let mut sim = Sim::new(options(|_| {}));
    sim.host.register_builtin("b").unwrap();
    sim.pump();
    let run = sim.host.stateless_run("b").unwrap();
    let LineStep::RunNow { engine, seq, .. } =
        sim.host.parse_line(sim.now, run, "outer", TS).unwrap()
    else {
        panic!("builtins run now")
    };
    let nested = sim.host.parse_line(sim.now, run, "nested", TS).unwrap();
    assert_eq!(
        nested,
        LineStep::Answered(vec![parsebox_transcript::generic_entry("nested", TS)])
    );
    let answered = sim
        .host
        .handle_answers(0.0, engine, vec![(seq, Ok(json!(null)))]);
    assert_eq!(answered.len(), 1);
    assert!(answered[0].entries.is_empty());
    sim.pump();
    assert_eq!(text(&sim.parse(run, "after")), "after#1");
    assert_eq!(sim.host.diagnostics(Some("b")).host.stale_answers, 0);
}

/// A viewer that re-parses the whole log on every render (Paperclip's `parseStdoutLine` per
/// line) sees a Worker's answer on its next render: the default run's late answers are
/// remembered by line and ts. A stateful run's first line (another function) does not share
/// them.
#[test]
fn the_stateless_run_answers_a_known_line_at_once() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Worker), "a");
    let run = sim.host.stateless_run("a").unwrap();
    assert!(matches!(
        sim.host.parse_line(sim.now, run, "hello", TS).unwrap(),
        LineStep::Deferred { .. }
    ));
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts(), ["hello#1"]);
    let LineStep::Answered(again) = sim.host.parse_line(sim.now, run, "hello", TS).unwrap() else {
        panic!("the known line should be answered at once");
    };
    assert_eq!(text(&again), "hello#1");

    let other = sim.host.create_run("a").unwrap();
    assert!(matches!(
        sim.host.parse_line(sim.now, other, "hello", TS).unwrap(),
        LineStep::Deferred { .. }
    ));
}

/// A run's lines are answered late only while its parser is ready in a Worker.
#[test]
fn only_a_ready_worker_parser_answers_later() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.create_run("a").unwrap();
    assert!(!sim.host.answers_later(run), "inline answers at once");
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.create_run("a").unwrap();
    assert!(sim.host.answers_later(run), "ready in a Worker");
    let unknown = sim.host.create_run("no-parser").unwrap();
    assert!(
        !sim.host.answers_later(unknown),
        "the generic parser answers at once"
    );
}

fn deferred(sim: &mut Sim, run: parsebox_host::RunId, line: &str) -> bool {
    matches!(
        sim.host.parse_line(sim.now, run, line, TS).unwrap(),
        LineStep::Deferred { .. }
    )
}

fn at_once(sim: &mut Sim, run: parsebox_host::RunId, line: &str) -> String {
    match sim.host.parse_line(sim.now, run, line, TS).unwrap() {
        LineStep::Answered(entries) => text(&entries).to_owned(),
        other => panic!("{line}: expected an answer at once, got {other:?}"),
    }
}

/// Paperclip's `buildTranscript` makes a fresh `createStdoutParser()` run on every render. With
/// the parser in a Worker, a fresh run that re-parses the same lines gets the first run's
/// answers at once; its first new line goes to the engine, which first replays the remembered
/// lines so the parser's state is right (the sim's parser numbers a run's lines).
#[test]
fn a_fresh_run_re_parsing_the_same_lines_is_answered_at_once() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Worker), "a");
    let first = sim.host.create_run("a").unwrap();
    for l in ["a", "b"] {
        assert!(deferred(&mut sim, first, l));
    }
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts(), ["a#1", "b#2"]);

    let second = sim.host.create_run("a").unwrap();
    assert_eq!(at_once(&mut sim, second, "a"), "a#1");
    assert_eq!(at_once(&mut sim, second, "b"), "b#2");
    assert!(
        deferred(&mut sim, second, "c"),
        "a new line goes to the engine"
    );
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts().last().unwrap(),
        "c#3",
        "the engine replayed a and b first"
    );
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.host.memo_answers, d.host.replayed_lines), (2, 2));

    // A third render: every line, the new one included, at once.
    let third = sim.host.create_run("a").unwrap();
    let texts: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|l| at_once(&mut sim, third, l))
        .collect();
    assert_eq!(texts, ["a#1", "b#2", "c#3"]);
}

/// Only the same history gives the same answer: a line reached another way, or after a
/// `reset()`, goes to the engine; so does everything after a line that failed.
#[test]
fn only_the_same_history_is_answered_from_memory() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Worker), "a");
    let first = sim.host.create_run("a").unwrap();
    for l in ["a", "b", "throw", "c"] {
        assert!(deferred(&mut sim, first, l));
    }
    sim.pump();
    sim.step();

    let other = sim.host.create_run("a").unwrap();
    assert!(deferred(&mut sim, other, "b"), "b without a before it");

    let reset = sim.host.create_run("a").unwrap();
    assert_eq!(at_once(&mut sim, reset, "a"), "a#1");
    sim.host.reset_run(reset).unwrap();
    assert!(deferred(&mut sim, reset, "b"), "b after a reset");
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts().last().unwrap(),
        "b#1",
        "replayed a, then the reset, then b"
    );

    let again = sim.host.create_run("a").unwrap();
    assert_eq!(at_once(&mut sim, again, "a"), "a#1");
    assert_eq!(at_once(&mut sim, again, "b"), "b#2");
    assert!(
        deferred(&mut sim, again, "throw"),
        "a failed line is not remembered"
    );
    assert!(deferred(&mut sim, again, "c"), "nor anything after it");
}

/// A new parser forgets every remembered answer.
#[test]
fn a_new_parser_forgets_remembered_answers() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Worker), "a");
    let first = sim.host.create_run("a").unwrap();
    assert!(deferred(&mut sim, first, "a"));
    sim.pump();
    sim.step();
    sim.host
        .register_source(0.0, "a", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    let fresh = sim.host.create_run("a").unwrap();
    assert!(deferred(&mut sim, fresh, "a"));
}

/// Paperclip drops each render's parser right away: the lines it left with its engine are
/// still answered there and remembered, and the type's listeners hear of them (the cue to
/// render again), so the next render has them at once.
#[test]
fn a_dropped_runs_answers_are_remembered_for_the_next_render() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Worker), "a");
    let first = sim.host.create_run("a").unwrap();
    for l in ["a", "b"] {
        assert!(deferred(&mut sim, first, l));
    }
    sim.host.drop_run(first).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts(), ["a#1", "b#2"], "told by type");
    assert_eq!(sim.host.diagnostics(Some("a")).host.stale_answers, 0);

    let second = sim.host.create_run("a").unwrap();
    assert_eq!(at_once(&mut sim, second, "a"), "a#1");
    assert_eq!(at_once(&mut sim, second, "b"), "b#2");
}
