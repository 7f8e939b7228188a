//! Room for engines (`max_live_engines`): a page with more adapter types than a browser has
//! room for wasm memories parks the least recently used idle engine, and the parked type's next
//! line starts it again with its runs' state (their history replayed), as if nothing happened.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{AdapterState, HostPlacement, Placement};
use sim::{options, text, Sim};

const SOURCE: &str = "export function parseStdoutLine() {}";

fn register(sim: &mut Sim, adapter_type: &str) {
    sim.host
        .register_source(sim.now, adapter_type, SOURCE, None)
        .unwrap();
    sim.pump();
}

fn sandboxed_engines(sim: &Sim) -> usize {
    sim.engines
        .values()
        .filter(|e| e.placement != Placement::Builtin)
        .count()
}

/// What the parser answered for `line`: at once, or late (an engine started again first).
fn answered(sim: &mut Sim, run: parsebox_host::RunId, line: &str) -> String {
    let before = sim.late.len();
    let shown = sim.parse(run, line);
    match sim.late.get(before) {
        Some((_, _, entries)) => text(entries).to_owned(),
        None => text(&shown).to_owned(),
    }
}

#[test]
fn the_least_recently_used_idle_engine_makes_room_and_its_run_carries_on_where_it_was() {
    let mut sim = Sim::new(options(|o| o.max_live_engines = 2));
    register(&mut sim, "a");
    register(&mut sim, "b");
    let (ra, rb) = (
        sim.host.default_run("a").unwrap(),
        sim.host.default_run("b").unwrap(),
    );
    assert_eq!(text(&sim.parse(ra, "x")), "x#1");
    assert_eq!(text(&sim.parse(ra, "x")), "x#2");
    assert_eq!(text(&sim.parse(rb, "y")), "y#1");
    // A third type: `a` was used least recently, so its engine goes.
    register(&mut sim, "c");
    assert_eq!(sandboxed_engines(&sim), 2);
    assert_eq!(sim.host.diagnostics(Some("a")).host.parked, 1);
    assert_eq!(sim.host.diagnostics(Some("b")).host.parked, 0);
    let status = sim.host.status("a");
    assert_eq!(
        status.state,
        AdapterState::Ready,
        "a parked type stays ready"
    );
    assert_eq!(status.placement, Some(Placement::Inline));
    // Its next line starts it again (parking `b` now) and replays its history: the count goes
    // on. The engine starts after the call, so the line's answer comes late, as after a restart.
    sim.parse(ra, "x");
    assert_eq!(sim.late_texts(), ["x#3"]);
    assert_eq!(sim.host.diagnostics(Some("b")).host.parked, 1);
    assert_eq!(sandboxed_engines(&sim), 2);
    let d = sim.host.diagnostics(Some("a")).host;
    assert_eq!((d.replayed_lines, d.state_lost, d.respawns), (2, 0, 0));
    // Parking is no failure: however often it happens, the type is never given up.
    let rc = sim.host.default_run("c").unwrap();
    for round in 0..5 {
        assert_eq!(answered(&mut sim, rb, "y"), format!("y#{}", round + 2));
        assert_eq!(answered(&mut sim, ra, "x"), format!("x#{}", round + 4));
        assert_eq!(answered(&mut sim, rc, "z"), format!("z#{}", round + 1));
    }
    assert!(sim.host.diagnostics(None).host.parked >= 10);
    assert_eq!(sim.host.status("a").state, AdapterState::Ready);
}

#[test]
fn an_engine_with_a_line_in_flight_is_never_parked_the_next_start_waits_for_it() {
    let mut sim = Sim::holding_answers(
        options(|o| {
            o.max_live_engines = 1;
            o.host = HostPlacement::Worker;
        }),
        "a",
    );
    let ra = sim.host.default_run("a").unwrap();
    let seq = sim.defer(ra, "x");
    sim.pump();
    // `a`'s Worker owes an answer: `b` waits for room instead of cutting it.
    register(&mut sim, "b");
    assert_eq!(sandboxed_engines(&sim), 1);
    assert_eq!(sim.host.status("b").state, AdapterState::Loading);
    assert_eq!(sim.host.diagnostics(Some("a")).host.parked, 0);
    assert!(!sim.host.is_idle());
    // The answer makes `a` idle: it is parked, and `b` starts.
    sim.step();
    sim.pump();
    assert!(sim
        .late
        .iter()
        .any(|(r, s, e)| *r == ra && *s == seq && text(e) == "x#1"));
    assert_eq!(sim.host.diagnostics(Some("a")).host.parked, 1);
    assert_eq!(sim.host.status("a").placement, Some(Placement::Worker));
    assert_eq!(sim.host.status("b").state, AdapterState::Ready);
    assert_eq!(sandboxed_engines(&sim), 1);
}

#[test]
fn a_parked_type_whose_parser_is_replaced_starts_from_the_new_one() {
    let mut sim = Sim::new(options(|o| o.max_live_engines = 1));
    register(&mut sim, "a");
    let ra = sim.host.default_run("a").unwrap();
    assert_eq!(text(&sim.parse(ra, "x")), "x#1");
    register(&mut sim, "b");
    assert_eq!(sim.host.diagnostics(Some("a")).host.parked, 1);
    // A new source for `a`: the old engine's runs are not replayed into the new parser.
    register(&mut sim, "a");
    assert_eq!(text(&sim.parse(ra, "x")), "x#1");
    assert!(sim.late.is_empty());
    assert_eq!(sim.host.diagnostics(Some("a")).host.replayed_lines, 0);
}

#[test]
fn types_registered_together_past_the_limit_start_in_turn_and_all_answer() {
    let mut sim = Sim::new(options(|o| {
        o.max_live_engines = 2;
        o.host = HostPlacement::Worker;
    }));
    let types: Vec<String> = (0..7).map(|i| format!("t{i}")).collect();
    for t in &types {
        sim.host.register_source(sim.now, t, SOURCE, None).unwrap();
    }
    // Two engines start; the others wait for room, `loading`, with no start deadline running.
    let starts = |sim: &Sim| {
        sim.log
            .iter()
            .filter(|c| matches!(c, parsebox_host::Command::StartEngine { .. }))
            .count()
    };
    let issued: Vec<_> = std::iter::from_fn(|| sim.host.poll_command()).collect();
    assert_eq!(
        issued
            .iter()
            .filter(|c| matches!(c, parsebox_host::Command::StartEngine { .. }))
            .count(),
        2,
        "{issued:?}"
    );
    assert_eq!(sim.host.status("t6").state, AdapterState::Loading);
    assert_eq!(
        sim.host.poll_timeout(),
        issued.iter().find_map(|_| sim.host.poll_timeout()),
        "no deadline for a start that waits"
    );
    // Each start that reports frees room for the next (the started engine is idle: parked).
    for c in issued {
        sim.perform(c);
    }
    sim.pump();
    assert_eq!(
        starts(&sim),
        7,
        "each type started once, five of them parked since"
    );
    for t in &types {
        assert_eq!(sim.host.status(t).state, AdapterState::Ready, "{t}");
    }
    assert!(sandboxed_engines(&sim) <= 2);
    // And every type answers, its run's count going on across parks.
    let runs: Vec<_> = types
        .iter()
        .map(|t| sim.host.default_run(t).unwrap())
        .collect();
    for round in 1..=2 {
        for &run in &runs {
            sim.defer(run, "x");
            sim.pump();
            sim.step();
            sim.pump();
            assert!(sandboxed_engines(&sim) <= 2);
        }
        let late = sim.late_texts();
        assert_eq!(
            late[late.len() - runs.len()..],
            vec![format!("x#{round}"); runs.len()][..]
        );
    }
    assert!(sim.host.is_idle());
}
