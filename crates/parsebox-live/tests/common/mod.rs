//! The page side the live core's tests drive it with: a fake executor whose inline engines
//! answer `inline:<line>` (the lines `die` and `oom` kill them) on a clock the test moves, a
//! built-in that answers `builtin:<line>`, and the steps most tests begin with.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod page;
pub mod rng;

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_host::{
    wire, EngineId, EngineOp, Host, HostOptions, HostPlacement, InstanceFactory, ParserInstance,
};
use parsebox_live::{Builtin, EngineDeath, Executor, ExecutorCommand, LiveCore};
use parsebox_transcript::{FailedLineEntry, LineFailure, TranscriptEntry};
use serde_json::{json, Value};

pub const GENERIC: FailedLineEntry = FailedLineEntry::Generic;

/// What the fake executor saw.
#[derive(Default)]
pub struct Seen {
    pub wakes: u32,
    pub posted: Vec<(EngineId, Vec<u8>)>,
    pub ended: Vec<EngineId>,
    pub clock: f64,
    /// How far the clock moves on each inline call.
    pub tick: f64,
    /// Let go of posted frames instead of keeping them in `posted` (as a page's executor
    /// hands them to a Worker): what the core holds is then the core's alone.
    pub forget_posted: bool,
    /// Lines `stop-once` the engines stopped at their deadline so far.
    pub stopped_once: u32,
}

/// The page side: inline engines answer `inline:<line>`; the lines `die` and `oom` kill
/// them.
#[derive(Clone, Default)]
pub struct FakeExecutor(pub Rc<RefCell<Seen>>);

impl Executor for FakeExecutor {
    type Builtin = FakeBuiltin;

    fn now_ms(&self) -> f64 {
        self.0.borrow().clock
    }

    fn start_inline(
        &mut self,
        _: EngineId,
        _: &str,
        _: &str,
        _: &str,
    ) -> Result<String, EngineDeath> {
        Ok(json!({ "Ok": { "entryPoint": "parseStdoutLine" } }).to_string())
    }

    fn run_inline(&mut self, _: EngineId, ops_frame: &[u8]) -> Result<Vec<u8>, EngineDeath> {
        let tick = self.0.borrow().tick;
        self.0.borrow_mut().clock += tick;
        let mut answers = Vec::new();
        for op in wire::decode_ops(ops_frame).unwrap() {
            if let EngineOp::Line(l) = op {
                match l.line.as_str() {
                    "die" => return Err(EngineDeath::Fault("RuntimeError: unreachable".into())),
                    "oom" => return Err(EngineDeath::OutOfMemory(1 << 20)),
                    "stop" => return Err(EngineDeath::Stopped),
                    "stop-once" if !l.replay && self.0.borrow().stopped_once == 0 => {
                        self.0.borrow_mut().stopped_once += 1;
                        return Err(EngineDeath::Stopped);
                    }
                    line => answers.push(json!([l.seq, { "Ok": [{ "kind": "assistant", "ts": l.ts, "text": format!("inline:{line}") }] }])),
                }
            }
        }
        Ok(serde_json::to_vec(&answers).unwrap())
    }

    fn end_inline(&mut self, engine: EngineId) {
        self.0.borrow_mut().ended.push(engine);
    }

    fn post_ops(&mut self, engine: EngineId, ops_frame: Vec<u8>) {
        let mut seen = self.0.borrow_mut();
        if !seen.forget_posted {
            seen.posted.push((engine, ops_frame));
        }
    }

    fn wake(&mut self) {
        self.0.borrow_mut().wakes += 1;
    }
}

/// A built-in that answers `builtin:<line>`.
#[derive(Clone)]
pub struct FakeBuiltin;

pub struct FakeRun;

impl ParserInstance for FakeRun {
    type Value = Value;
    fn parse(&mut self, line: &str, ts: &str) -> Result<Value, LineFailure> {
        Ok(json!([{ "kind": "assistant", "ts": ts, "text": format!("builtin:{line}") }]))
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        Ok(())
    }
}

impl InstanceFactory for FakeBuiltin {
    type Instance = FakeRun;
    fn new_instance(&mut self, _: bool) -> Result<FakeRun, LineFailure> {
        Ok(FakeRun)
    }
}

impl Builtin for FakeBuiltin {
    fn entry_point(&self) -> &'static str {
        "parseStdoutLine"
    }
}

pub const SOURCE: &str = "export function parseStdoutLine(line, ts) { return []; }";

pub fn live(host: HostPlacement) -> (LiveCore<FakeExecutor>, Rc<RefCell<Seen>>) {
    live_with(HostOptions {
        host,
        load_sources: false,
        ..HostOptions::default()
    })
}

pub fn live_with(options: HostOptions) -> (LiveCore<FakeExecutor>, Rc<RefCell<Seen>>) {
    let host = Host::new(options).unwrap();
    let executor = FakeExecutor::default();
    let seen = Rc::clone(&executor.0);
    (LiveCore::new(host, "{}".into(), executor), seen)
}

pub fn texts(entries: &[TranscriptEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e.text().unwrap_or_default().to_owned())
        .collect()
}

/// Registers `SOURCE` as type `w` under the Worker host and reports its engine started.
pub fn worker_type(live: &mut LiveCore<FakeExecutor>) -> EngineId {
    live.register_source("w", SOURCE, None).unwrap();
    let commands = live.take_commands();
    let engine = started(&commands).expect("a Worker to start");
    assert!(commands.contains(&ExecutorCommand::Notify {
        adapter_type: "w".into()
    }));
    live.worker_started(engine, r#"{"Ok":{"entryPoint":"parseStdoutLine"}}"#);
    // The executor drains after each call.
    live.take_commands();
    engine
}

/// A new run of `w` whose line `line` the Worker `engine` has been sent and has begun: its seq.
pub fn line_begun(live: &mut LiveCore<FakeExecutor>, engine: EngineId, line: &str) -> u64 {
    let run = live.create_run("w", GENERIC, false).unwrap();
    let (_, seq) = live.parse_line(run, line, "t").unwrap();
    live.take_commands();
    live.take_ops(engine);
    let seq = seq.expect("a Worker line is answered late");
    assert!(
        live.worker_began(engine, seq).is_some(),
        "began arms a deadline"
    );
    seq
}

/// The Worker engine the commands start, if one.
pub fn started(commands: &[ExecutorCommand]) -> Option<EngineId> {
    commands.iter().find_map(|c| match c {
        ExecutorCommand::StartWorker { engine, .. } => Some(EngineId(*engine)),
        _ => None,
    })
}

/// Worker `engine` answers line `seq` with one entry of `text`.
pub fn answer(live: &mut LiveCore<FakeExecutor>, engine: EngineId, seq: u64, text: &str) {
    let batch = json!([[seq, { "Ok": [{ "kind": "assistant", "ts": "t", "text": text }] }]]);
    live.worker_answered(engine, &[batch.to_string()]);
}

/// The lines an ops frame sends: `(seq, line)` of each, in order.
pub fn sent_lines(ops_frame: &[u8]) -> Vec<(u64, String)> {
    wire::decode_ops(ops_frame)
        .unwrap()
        .into_iter()
        .filter_map(|op| match op {
            EngineOp::Line(l) => Some((l.seq, l.line)),
            _ => None,
        })
        .collect()
}
