//! A simulated executor with simulated engines: what the thin JS executor will do, in a few
//! lines, so every host decision can be driven and observed with plain `cargo test`.
//!
//! The simulated parser is stateful and deterministic: it counts the lines of each run since
//! the run was created or reset and answers `line` with one assistant entry `line#n`, so a
//! test can see whether a replay brought the state back. Special lines:
//! `die` (the engine dies), `hang` (never answers), `throw`, `slow` (over budget: an
//! overrun), `big:N` (an entry with an N-byte string), `many:N` (N entries).

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, VecDeque};

use parsebox_host::{
    Command, EngineId, EngineOp, Host, HostOptions, LineOp, LineStep, LoadError, Placement, RunId,
    Seq,
};
use parsebox_transcript::{FailureCode, LineFailure, LineOutcome, TranscriptEntry};
use serde_json::json;

/// How simulated engines react to `StartEngine`.
#[derive(Clone, Debug, PartialEq)]
pub enum StartMode {
    /// Report `started(Ok("createStdoutParser"))` at once.
    Ok,
    /// Do nothing; the test reports.
    Manual,
    /// Report this load error.
    Fail(LoadError),
    /// A source with a regex of a catastrophic shape: `unsafe_regex` from an engine whose
    /// config screens regexes, a good start from one that does not.
    UnsafeRegex,
}

pub struct SimEngine {
    pub placement: Placement,
    /// Per run: lines since NewRun/Reset.
    pub runs: BTreeMap<RunId, u64>,
    /// Ops received and not processed yet (Worker engines process on `step`).
    pub queue: VecDeque<EngineOp>,
    pub hung: bool,
    pub replayed: usize,
    /// The next live line is the first of a batch, or follows realm work: report `began`.
    pub report_began: bool,
    /// Started with `answer_batch_ms` > 0 while the sim holds answers ([`Sim::hold_answers`]).
    pub batches: bool,
    /// Answers held until the engine's queue is empty (what a Worker that batches posts at the
    /// end of a message).
    pub held: Vec<(Seq, LineOutcome)>,
}

pub struct Sim {
    pub host: Host,
    pub now: f64,
    pub engines: BTreeMap<EngineId, SimEngine>,
    pub start_mode: StartMode,
    /// A Worker engine dies when it reaches this many replayed lines.
    pub die_in_replay_at: Option<usize>,
    /// A "stall" line hung its first engine (a stalled machine): later runs of it answer.
    pub stalled: bool,
    /// Every command seen, in order.
    pub log: Vec<Command>,
    pub late: Vec<(RunId, Seq, Vec<TranscriptEntry>)>,
    pub loads: Vec<(String, u64)>,
    pub notified: Vec<String>,
    pub starts: usize,
    /// Worker engines started with `answer_batch_ms` > 0 hold their answers until their queue
    /// is empty, as a real Worker holds them to the end of a message (off: each answer is
    /// handed over at once, whatever the core asked).
    pub hold_answers: bool,
    /// Each `StartEngine`'s `answer_batch_ms`, in order.
    pub answer_batch_ms: Vec<f64>,
    /// The clock moves on this much for each line a Worker engine answers: the parser's pace.
    pub work_ms_per_line: f64,
}

pub const TS: &str = "2026-01-01T00:00:00Z";

pub fn options(f: impl FnOnce(&mut HostOptions)) -> HostOptions {
    let mut o = HostOptions {
        load_sources: false,
        // The simulation's clock: 100 ms deadlines keep its timelines short.
        hard_deadline_ms: 100.0,
        ..HostOptions::default()
    };
    f(&mut o);
    o
}

/// The simulated parser's answer to `line` in a run that has seen `count` lines.
pub fn answer(line: &str, count: &mut u64) -> LineOutcome {
    let fail = |code| Err(LineFailure::new(code, format!("{line} failed")));
    let out = match line {
        "throw" => fail(FailureCode::Threw),
        "slow" => fail(FailureCode::BudgetExceeded),
        l if l.starts_with("big:") => {
            let n: usize = l[4..].parse().unwrap();
            Ok(json!([{ "kind": "assistant", "ts": TS, "text": "x".repeat(n) }]))
        }
        l if l.starts_with("many:") => {
            let n: usize = l[5..].parse().unwrap();
            let v: Vec<_> = (0..n)
                .map(|i| json!({ "kind": "user", "ts": TS, "text": i.to_string() }))
                .collect();
            Ok(json!(v))
        }
        _ => {
            *count += 1;
            Ok(json!([{ "kind": "assistant", "ts": TS, "text": format!("{line}#{count}") }]))
        }
    };
    if parsebox_transcript::outcome_resets_parser(&out) {
        *count = 0;
    }
    out
}

/// The text of a single-entry answer.
pub fn text(entries: &[TranscriptEntry]) -> &str {
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].text().unwrap()
}

enum Ran {
    Answers(Vec<(Seq, LineOutcome)>),
    Died(Vec<(Seq, LineOutcome)>),
}

impl Sim {
    pub fn new(options: HostOptions) -> Self {
        Self {
            host: Host::new(options).unwrap(),
            now: 0.0,
            engines: BTreeMap::new(),
            start_mode: StartMode::Ok,
            die_in_replay_at: None,
            stalled: false,
            log: Vec::new(),
            late: Vec::new(),
            loads: Vec::new(),
            notified: Vec::new(),
            starts: 0,
            hold_answers: false,
            answer_batch_ms: Vec::new(),
            work_ms_per_line: 0.0,
        }
    }

    /// A sim with `adapter_type` registered and started.
    pub fn with_parser(options: HostOptions, adapter_type: &str) -> Self {
        Self::registered(options, adapter_type, false)
    }

    /// [`Sim::with_parser`] whose Worker engines hold their answers ([`Sim::hold_answers`]).
    pub fn holding_answers(options: HostOptions, adapter_type: &str) -> Self {
        Self::registered(options, adapter_type, true)
    }

    fn registered(options: HostOptions, adapter_type: &str, hold_answers: bool) -> Self {
        let mut sim = Self::new(options);
        sim.hold_answers = hold_answers;
        sim.host
            .register_source(
                0.0,
                adapter_type,
                "export function parseStdoutLine() {}",
                None,
            )
            .unwrap();
        sim.pump();
        sim
    }

    /// Performs every queued command (and what they lead to).
    pub fn pump(&mut self) {
        while let Some(c) = self.host.poll_command() {
            self.perform(c);
        }
    }

    /// Performs one command taken from the host.
    pub fn perform(&mut self, c: Command) {
        {
            self.log.push(c.clone());
            match c {
                Command::Load {
                    adapter_type,
                    token,
                } => self.loads.push((adapter_type, token)),
                Command::StartEngine {
                    engine,
                    placement,
                    config,
                    answer_batch_ms,
                    ..
                } => {
                    self.starts += 1;
                    self.answer_batch_ms.push(answer_batch_ms);
                    self.engines.insert(
                        engine,
                        SimEngine {
                            placement,
                            runs: BTreeMap::new(),
                            queue: VecDeque::new(),
                            hung: false,
                            replayed: 0,
                            report_began: false,
                            batches: self.hold_answers && answer_batch_ms > 0.0,
                            held: Vec::new(),
                        },
                    );
                    match self.start_mode.clone() {
                        StartMode::UnsafeRegex if config.screen_regexes => {
                            self.host.handle_engine_started(
                                self.now,
                                engine,
                                Err(LoadError::new(
                                    "unsafe_regex",
                                    "regex literal /^(a+)+$/ refused",
                                )),
                            );
                        }
                        StartMode::Ok | StartMode::UnsafeRegex => self.host.handle_engine_started(
                            self.now,
                            engine,
                            Ok("createStdoutParser".into()),
                        ),
                        StartMode::Manual => {}
                        StartMode::Fail(e) => {
                            self.host.handle_engine_started(self.now, engine, Err(e))
                        }
                    }
                }
                Command::Send { engine, ops } => {
                    let worker =
                        self.engines.get(&engine).map(|e| e.placement) == Some(Placement::Worker);
                    if worker {
                        let e = self.engines.get_mut(&engine).unwrap();
                        e.queue.extend(ops);
                        e.report_began = true;
                    } else {
                        let answered = match self.run_ops(engine, ops) {
                            Ran::Answers(a) => self.host.handle_answers(self.now, engine, a),
                            Ran::Died(a) => {
                                self.host.handle_answers(self.now, engine, a);
                                self.host.handle_engine_died(self.now, engine, "trap")
                            }
                        };
                        assert!(answered.is_empty(), "batched lines are never synchronous");
                    }
                }
                Command::EndEngine { engine } => {
                    self.engines.remove(&engine);
                }
                Command::LateAnswer {
                    run, seq, entries, ..
                } => self.late.push((run, seq, entries)),
                Command::Notify { adapter_type } => self.notified.push(adapter_type),
            }
        }
    }

    /// Runs ops synchronously in a simulated engine (inline style: all answers at the end).
    fn run_ops(&mut self, engine: EngineId, ops: Vec<EngineOp>) -> Ran {
        let mut answers = Vec::new();
        let e = self
            .engines
            .get_mut(&engine)
            .expect("ops for a live engine");
        for op in ops {
            match op {
                EngineOp::NewRun { run, .. } | EngineOp::Reset { run } => {
                    e.runs.insert(run, 0);
                }
                EngineOp::DropRun { run } => {
                    e.runs.remove(&run);
                }
                EngineOp::Line(l) => {
                    if l.line == "die" {
                        return Ran::Died(answers);
                    }
                    let count = e.runs.entry(l.run).or_default();
                    answers.push((l.seq, answer(&l.line, count)));
                }
            }
        }
        Ran::Answers(answers)
    }

    /// Lets every Worker engine work through its queue, answering line by line as a real
    /// worker posts messages, until none can make progress.
    pub fn step(&mut self) {
        self.step_rounds(usize::MAX);
    }

    /// [`Sim::step`], at most `rounds` times round the engines.
    pub fn step_rounds(&mut self, rounds: usize) {
        for _ in 0..rounds {
            let mut progressed = false;
            let ids: Vec<EngineId> = self.engines.keys().copied().collect();
            for id in ids {
                progressed |= self.step_one(id);
                self.pump();
            }
            if !progressed {
                break;
            }
        }
    }

    fn step_one(&mut self, id: EngineId) -> bool {
        let Some(e) = self.engines.get_mut(&id) else {
            return false;
        };
        if e.hung || e.placement != Placement::Worker {
            return false;
        }
        let Some(op) = e.queue.pop_front() else {
            return false;
        };
        match op {
            EngineOp::NewRun { run, .. } => {
                e.runs.insert(run, 0);
                e.report_began = true;
            }
            EngineOp::Reset { run } => {
                e.runs.insert(run, 0);
            }
            EngineOp::DropRun { run } => {
                e.runs.remove(&run);
            }
            EngineOp::Line(LineOp {
                seq,
                run,
                line,
                replay,
                ..
            }) => {
                if replay {
                    e.replayed += 1;
                    if self.die_in_replay_at.is_some_and(|n| e.replayed >= n) {
                        self.host.handle_engine_died(self.now, id, "out of memory");
                        return true;
                    }
                } else if std::mem::take(&mut e.report_began) {
                    // As an engine does (`EngineRuns::run_ops`): `began` for the first live
                    // line of a batch and after realm work; otherwise the answer to a line
                    // arms the next one's deadline.
                    self.host.handle_began(self.now, id, seq);
                }
                let e = self.engines.get_mut(&id).unwrap();
                match line.as_str() {
                    "hang" => e.hung = true,
                    "stall" if !self.stalled => {
                        self.stalled = true;
                        e.hung = true;
                    }
                    "die" => {
                        // A Worker posts what it holds before it reports its death.
                        let held = std::mem::take(&mut e.held);
                        if !held.is_empty() {
                            self.host.handle_answers(self.now, id, held);
                        }
                        self.host
                            .handle_engine_died(self.now, id, "unreachable executed");
                    }
                    "oom" => {
                        let held = std::mem::take(&mut e.held);
                        if !held.is_empty() {
                            self.host.handle_answers(self.now, id, held);
                        }
                        self.host.handle_engine_out_of_memory(self.now, id, 3 << 20);
                    }
                    _ => {
                        let count = e.runs.entry(run).or_default();
                        let out = answer(&line, count);
                        self.now += self.work_ms_per_line;
                        e.report_began |= parsebox_host::engine_work_follows(&out);
                        if e.batches {
                            e.held.push((seq, out));
                        } else {
                            let answered = self.host.handle_answers(self.now, id, vec![(seq, out)]);
                            assert!(answered.is_empty(), "worker answers are never synchronous");
                        }
                    }
                }
            }
        }
        if let Some(e) = self.engines.get_mut(&id) {
            if e.queue.is_empty() && !e.hung && !e.held.is_empty() {
                let held = std::mem::take(&mut e.held);
                self.host.handle_answers(self.now, id, held);
            }
        }
        true
    }

    /// Parses a line a Worker engine will answer later; its seq.
    pub fn defer(&mut self, run: RunId, line: &str) -> Seq {
        match self.host.parse_line(self.now, run, line, TS).unwrap() {
            LineStep::Deferred { seq, .. } => seq,
            other => panic!("a worker line is deferred, got {other:?}"),
        }
    }

    /// Defers `lines` of `run` and sends them: the engine they went to, and their seqs.
    pub fn sent(&mut self, run: RunId, lines: &[&str]) -> (EngineId, Vec<Seq>) {
        let seqs = lines.iter().map(|l| self.defer(run, l)).collect();
        self.pump();
        (*self.engine_ids().last().unwrap(), seqs)
    }

    /// Parses a line the way the page does: returns what the page shows now.
    pub fn parse(&mut self, run: RunId, line: &str) -> Vec<TranscriptEntry> {
        let step = self.host.parse_line(self.now, run, line, TS).unwrap();
        let shown = match step {
            LineStep::Answered(entries) | LineStep::Deferred { entries, .. } => entries,
            LineStep::RunNow { engine, seq, ops } => {
                let answered = match self.run_ops(engine, ops) {
                    Ran::Answers(a) => self.host.handle_answers(self.now, engine, a),
                    Ran::Died(a) => {
                        let mut got = self.host.handle_answers(self.now, engine, a);
                        got.extend(self.host.handle_engine_died(self.now, engine, "trap"));
                        got
                    }
                };
                answered
                    .into_iter()
                    .find(|a| a.seq == seq)
                    .map(|a| a.entries)
                    .unwrap_or_else(|| vec![parsebox_transcript::generic_entry(line, TS)])
            }
        };
        self.pump();
        shown
    }

    /// Advances the clock and fires the host's timer if it is due.
    pub fn advance(&mut self, ms: f64) {
        self.now += ms;
        if self.host.poll_timeout().is_some_and(|at| at <= self.now) {
            self.host.handle_timeout(self.now);
        }
        self.pump();
    }

    /// Texts of the late answers, in order.
    pub fn late_texts(&self) -> Vec<String> {
        self.late
            .iter()
            .map(|(_, _, e)| text(e).to_owned())
            .collect()
    }

    /// Commands of one kind seen so far.
    pub fn sends(&self) -> Vec<(EngineId, Vec<EngineOp>)> {
        self.log
            .iter()
            .filter_map(|c| match c {
                Command::Send { engine, ops } => Some((*engine, ops.clone())),
                _ => None,
            })
            .collect()
    }

    /// The live simulated engine ids.
    pub fn engine_ids(&self) -> Vec<EngineId> {
        self.engines.keys().copied().collect()
    }
}
