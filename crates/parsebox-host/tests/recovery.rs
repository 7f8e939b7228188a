//! Recovery, narrated: an engine dying mid-batch, a deadline kill, the kill loop a replay could
//! fall into, a type that never makes progress, and the move from inline to a Worker.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{
    AdapterState, Command, EngineAnswer, EngineOp, EngineReports, HostPlacement, LineHost,
    LineStep, Placement, REPLAY_FLOOR, REPLAY_PER_LINE,
};
use parsebox_transcript::{FailureCode, LineFailure};
use sim::{options, text, Sim, StartMode, TS};

fn worker() -> parsebox_host::HostOptions {
    options(|o| o.host = HostPlacement::Worker)
}

/// Five lines answered, then a batch of five whose third kills the engine. The first two are
/// answered; the third falls back (`worker_fault`) and a reset takes its place in the journal;
/// a fresh engine replays the seven answered lines (not delivered, not counted) and the reset,
/// then answers the last two with the state they would have had.
#[test]
fn an_engine_dying_mid_batch_is_replaced_and_replayed() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    for i in 1..=5 {
        sim.host
            .parse_line(sim.now, run, &format!("h{i}"), TS)
            .unwrap();
    }
    sim.pump();
    sim.step();
    assert_eq!(sim.late.len(), 5);
    for l in ["b1", "b2", "die", "b4", "b5"] {
        sim.host.parse_line(sim.now, run, l, TS).unwrap();
    }
    sim.pump();
    sim.step();

    assert_eq!(
        sim.late_texts()[5..],
        ["b1#6", "b2#7", "die", "b4#1", "b5#2"],
        "the dead line shows the generic entry; the parser was reset after it, as after any failed line"
    );
    let replay = sim.sends().last().unwrap().1.clone();
    let replayed = replay
        .iter()
        .filter(|op| matches!(op, EngineOp::Line(l) if l.replay))
        .count();
    let fresh: Vec<&str> = replay
        .iter()
        .filter_map(|op| match op {
            EngineOp::Line(l) if !l.replay => Some(l.line.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(replayed, 7, "h1..h5, b1, b2");
    assert_eq!(fresh, ["b4", "b5"]);

    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        d.lines_parsed, 10,
        "each line counted once, replays not at all"
    );
    assert_eq!(d.lines_by_parser, 9);
    assert_eq!(d.fallbacks["worker_fault"], 1);
    assert_eq!(d.host.respawns, 1);
    assert_eq!(d.host.engine_faults, 1);
    assert_eq!(d.host.replayed_lines, 7);
    assert_eq!(d.host.late_answers, 10);
    assert_eq!(sim.host.status("a").state, AdapterState::Ready);
}

/// A line that never returns: the deadline is armed when the engine reports it began the
/// line; at the deadline the engine is ended and the line runs once more on a fresh engine
/// (a stalled machine is not the parser's fault); ended on it again, the line falls back
/// (`deadline`), and the next line is answered by a fresh engine.
#[test]
fn a_line_past_its_deadline_is_killed() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.host.parse_line(sim.now, run, "ok", TS).unwrap();
    sim.host.parse_line(sim.now, run, "hang", TS).unwrap();
    sim.pump();
    assert_eq!(
        sim.host.poll_timeout(),
        None,
        "nothing armed before `began`"
    );
    sim.now = 10.0;
    sim.step();
    assert_eq!(sim.host.poll_timeout(), Some(110.0), "began at 10 + 100 ms");
    sim.advance(50.0);
    assert_eq!(sim.late.len(), 1, "not yet");
    sim.advance(50.0);
    assert_eq!(
        sim.late.len(),
        1,
        "not failed at the first deadline: it runs again"
    );
    sim.step(); // the fresh engine replays "ok" and begins "hang" again at 110
    assert_eq!(sim.host.poll_timeout(), Some(210.0));
    sim.advance(100.0);
    assert_eq!(sim.late_texts(), ["ok#1", "hang"]);
    assert!(
        sim.log
            .iter()
            .filter(|c| matches!(c, Command::EndEngine { .. }))
            .count()
            == 2
    );

    sim.host.parse_line(sim.now, run, "next", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts().last().unwrap(),
        "next#1",
        "the parser was reset after the killed line"
    );
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["deadline"], 1);
    assert_eq!(
        (
            d.host.deadline_kills,
            d.host.deadline_retries,
            d.host.respawns
        ),
        (2, 1, 2)
    );
    assert!(d.last_error.unwrap().contains("100 ms deadline"));
    assert_eq!(sim.host.poll_timeout(), None, "nothing left armed");
}

/// A stalled machine or browser is not the parser's fault: a line the deadline caught once
/// runs again on a fresh engine, after the replay that restores the run's state, and its
/// answer is the parser's own. Nothing falls back.
#[test]
fn a_line_caught_once_by_the_deadline_runs_again_and_keeps_its_answer() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.create_run("a").unwrap();
    for line in ["one", "stall"] {
        sim.host.parse_line(sim.now, run, line, TS).unwrap();
        sim.pump();
        sim.step();
    }
    sim.advance(100.0);
    sim.step();
    sim.host.parse_line(sim.now, run, "two", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts(),
        ["one#1", "stall#2", "two#3"],
        "state kept"
    );
    let d = sim.host.diagnostics(Some("a"));
    assert!(d.fallbacks.is_empty(), "{:?}", d.fallbacks);
    assert_eq!(
        (
            d.host.deadline_kills,
            d.host.deadline_retries,
            d.host.state_lost
        ),
        (1, 1, 0)
    );
}

/// A Worker may hold its answers for a few milliseconds and post them together. Ended at a
/// deadline while it held some, it cannot say which line it was stuck on: the core blames
/// none, the next engine answers line by line and runs the owed lines again, and the second
/// deadline names the line that hangs. Nothing is lost and no honest line falls back.
#[test]
fn a_worker_holding_answers_is_not_trusted_to_name_the_stuck_line() {
    let mut sim = Sim::holding_answers(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    for line in ["a", "b", "hang", "c"] {
        sim.host.parse_line(sim.now, run, line, TS).unwrap();
    }
    sim.pump();
    sim.step(); // answers "a" and "b", holds them, hangs on "hang"
    assert!(sim.late.is_empty(), "held, not posted");
    sim.advance(100.0);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.host.deadline_kills, d.host.unattributed_kills), (1, 1));
    assert!(d.fallbacks.is_empty(), "no line blamed: {:?}", d.fallbacks);
    assert!(d.last_error.unwrap().contains("one at a time"));
    assert_eq!(
        sim.answer_batch_ms,
        [4.0, 0.0],
        "the next engine answers each line alone"
    );

    sim.step(); // answers "a" and "b" at once, hangs on "hang" again
    assert_eq!(sim.late_texts(), ["a#1", "b#2"]);
    sim.advance(100.0); // named now: it runs once more on a fresh engine...
    sim.step();
    assert_eq!(sim.late_texts(), ["a#1", "b#2"]);
    sim.advance(100.0); // ...and fails when that one is ended on it too
    sim.step();
    assert_eq!(sim.late_texts(), ["a#1", "b#2", "hang", "c#1"]);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["deadline"], 1);
    assert_eq!(
        (
            d.host.deadline_kills,
            d.host.unattributed_kills,
            d.host.deadline_retries,
            d.host.respawns
        ),
        (3, 1, 1, 3)
    );
    assert_eq!(
        sim.answer_batch_ms,
        [4.0, 0.0, 0.0, 0.0],
        "and so do all later ones"
    );
}

/// With one live line owed, a Worker that batches cannot have answered anything it holds
/// past the head: a deadline names that line at once (it runs once more, then fails).
#[test]
fn a_worker_holding_answers_with_one_line_owed_is_blamed_at_once() {
    let mut sim = Sim::holding_answers(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.host.parse_line(sim.now, run, "ok", TS).unwrap();
    sim.pump();
    sim.step();
    sim.host.parse_line(sim.now, run, "hang", TS).unwrap();
    sim.pump();
    sim.step();
    sim.advance(100.0);
    sim.step();
    sim.advance(100.0);
    assert_eq!(sim.late_texts(), ["ok#1", "hang"]);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        (
            d.host.deadline_kills,
            d.host.unattributed_kills,
            d.host.deadline_retries
        ),
        (2, 0, 1)
    );
    assert_eq!(sim.answer_batch_ms, [4.0, 4.0, 4.0], "batches go on");
}

/// How long a Worker may hold answers: `ANSWER_BATCH_MS`, or a quarter of the hard deadline
/// when that is shorter (an engine holding answers must never look stuck); an inline engine
/// answers within the call and holds nothing.
#[test]
fn how_long_an_engine_may_hold_its_answers() {
    for (o, batch) in [
        (worker(), parsebox_host::ANSWER_BATCH_MS),
        (
            options(|o| {
                o.host = HostPlacement::Worker;
                o.line_budget_ms = 5.0;
                o.hard_deadline_ms = 8.0;
            }),
            2.0,
        ),
        (options(|o| o.host = HostPlacement::Inline), 0.0),
    ] {
        let sim = Sim::with_parser(o, "a");
        assert_eq!(sim.answer_batch_ms, [batch]);
    }
}

/// The clock never decides for an engine making progress (SPEC §11): while a Worker says its
/// count of work moves on, the line's deadline moves with it, however long the line takes by
/// the clock (a busy machine); once the reports stop (one native step that does not return),
/// the deadline ends the engine as before.
#[test]
fn a_line_whose_engine_makes_progress_is_never_ended_by_the_clock() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let (engine, seqs) = sim.sent(run, &["long"]);
    sim.host.handle_began(0.0, engine, seqs[0]);
    assert_eq!(sim.host.poll_timeout(), Some(100.0));
    // Ten times the deadline by the clock, with the engine's work moving on every 25 ms.
    for at in (1..=40).map(|k| f64::from(k) * 25.0) {
        sim.now = at;
        sim.advance(0.0);
        sim.host.handle_progress(at, engine);
        assert_eq!(sim.host.poll_timeout(), Some(at + 100.0));
    }
    assert_eq!(sim.host.diagnostics(Some("a")).host.deadline_kills, 0);
    let mut count = 0;
    let answer = sim::answer("long", &mut count);
    sim.host
        .handle_answers(1000.0, engine, vec![(seqs[0], answer)]);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        (d.host.deadline_kills, d.lines_by_parser),
        (0, 1),
        "answered by its parser"
    );
    // A line whose engine stops reporting is ended at the deadline.
    let (engine, seqs) = sim.sent(run, &["stuck"]);
    sim.host.handle_began(1000.0, engine, seqs[0]);
    sim.host.handle_progress(1050.0, engine);
    sim.now = 1149.0;
    sim.advance(0.0);
    assert_eq!(sim.host.diagnostics(Some("a")).host.deadline_kills, 0);
    sim.advance(1.0);
    assert_eq!(
        sim.host.diagnostics(Some("a")).host.deadline_kills,
        1,
        "no progress since 1050"
    );
}

/// A Worker reports `began` only for the first line of a batch; each answer arms the next
/// line's deadline from the moment it arrives, so a line queued behind a slow one does not pay
/// for the time it waited, and a hang right after an answer is still caught.
#[test]
fn each_answer_arms_the_next_lines_deadline() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let (engine, seqs) = sim.sent(run, &["first", "second"]);
    sim.host.handle_began(0.0, engine, seqs[0]);
    assert_eq!(sim.host.poll_timeout(), Some(100.0), "began at 0 + 100 ms");
    // The first line took 70 ms; the second starts when its answer arrives.
    let mut count = 0;
    let first = sim::answer("first", &mut count);
    sim.host
        .handle_answers(70.0, engine, vec![(seqs[0], first)]);
    assert_eq!(
        sim.host.poll_timeout(),
        Some(170.0),
        "armed by the answer at 70"
    );
    sim.now = 169.0;
    sim.advance(0.0);
    assert_eq!(sim.host.diagnostics(Some("a")).host.deadline_kills, 0);
    sim.advance(1.0);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        (d.host.deadline_kills, d.host.deadline_retries),
        (1, 1),
        "ended at 170, and the line runs once more on a fresh engine"
    );
    assert!(d.fallbacks.is_empty(), "{:?}", d.fallbacks);
}

/// After a failed line the engine rebuilds the realm the failure left dirty, replaying the
/// run's earlier lines, before it starts the next line. That is not the next line's time: the
/// core waits for the line's `began` (bounded by the start deadline) before its deadline starts,
/// so a rebuild that takes longer than a line's deadline does not kill an innocent line.
#[test]
fn after_a_failed_line_the_next_lines_deadline_waits_for_its_began() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let (engine, seqs) = sim.sent(run, &["slow", "after", "then"]);
    let start_deadline = sim.host.options().start_deadline_ms;
    sim.host.handle_began(0.0, engine, seqs[0]);
    let mut count = 0;
    let slow = sim::answer("slow", &mut count);
    assert!(slow.is_err(), "the line over its budget fails");
    sim.host.handle_answers(50.0, engine, vec![(seqs[0], slow)]);
    assert_eq!(
        sim.host.poll_timeout(),
        Some(50.0 + start_deadline),
        "only the recovery bound while the engine rebuilds"
    );
    // The rebuild took 180 ms: the line's own 100 ms start at its `began`.
    sim.now = 230.0;
    sim.advance(0.0);
    sim.host.handle_began(230.0, engine, seqs[1]);
    assert_eq!(sim.host.poll_timeout(), Some(330.0));
    let after = sim::answer("after", &mut count);
    sim.host
        .handle_answers(240.0, engine, vec![(seqs[1], after)]);
    assert_eq!(
        sim.host.poll_timeout(),
        Some(340.0),
        "an answered line arms the next at once"
    );
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.host.deadline_kills, 0);
    assert_eq!(d.fallbacks["budget_exceeded"], 1);
    assert_eq!(d.fallbacks.get("deadline"), None);
}

/// An engine that never reports `began` after a failed line is ended at the start deadline,
/// the bound of the same work in a start:
/// the waiting line falls back with `deadline`, saying the rebuild did not finish.
#[test]
fn a_rebuild_that_never_ends_is_killed_at_the_start_deadline() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let (engine, seqs) = sim.sent(run, &["slow", "after"]);
    let start_deadline = sim.host.options().start_deadline_ms;
    sim.host.handle_began(0.0, engine, seqs[0]);
    let mut count = 0;
    let slow = sim::answer("slow", &mut count);
    sim.host.handle_answers(50.0, engine, vec![(seqs[0], slow)]);
    sim.now = 50.0 + start_deadline;
    sim.advance(0.0);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.host.deadline_kills, d.fallbacks["deadline"]), (1, 1));
    assert!(
        d.last_error
            .unwrap()
            .contains("did not make the parser's realm ready"),
        "the reason names the rebuild"
    );
}

/// A line right after a `NewRun` in the same batch waits for its `began` too: the engine makes
/// the new run's realm first.
#[test]
fn a_line_after_a_new_run_waits_for_its_began() {
    let mut sim = Sim::with_parser(worker(), "a");
    let first = sim.host.stateless_run("a").unwrap();
    let one = sim.defer(first, "one");
    let second = sim.host.create_run("a").unwrap();
    let two = sim.defer(second, "two");
    sim.pump();
    let engine = *sim.engine_ids().last().unwrap();
    sim.host.handle_began(0.0, engine, one);
    let mut count = 0;
    let answer = sim::answer("one", &mut count);
    sim.host.handle_answers(10.0, engine, vec![(one, answer)]);
    assert_eq!(
        sim.host.poll_timeout(),
        Some(10.0 + sim.host.options().start_deadline_ms)
    );
    sim.host.handle_began(150.0, engine, two);
    assert_eq!(sim.host.poll_timeout(), Some(250.0));
}

/// The kill-loop case: a run with 3,000 lines of history moves to a Worker whose replay keeps
/// dying. The replay is given up once (state lost), the next engine starts without history,
/// and the next honest line is answered. The number of engines started stays small.
#[test]
fn a_dying_replay_cannot_cause_a_kill_loop() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    for i in 0..3_000 {
        sim.parse(run, &format!("l{i}"));
    }
    sim.die_in_replay_at = Some(1_500);
    let starts = sim.starts;
    assert_eq!(
        text(&sim.parse(run, "slow")),
        "slow",
        "the overrun falls back"
    );
    assert_eq!(sim.host.status("a").placement, Some(Placement::Worker));
    sim.step();

    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.host.placement_moves, 1);
    assert_eq!(d.host.state_lost, 1, "the replay was given up");
    assert_eq!(d.host.engine_faults, 1);
    assert!(
        sim.starts - starts <= 2,
        "{} engine starts",
        sim.starts - starts
    );
    assert_eq!(sim.host.status("a").state, AdapterState::Ready);

    let LineStep::Deferred { .. } = sim.host.parse_line(sim.now, run, "honest", TS).unwrap() else {
        panic!("a worker line")
    };
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts().last().unwrap(),
        "honest#1",
        "answered, from a fresh state"
    );
}

/// Bounded recovery: a parser that runs past its deadline every 500 lines of a long run. Each
/// recovery replays the run's history while the type's replay allowance lasts; past it the run
/// starts afresh (state lost, counted), so the lines replayed in all stay within
/// `REPLAY_PER_LINE` per line answered plus `REPLAY_FLOOR` (replaying every time would be
/// quadratic: 410,000 here), and every honest line is still answered.
#[test]
fn repeated_overruns_keep_the_work_linear() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.create_run("a").unwrap();
    let (rounds, per_round) = (40u64, 500u64);
    for k in 0..rounds {
        for i in 0..per_round {
            sim.host
                .parse_line(sim.now, run, &format!("l{k}-{i}"), TS)
                .unwrap();
        }
        sim.host.parse_line(sim.now, run, "hang", TS).unwrap();
        sim.pump();
        sim.step();
        // Each deadline: killed, respawned, the history replayed or dropped; the second one
        // fails the line.
        for _ in 0..2 {
            sim.advance(100.0);
            sim.step();
        }
    }
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        (d.host.deadline_kills, d.fallbacks["deadline"]),
        (2 * rounds, rounds)
    );
    assert!(
        d.host.replayed_lines <= REPLAY_PER_LINE * d.lines_parsed + REPLAY_FLOOR,
        "{} lines replayed for {} answered",
        d.host.replayed_lines,
        d.lines_parsed
    );
    assert!(
        d.host.replayed_lines >= REPLAY_FLOOR,
        "early recoveries kept the state"
    );
    assert!(d.host.state_lost >= 1, "later ones started afresh");
    assert_eq!(
        sim.late.len() as u64,
        rounds * per_round + rounds,
        "every line answered"
    );
    sim.host.parse_line(sim.now, run, "honest", TS).unwrap();
    sim.pump();
    sim.step();
    assert!(sim.late_texts().last().unwrap().starts_with("honest#"));
}

/// The replay budget: a replay that takes too long is ended and given up, like one that dies.
#[test]
fn a_replay_past_its_budget_is_given_up() {
    let mut sim = Sim::with_parser(
        options(|o| {
            o.host = HostPlacement::Worker;
            o.replay_deadline_ms = 500.0;
        }),
        "a",
    );
    let run = sim.host.stateless_run("a").unwrap();
    sim.host.parse_line(sim.now, run, "a", TS).unwrap();
    sim.host.parse_line(sim.now, run, "hang", TS).unwrap();
    sim.pump();
    sim.step();
    sim.advance(100.0); // the hang is killed; the fresh engine replays "a"...
    let engine = sim.engine_ids()[0];
    // ...but this engine stalls in the replay: do not step it.
    assert_eq!(sim.host.poll_timeout(), Some(600.0));
    sim.advance(500.0);
    assert!(!sim.engine_ids().contains(&engine));
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.host.deadline_kills, d.host.state_lost), (2, 1));
    sim.step(); // "hang" runs again on the next engine, without the history...
    sim.advance(100.0); // ...and is ended on it a second time: it fails
    assert_eq!(sim.late_texts().last().unwrap(), "hang");
    sim.host.parse_line(sim.now, run, "b", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts().last().unwrap(), "b#1");
}

/// Lines that each take their engine down fail alone, one by one: the honest line after them
/// is answered by the parser, and the type stays ready. A bad line is not a reason to give up
/// on the good ones.
#[test]
fn lines_that_kill_their_engines_fail_alone() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    for l in ["die", "die", "die", "die", "x"] {
        sim.host.parse_line(sim.now, run, l, TS).unwrap();
    }
    for _ in 0..10 {
        sim.pump();
        sim.step();
    }
    assert_eq!(sim.late_texts(), ["die", "die", "die", "die", "x#1"]);
    assert_eq!(sim.host.status("a").state, AdapterState::Ready);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["worker_fault"], 4, "{:?}", d.fallbacks);
    assert_eq!(d.host.respawns, 4);
}

/// An engine whose memory reached its maximum: the line falls back as `memory_exceeded` with
/// the figures. The line alone may be what filled it (one huge string), so the next engine
/// replays the history once; out of memory again before a live line is answered means the
/// history's state fills it, and the next engine starts without it (counted as state lost)
/// instead of replaying into the same fault. Later lines are answered.
#[test]
fn out_of_memory_is_named_and_not_replayed_into() {
    let mut sim = Sim::with_parser(
        options(|o| {
            o.host = HostPlacement::Worker;
            o.max_memory_bytes = 64 << 20;
        }),
        "a",
    );
    let run = sim.host.stateless_run("a").unwrap();
    let mut replayed = Vec::new();
    for l in ["h1", "h2", "h3", "oom", "b", "oom", "oom", "c"] {
        sim.host.parse_line(sim.now, run, l, TS).unwrap();
        sim.pump();
        sim.step();
        replayed.push(sim.host.diagnostics(Some("a")).host.replayed_lines);
    }
    assert_eq!(
        sim.late_texts(),
        ["h1#1", "h2#2", "h3#3", "oom", "b#1", "oom", "oom", "c#1"]
    );
    // Replayed after the first out-of-memory and after the second (a line was answered in
    // between), not after the third.
    assert!(replayed[3] > replayed[2], "{replayed:?}");
    assert!(replayed[5] > replayed[4], "{replayed:?}");
    assert_eq!(replayed[6], replayed[5], "{replayed:?}");
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["memory_exceeded"], 3, "{:?}", d.fallbacks);
    assert_eq!((d.host.engine_faults, d.host.state_lost), (3, 1));
    let why = d.last_error.unwrap();
    assert!(
        why.contains("memory maximum of 64 MiB") && why.contains("3 MiB more did not fit"),
        "{why}"
    );
    assert!(why.contains("without the lines before"), "{why}");
    assert_eq!(sim.host.status("a").state, AdapterState::Ready);
}

/// Engines that die with no line to blame (while starting, before any line reached them):
/// after `max_respawns_without_progress` starts the type is marked failed, the lines waiting
/// fall back, and the generic parser answers.
#[test]
fn a_type_that_never_makes_progress_fails() {
    let mut sim = Sim::with_parser(worker(), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.host.parse_line(sim.now, run, "a", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(sim.late_texts(), ["a#1"]);
    sim.start_mode = StartMode::Manual;
    for l in ["die", "x", "y"] {
        sim.host.parse_line(sim.now, run, l, TS).unwrap();
    }
    sim.pump();
    sim.step();
    let starts = sim.starts;
    for _ in 0..10 {
        // Each new engine dies before it reports `started`.
        for id in sim.engine_ids() {
            sim.host
                .handle_engine_died(sim.now, id, "trap while starting");
        }
        sim.pump();
    }
    let status = sim.host.status("a");
    assert_eq!(status.state, AdapterState::Failed);
    assert!(status.reason.unwrap().starts_with("gave up after"));
    assert_eq!(
        sim.starts - starts,
        2,
        "the start after the bad line and two more: three with nothing to show, no more"
    );
    assert_eq!(sim.late_texts()[1..], ["die", "x", "y"]);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["worker_fault"], 3, "{:?}", d.fallbacks);
    assert_eq!(d.host.lines_pending, 0);
    assert!(sim.engines.is_empty());
    assert_eq!(
        text(&sim.parse(run, "after")),
        "after",
        "generic from now on"
    );
}

/// A worker that never reports `started` is ended at the start deadline.
#[test]
fn an_engine_that_never_starts_fails_the_type() {
    let mut sim = Sim::new(worker());
    sim.start_mode = StartMode::Manual;
    sim.host
        .register_source(0.0, "a", "while (true) {}", None)
        .unwrap();
    sim.pump();
    assert_eq!(sim.host.poll_timeout(), Some(10_000.0));
    sim.advance(10_000.0);
    let status = sim.host.status("a");
    assert_eq!(status.state, AdapterState::Failed);
    assert!(status.reason.unwrap().contains("did not start within"));
    assert!(sim.engines.is_empty());
}

/// `host: auto`: inline until the first overrun, then the type moves to a Worker: the inline
/// engine ends, a Worker engine starts, the journal is replayed there, and later lines are
/// answered late with the state they would have had.
#[test]
fn auto_placement_moves_a_type_after_an_overrun() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    assert_eq!(text(&sim.parse(run, "a")), "a#1");
    assert_eq!(text(&sim.parse(run, "b")), "b#2");
    let inline = sim.engine_ids()[0];
    sim.notified.clear();
    assert_eq!(text(&sim.parse(run, "slow")), "slow");
    assert!(sim.log.contains(&Command::EndEngine { engine: inline }));
    assert_eq!(sim.host.status("a").placement, Some(Placement::Worker));
    assert_eq!(sim.host.status("a").host, LineHost::Worker);
    assert!(sim
        .host
        .status("a")
        .host_reason
        .unwrap()
        .contains("line budget"));
    assert_eq!(sim.notified, ["a"]);
    sim.step();
    let step = sim.host.parse_line(sim.now, run, "c", TS).unwrap();
    assert!(matches!(step, LineStep::Deferred { .. }), "{step:?}");
    sim.pump();
    sim.step();
    // `slow` reset the parser: `c` is the first line after it.
    assert_eq!(sim.late_texts(), ["c#1"]);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.host.placement_moves, 1);
    assert_eq!(
        d.host.replayed_lines, 2,
        "a and b; the overrun line is a reset"
    );
    assert_eq!(d.fallbacks["budget_exceeded"], 1);

    // host: inline never moves.
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Inline), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.parse(run, "slow");
    assert_eq!(sim.host.status("a").placement, Some(Placement::Inline));
    assert_eq!(sim.host.status("a").host, LineHost::Inline);
    assert_eq!(sim.host.status("a").host_reason, None);
    assert_eq!(text(&sim.parse(run, "d")), "d#1");
}

/// One load rule in every host (issue 54): a source with a regex the screen calls catastrophic
/// is not refused for it anywhere. Every engine starts unscreened, inline as in a Worker, and
/// the type is ready where its host put it: a line such a regex hangs is stopped at the
/// deadline by the engine's own loops (engine.js) and falls back alone.
#[test]
fn a_regex_the_screen_would_refuse_loads_in_every_host() {
    for host in [
        HostPlacement::Auto,
        HostPlacement::Inline,
        HostPlacement::Worker,
    ] {
        let mut sim = Sim::new(options(|o| o.host = host));
        sim.start_mode = StartMode::UnsafeRegex;
        sim.host
            .register_source(0.0, "a", "const r = /^(a+)+$/; …", None)
            .unwrap();
        sim.pump();
        let starts: Vec<bool> = sim
            .log
            .iter()
            .filter_map(|c| match c {
                Command::StartEngine { config, .. } => Some(config.screen_regexes),
                _ => None,
            })
            .collect();
        assert_eq!(starts, [false], "{host:?}: started once, unscreened");
        let status = sim.host.status("a");
        assert_eq!(status.state, AdapterState::Ready, "{host:?}");
        assert_eq!(status.error, None, "{host:?}");
        assert_eq!(sim.host.diagnostics(Some("a")).host.placement_moves, 0);
    }
}

/// An inline engine that stops its own line at the deadline (its count of work stopped
/// moving: one native step that does not return) is handled as a Worker ended there: the line
/// runs once more on a fresh engine, and falls back with `deadline` when it is stopped again.
#[test]
fn an_inline_engine_that_stops_its_line_at_the_deadline_gets_one_more_try() {
    let mut sim = Sim::with_parser(options(|o| o.host = HostPlacement::Inline), "a");
    let run = sim.host.stateless_run("a").unwrap();
    let step = sim.host.parse_line(sim.now, run, "stuck", TS).unwrap();
    let LineStep::RunNow { engine, .. } = step else {
        panic!("an inline line runs now: {step:?}")
    };
    let answered = sim.host.handle_engine_stopped(0.0, engine);
    assert!(answered.is_empty(), "not failed yet: it runs once more");
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!((d.host.deadline_kills, d.host.deadline_retries), (1, 1));
    assert!(
        d.last_error.unwrap().contains("inline host"),
        "named where it ran"
    );
}

/// An inline engine that traps mid-line: the waiting caller gets the fallback synchronously,
/// and (under auto) the type continues in a Worker with its journal replayed.
#[test]
fn an_inline_trap_answers_the_caller_and_moves_the_type() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let run = sim.host.stateless_run("a").unwrap();
    sim.parse(run, "a");
    assert_eq!(text(&sim.parse(run, "die")), "die");
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks["engine_fault"], 1);
    assert_eq!(sim.host.status("a").placement, Some(Placement::Worker));
    sim.step();
    sim.host.parse_line(sim.now, run, "b", TS).unwrap();
    sim.pump();
    sim.step();
    assert_eq!(
        sim.late_texts(),
        ["b#1"],
        "reset after the trap, like any failed line"
    );
}

/// A budget above the line: one call of the page (a push of many lines) whose lines each stay
/// under the line budget but together pass `callBudgetMs` is counted once per call; under
/// `auto` the type moves to a Worker, which answers the call's remaining lines.
#[test]
fn a_call_over_its_budget_in_sum_moves_the_rest_of_its_lines_off_the_thread() {
    for (placement, moves) in [(HostPlacement::Auto, true), (HostPlacement::Inline, false)] {
        let mut sim = Sim::with_parser(options(|o| o.host = placement), "a");
        let run = sim.host.stateless_run("a").unwrap();
        assert_eq!(text(&sim.parse(run, "first")), "first#1", "the run's start");
        // Each line takes 30 ms of the page's time: under the 50 ms line budget.
        let line = |sim: &mut Sim, l: &str| -> bool {
            match sim.host.parse_line(sim.now, run, l, TS).unwrap() {
                LineStep::RunNow { engine, seq, .. } => {
                    let answer = vec![(seq, Ok(serde_json::json!([])))];
                    sim.host
                        .handle_inline_answers(sim.now, engine, answer, 30.0);
                    sim.pump();
                    true
                }
                LineStep::Deferred { .. } => false,
                LineStep::Answered(_) => panic!("a parsed line is not answered generically"),
            }
        };
        sim.host.begin_call();
        let inline: Vec<bool> = (0..6).map(|i| line(&mut sim, &format!("l{i}"))).collect();
        let d = sim.host.diagnostics(Some("a"));
        assert_eq!(d.host.call_overruns, 1, "{placement:?}: once per call");
        assert_eq!(d.host.clock_overruns, 0, "no line was over its own budget");
        if moves {
            // 4 × 30 ms passed 100 ms: the rest of the call went to the Worker.
            assert_eq!(inline, [true, true, true, true, false, false]);
            assert_eq!(sim.host.status("a").placement, Some(Placement::Worker));
            assert!(sim
                .host
                .status("a")
                .host_reason
                .unwrap()
                .contains("callBudgetMs"));
        } else {
            assert_eq!(inline, [true; 6]);
            assert_eq!(sim.host.status("a").placement, Some(Placement::Inline));
            // A new call starts a new sum.
            sim.host.begin_call();
            assert!(line(&mut sim, "next"));
            assert_eq!(sim.host.diagnostics(Some("a")).host.call_overruns, 1);
        }
    }
}

/// The clock decides: an inline call that answered correctly but took longer than its line's
/// budget (work the engine's own counters cannot see: a getter, a Proxy trap, one long native
/// step) is counted, keeps its answer, and under `auto` moves the type to a Worker.
#[test]
fn an_inline_call_over_budget_by_the_clock_moves_the_type() {
    for (placement, moves) in [(HostPlacement::Auto, true), (HostPlacement::Inline, false)] {
        let mut sim = Sim::with_parser(options(|o| o.host = placement), "a");
        let run = sim.host.stateless_run("a").unwrap();
        assert_eq!(text(&sim.parse(run, "a")), "a#1");
        let LineStep::RunNow { engine, seq, .. } =
            sim.host.parse_line(sim.now, run, "b", TS).unwrap()
        else {
            panic!("inline lines run now")
        };
        // The engine answered in 900 ms of wall time against a 50 ms budget.
        let slow = 900.0;
        let answer = vec![(
            seq,
            Ok(serde_json::json!({ "kind": "stdout", "ts": TS, "text": "b#2" })),
        )];
        let answered = sim
            .host
            .handle_inline_answers(sim.now, engine, answer, slow);
        assert_eq!(text(&answered[0].entries), "b#2", "the answer is kept");
        sim.pump();
        let d = sim.host.diagnostics(Some("a"));
        assert_eq!(d.host.clock_overruns, 1);
        let expected = if moves {
            Placement::Worker
        } else {
            Placement::Inline
        };
        assert_eq!(
            sim.host.status("a").placement,
            Some(expected),
            "{placement:?}"
        );

        // Within budget: nothing counted.
        let mut quick = Sim::with_parser(options(|o| o.host = placement), "a");
        let run = quick.host.stateless_run("a").unwrap();
        let LineStep::RunNow { engine, seq, .. } =
            quick.host.parse_line(quick.now, run, "c", TS).unwrap()
        else {
            panic!("inline lines run now")
        };
        let answer = vec![(seq, Ok(serde_json::json!([])))];
        quick
            .host
            .handle_inline_answers(quick.now, engine, answer, 3.0);
        assert_eq!(quick.host.diagnostics(Some("a")).host.clock_overruns, 0);
        assert_eq!(quick.host.status("a").placement, Some(Placement::Inline));
        // A run's first call also builds its realm, and a line after a failed one waits for
        // the realm's rebuild: the engine reports that work with the answer, and only the rest
        // of the call's time is the line's.
        for (work_ms, overrun) in [(480.0, 0), (100.0, 1)] {
            let fresh = quick.host.create_run("a").unwrap();
            let LineStep::RunNow { engine, seq, .. } =
                quick.host.parse_line(quick.now, fresh, "d", TS).unwrap()
            else {
                panic!("inline lines run now")
            };
            let answer = vec![EngineAnswer {
                seq,
                outcome: Ok(serde_json::json!([])),
                reports: EngineReports {
                    state_lost: false,
                    work_ms,
                },
            }];
            let answer = quick.host.take_engine_answers(engine, answer);
            quick
                .host
                .handle_inline_answers(quick.now, engine, answer, 500.0);
            assert_eq!(
                quick.host.diagnostics(Some("a")).host.clock_overruns,
                overrun,
                "500 ms, {work_ms} of them the engine's"
            );
        }
        // A line the engine stopped for its work budget ran that budget by design: its call is
        // not also a clock overrun, however long the wall clock says it took.
        let mut stop = Sim::with_parser(options(|o| o.host = placement), "a");
        let run = stop.host.create_run("a").unwrap();
        let LineStep::RunNow { engine, seq, .. } =
            stop.host.parse_line(stop.now, run, "spin", TS).unwrap()
        else {
            panic!("inline lines run now")
        };
        let answer = vec![(
            seq,
            Err(LineFailure::new(
                FailureCode::BudgetExceeded,
                "parser exceeded its 50 ms budget (work counted by the engine)",
            )),
        )];
        stop.host
            .handle_inline_answers(stop.now, engine, answer, 70.0);
        assert_eq!(
            stop.host.diagnostics(Some("a")).host.clock_overruns,
            0,
            "a work stop is not a clock overrun"
        );
    }
}
