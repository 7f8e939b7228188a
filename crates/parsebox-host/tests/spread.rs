//! Lines over several Workers (`max_workers`): a long backlog of a stateless run's lines goes
//! to more engines of the type when it holds more work than a start costs; every line is
//! answered once, in its place, by the same parser; a spread engine ends when nothing waits,
//! and gives its lines back when it fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use std::collections::BTreeMap;

use parsebox_host::{
    Command, EngineId, EngineOp, HostOptions, HostPlacement, RunId, Seq, SPREAD_AFTER_MS,
    SPREAD_OWED_LINES_FIRST, SPREAD_OWED_LINES_MIN,
};
use sim::{options, text, Sim, StartMode};

/// The simulated parser's pace in these tests: 5 ms a line, so a backlog of more than 200
/// lines holds more than [`SPREAD_AFTER_MS`] of one engine's work.
const SLOW_MS: f64 = 5.0;

fn workers(max_workers: usize) -> HostOptions {
    options(|o| {
        o.host = HostPlacement::Worker;
        o.max_workers = max_workers;
    })
}

/// Each `Send`'s engine and lines, in order (read from the log, not copied).
fn sends(sim: &Sim) -> impl Iterator<Item = (EngineId, Vec<&str>)> {
    sim.log.iter().filter_map(|c| match c {
        Command::Send { engine, ops } => Some((
            *engine,
            ops.iter()
                .filter_map(|op| match op {
                    EngineOp::Line(l) => Some(l.line.as_str()),
                    _ => None,
                })
                .collect(),
        )),
        _ => None,
    })
}

/// Engines that were sent at least one line.
fn engines_with_lines(sim: &Sim) -> Vec<EngineId> {
    let mut out: Vec<EngineId> = sends(sim)
        .filter(|(_, lines)| !lines.is_empty())
        .map(|(id, _)| id)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// How many lines were sent to `id`, over all its batches.
fn sent_lines(sim: &Sim, id: EngineId) -> usize {
    sends(sim)
        .filter(|(e, _)| *e == id)
        .map(|(_, lines)| lines.len())
        .sum()
}

/// The engine `line` was sent to first.
fn engine_of(sim: &Sim, line: &str) -> EngineId {
    sends(sim)
        .find(|(_, lines)| lines.contains(&line))
        .map(|(id, _)| id)
        .expect("the line was sent")
}

fn ended(sim: &Sim) -> Vec<EngineId> {
    sim.log
        .iter()
        .filter_map(|c| match c {
            Command::EndEngine { engine } => Some(*engine),
            _ => None,
        })
        .collect()
}

/// Defers `n` lines `l0`, `l1`, … of `run` (line `special.0` is `special.1` instead); their seqs.
fn backlog(sim: &mut Sim, run: RunId, n: usize, special: Option<(usize, &str)>) -> Vec<Seq> {
    lines(sim, run, "l", n, special)
}

/// [`backlog`] of lines `{prefix}0`, `{prefix}1`, ….
fn lines(
    sim: &mut Sim,
    run: RunId,
    prefix: &str,
    n: usize,
    special: Option<(usize, &str)>,
) -> Vec<Seq> {
    (0..n)
        .map(|i| match special {
            Some((at, line)) if at == i => sim.defer(run, line),
            _ => sim.defer(run, &format!("{prefix}{i}")),
        })
        .collect()
}

/// Lines [`paced`] runs first.
const PACED: u64 = 100;

/// Runs [`PACED`] lines of `run` through its type's engine, so its pace is known (a page has
/// usually parsed the type's lines before it opens a finished run), then forgets the commands
/// and answers seen.
fn paced(sim: &mut Sim, run: RunId) {
    lines(sim, run, "w", PACED as usize, None);
    sim.pump();
    sim.step();
    sim.log.clear();
    sim.late.clear();
}

/// A sim of the slow parser with `max_workers`, its stateless run, and the type's pace known
/// ([`paced`]).
fn paced_sim(max_workers: usize) -> (Sim, RunId) {
    let mut sim = Sim::with_parser(workers(max_workers), "a");
    sim.work_ms_per_line = SLOW_MS;
    let run = sim.host.stateless_run("a").unwrap();
    paced(&mut sim, run);
    (sim, run)
}

/// Runs a backlog of `run` whose line `at` is `special`, placed among the first lines the
/// first spread engine takes: its seqs, `at`, and the engine the special line went to first
/// (a spread engine, not the type's).
fn special_on_a_spread_engine(
    sim: &mut Sim,
    run: RunId,
    special: &str,
) -> (Vec<Seq>, usize, EngineId) {
    let at = SPREAD_OWED_LINES_MIN + 10;
    let seqs = backlog(sim, run, 4 * SPREAD_OWED_LINES_MIN, Some((at, special)));
    sim.pump();
    sim.step();
    let main = engines_with_lines(sim)[0];
    let took_it = engine_of(sim, special);
    assert_ne!(took_it, main, "the line went to a spread engine first");
    (seqs, at, took_it)
}

/// Each seq's delivered late answer texts (all of them: a line answered twice shows twice).
fn delivered(sim: &Sim, run: RunId) -> BTreeMap<Seq, Vec<String>> {
    let mut out: BTreeMap<Seq, Vec<String>> = BTreeMap::new();
    for (r, seq, entries) in &sim.late {
        if *r == run {
            out.entry(*seq).or_default().push(text(entries).to_owned());
        }
    }
    out
}

/// Every line but `except` was answered once, by the parser, as line `i` of the backlog.
fn each_answered_once(sim: &Sim, run: RunId, seqs: &[Seq], except: Option<usize>) {
    let got = delivered(sim, run);
    assert_eq!(got.len(), seqs.len(), "every line is settled");
    for (i, seq) in seqs.iter().enumerate() {
        let texts = &got[seq];
        assert_eq!(texts.len(), 1, "line {i} delivered once: {texts:?}");
        if Some(i) != except {
            assert!(
                texts[0].starts_with(&format!("l{i}#")),
                "line {i}: {texts:?}"
            );
        }
    }
}

#[test]
fn a_long_backlog_of_stateless_lines_spreads_over_max_workers_engines() {
    let (mut sim, run) = paced_sim(3);
    let seqs = backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    // Before any answer only the type's engine has lines: the first SPREAD_OWED_LINES_MIN.
    let first = engines_with_lines(&sim);
    assert_eq!((sim.starts, first.len()), (1, 1));
    assert_eq!(sent_lines(&sim, first[0]), SPREAD_OWED_LINES_MIN);
    sim.step();
    assert_eq!(
        sim.starts, 3,
        "its pace showed the backlog worth two more engines"
    );
    let spread = engines_with_lines(&sim);
    assert_eq!(spread.len(), 3, "lines went to three engines");
    let sent: usize = spread.iter().map(|id| sent_lines(&sim, *id)).sum();
    assert_eq!(sent, seqs.len(), "every line was sent once");
    each_answered_once(&sim, run, &seqs, None);
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(
        (
            d.host.spread_starts,
            d.host.lines_pending,
            d.host.stale_answers
        ),
        (2, 0, 0)
    );
    assert_eq!(d.lines_by_parser, PACED + seqs.len() as u64);
    // The two spread engines ended once nothing waited; the type's engine stays.
    let mut gone = ended(&sim);
    gone.sort();
    assert_eq!(gone, spread[1..].to_vec());
    assert!(sim.host.is_idle());
}

/// A backlog that holds less than [`SPREAD_AFTER_MS`] of work at the engine's pace stays on
/// the type's engine: another's start would cost more than it saves. So does a live run's
/// trickle, and everything with one Worker.
#[test]
fn a_backlog_worth_less_than_a_start_stays_on_one_engine() {
    let fast = SPREAD_AFTER_MS / (4 * SPREAD_OWED_LINES_MIN) as f64;
    for (max_workers, ms_per_line) in [(4, fast), (1, SLOW_MS)] {
        let mut sim = Sim::with_parser(workers(max_workers), "a");
        sim.work_ms_per_line = ms_per_line;
        let run = sim.host.stateless_run("a").unwrap();
        paced(&mut sim, run);
        let seqs = backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
        sim.pump();
        sim.step();
        assert_eq!(
            sim.starts, 1,
            "maxWorkers {max_workers}, {ms_per_line} ms a line"
        );
        each_answered_once(&sim, run, &seqs, None);
    }
    assert_eq!(HostOptions::default().max_workers, 1);

    // Before the type's pace is known, its engine takes the first SPREAD_OWED_LINES_FIRST
    // lines at once: a smaller backlog goes to it whole.
    let mut sim = Sim::with_parser(workers(4), "a");
    sim.work_ms_per_line = SLOW_MS;
    let run = sim.host.stateless_run("a").unwrap();
    let seqs = backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    assert_eq!(sent_lines(&sim, sim.engine_ids()[0]), seqs.len());
    sim.step();
    assert_eq!(sim.starts, 1);
    assert!(seqs.len() < SPREAD_OWED_LINES_FIRST);

    let (mut sim, run) = paced_sim(4);
    // A live run's lines come a few at a time: the engine keeps up, nothing waits.
    for i in 0..3 * SPREAD_OWED_LINES_MIN {
        sim.defer(run, &format!("l{i}"));
        if i % 50 == 49 {
            sim.pump();
            sim.step();
        }
    }
    sim.pump();
    sim.step();
    assert_eq!(sim.starts, 1);
}

/// A `createStdoutParser()` instance keeps state from line to line: its lines stay on the
/// engine its state is in, in one batch as ever. A module that exports only
/// `parseStdoutLine` has no instance state, so every run of it spreads.
#[test]
fn only_stateless_runs_spread() {
    let mut sim = Sim::with_parser(workers(3), "a");
    sim.work_ms_per_line = SLOW_MS;
    let run = sim.host.create_run("a").unwrap();
    let seqs = backlog(&mut sim, run, 3 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    assert_eq!(sent_lines(&sim, sim.engine_ids()[0]), seqs.len());
    sim.step();
    assert_eq!(sim.starts, 1, "a factory instance stays on its engine");
    // One engine, one state: the n-th line is `#n`.
    let got = delivered(&sim, run);
    for (i, seq) in seqs.iter().enumerate() {
        assert_eq!(got[seq], vec![format!("l{i}#{}", i + 1)]);
    }

    let mut sim = Sim::new(workers(3));
    sim.work_ms_per_line = SLOW_MS;
    sim.start_mode = StartMode::Manual;
    sim.host
        .register_source(0.0, "a", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    let first = sim.engine_ids()[0];
    sim.host
        .handle_engine_started(sim.now, first, Ok("parseStdoutLine".into()));
    sim.start_mode = StartMode::Ok;
    let run = sim.host.create_run("a").unwrap();
    paced(&mut sim, run);
    let seqs = backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    sim.step();
    assert_eq!(
        sim.starts, 3,
        "every run of a parseStdoutLine module spreads"
    );
    each_answered_once(&sim, run, &seqs, None);
}

/// A spread engine that dies gives its lines back to the type's engine, which answers them
/// (the line that killed it fails there, as on any engine), and the type spreads no more
/// until its parser changes.
#[test]
fn a_spread_engine_that_dies_gives_its_lines_to_the_types_engine() {
    let (mut sim, run) = paced_sim(3);
    let (seqs, at, died_in) = special_on_a_spread_engine(&mut sim, run, "die");
    assert!(ended(&sim).contains(&died_in));
    each_answered_once(&sim, run, &seqs, Some(at));
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks.get("worker_fault"), Some(&1), "{d:?}");
    assert_eq!(d.lines_by_parser, PACED + seqs.len() as u64 - 1);
    assert_eq!(d.host.lines_pending, 0);
    // Spreading stopped: a new backlog stays on the type's engine.
    let starts = sim.starts;
    let more = lines(&mut sim, run, "m", 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    sim.step();
    assert_eq!(sim.starts, starts, "no engine started for the new backlog");
    assert_eq!(delivered(&sim, run).len(), seqs.len() + more.len());
    // A new parser may spread again.
    sim.host
        .register_source(sim.now, "a", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    let run = sim.host.stateless_run("a").unwrap();
    paced(&mut sim, run);
    let starts = sim.starts;
    backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    sim.step();
    assert_eq!(
        sim.starts,
        starts + 2,
        "two more engines for the new parser"
    );
}

/// A spread engine ended at its deadline gives its lines back: the type's engine answers them
/// and, stuck on the same line, fails it by its own rules. Every other line is answered.
#[test]
fn a_spread_engine_past_its_deadline_gives_its_lines_back() {
    let (mut sim, run) = paced_sim(2);
    let (seqs, at, hung_in) = special_on_a_spread_engine(&mut sim, run, "hang");
    for _ in 0..8 {
        sim.advance(1_000.0);
        sim.step();
    }
    assert!(ended(&sim).contains(&hung_in));
    each_answered_once(&sim, run, &seqs, Some(at));
    let d = sim.host.diagnostics(Some("a"));
    assert_eq!(d.fallbacks.get("deadline"), Some(&1), "{d:?}");
    assert_eq!(d.lines_by_parser, PACED + seqs.len() as u64 - 1);
    assert_eq!(d.host.lines_pending, 0);
    assert!(sim.host.is_idle());
}

/// Replacing the type's parser ends its spread engines with its engine, and the lines that
/// waited are abandoned with the runs' journals (the type's viewers rebuild).
#[test]
fn spread_engines_end_with_the_types_parser() {
    let (mut sim, run) = paced_sim(3);
    backlog(&mut sim, run, 8 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    sim.step_rounds(400);
    assert_eq!(sim.engines.len(), 3, "mid-run: three engines");
    sim.host.unregister("a").unwrap();
    sim.pump();
    assert!(sim.engines.is_empty(), "every engine of the type ended");
    assert!(sim.host.is_idle(), "nothing waits");
}

/// Spreading never parks another type's engine: with no room left, the backlog stays on the
/// type's engine.
#[test]
fn spreading_takes_only_free_room() {
    let mut sim = Sim::with_parser(
        options(|o| {
            o.host = HostPlacement::Worker;
            o.max_workers = 4;
            o.max_live_engines = 2;
        }),
        "a",
    );
    sim.work_ms_per_line = SLOW_MS;
    sim.host
        .register_source(0.0, "b", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    let run = sim.host.stateless_run("a").unwrap();
    let seqs = backlog(&mut sim, run, 4 * SPREAD_OWED_LINES_MIN, None);
    sim.pump();
    sim.step();
    assert_eq!(sim.starts, 2, "a and b only");
    assert_eq!(sim.host.diagnostics(Some("b")).host.parked, 0);
    each_answered_once(&sim, run, &seqs, None);
}
