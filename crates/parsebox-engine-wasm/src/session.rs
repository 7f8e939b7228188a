//! One instance's engine as JSON in, JSON out: what the exports call, tested natively.

use parsebox_engine::{sandbox_options, Engine};
use parsebox_protocol::{
    wire, EngineConfig, EngineOp, EngineReports, LineStart, LoadError, Seq, Started,
};
use parsebox_sandbox::{BlankRealm, SandboxOptions};
use parsebox_transcript::{FailureCode, LineFailure, ReturnJson};
use serde::Serialize;
use serde_json::Value;

/// What the embedding supplies to the sandbox besides the config.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    /// The budgets' monotonic clock in milliseconds ([`SandboxOptions::clock`]); required on
    /// wasm32, where std has no clock.
    pub clock: Option<fn() -> f64>,
    /// Bytes of linear memory the instance holds ([`SandboxOptions::heap_probe`]); with it a
    /// call that grows memory by more than [`heap_growth_cap`] fails as `memory_exceeded`
    /// before the instance reaches its maximum and traps.
    pub heap_probe: Option<fn() -> usize>,
}

/// The most a single call may grow the instance's memory when a heap probe is set: half the
/// instance's maximum (and never more than the sandbox's default).
pub fn heap_growth_cap(max_memory_bytes: u64) -> usize {
    let half = usize::try_from(max_memory_bytes / 2).unwrap_or(usize::MAX);
    half.min(SandboxOptions::default().max_heap_growth_bytes)
}

/// One instance's engine: nothing until [`Session::start`] succeeds.
#[derive(Default)]
pub struct Session {
    hooks: Hooks,
    engine: Option<Engine>,
    /// A realm made ahead of the start ([`Session::prepare`]), used by the first start whose
    /// options it suits.
    blank: Option<BlankRealm>,
    /// The engine does realm work of its own before its next line: the last line
    /// [`Session::run`] answered failed ([`parsebox_protocol::engine_work_follows`]), or the next
    /// record of the queued frame opens a new run.
    work_follows: bool,
    /// An ops frame handed over whole ([`Session::queue`]), performed a record at a time.
    queued: Vec<u8>,
    /// Where the next record of `queued` starts.
    queued_at: usize,
    /// How long a Worker may hold answers before it posts them ([`Session::queue`]).
    answer_batch_ms: f64,
    /// When the Worker last posted (or took a frame), on the clock [`Session::post_due`] gets.
    posted_at: f64,
    /// Bytes of the answers produced since the Worker last posted.
    unposted_bytes: usize,
}

/// The most bytes of answers a Worker holds before it posts them, whatever the time: the page
/// reads each post in one task, so a post's size bounds that task's work (a burst of large
/// answers arrives as several posts, each read in a task of its own).
pub const POST_BYTES: usize = 256 << 10;

/// Serialises `value`, or gives `fallback` (serde_json fails only on non-string map keys,
/// which none of these types have).
fn encode<T: Serialize>(value: &T, fallback: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| fallback.to_owned())
}

fn bad_options(message: String) -> LoadError {
    LoadError::new("bad_options", message)
}

/// The seqs of the line ops in a batch, read leniently (a batch that does not decode as
/// `Vec<EngineOp>` may still name its lines).
fn line_seqs(ops: &Value) -> Vec<Seq> {
    let Some(ops) = ops.as_array() else {
        return Vec::new();
    };
    ops.iter()
        .filter(|op| op.get("op").and_then(Value::as_str) == Some("line"))
        .filter_map(|op| op.get("seq").and_then(Value::as_u64))
        .collect()
}

/// Every line of a batch the engine cannot perform, answered with `engine_fault`.
fn faults(seqs: Vec<Seq>, message: &str) -> Vec<(Seq, Outcome)> {
    seqs.into_iter()
        .map(|seq| {
            let failure = LineFailure::new(FailureCode::EngineFault, message.to_owned());
            (seq, Err(failure))
        })
        .collect()
}

/// A line's outcome with its value as JSON text.
type Outcome = Result<ReturnJson, LineFailure>;

/// What a batch answered: each line's outcome, and what the engine reports besides.
type Performed = (Vec<(Seq, Outcome)>, Vec<(Seq, EngineReports)>);

/// The answers as JSON `[[seq, {"Ok":value}|{"Err":failure}], …]`: each value's text goes in
/// as the converter wrote it, never parsed again. A line in `reports` carries a third element,
/// its [`EngineReports`] ([`parsebox_protocol::EngineAnswer`]).
fn encode_answers(answers: &[(Seq, Outcome)], reports: &[(Seq, EngineReports)]) -> String {
    let values: usize = answers
        .iter()
        .map(|(_, o)| o.as_ref().map_or(64, |v| v.as_str().len()))
        .sum();
    let mut out = String::with_capacity(values + 32 * answers.len() + 2);
    out.push('[');
    for (i, (seq, outcome)) in answers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        out.push_str(&seq.to_string());
        match outcome {
            Ok(value) => {
                out.push_str(",{\"Ok\":");
                out.push_str(value.as_str());
            }
            Err(failure) => {
                out.push_str(",{\"Err\":");
                out.push_str(&encode(
                    failure,
                    r#"{"code":"engine_fault","message":"could not encode the failure"}"#,
                ));
            }
        }
        out.push('}');
        if let Some((_, r)) = reports.iter().find(|(s, r)| s == seq && !r.is_empty()) {
            out.push(',');
            out.push_str(&encode(r, "{}"));
        }
        out.push(']');
    }
    out.push(']');
    out
}

impl Session {
    /// A session with no engine yet.
    pub fn new(hooks: Hooks) -> Session {
        Session {
            hooks,
            engine: None,
            blank: None,
            work_follows: false,
            queued: Vec::new(),
            queued_at: 0,
            answer_batch_ms: 0.0,
            posted_at: 0.0,
            unposted_bytes: 0,
        }
    }

    /// Takes an ops frame (the core's batch) to perform a record at a time with
    /// [`Session::run_next`], in place of any frame still queued: a Worker can post answers
    /// between records, and needs to know nothing of the frame's layout. `answer_batch_ms`:
    /// how long it may hold answers ([`Session::post_due`]), counted from `now_ms`.
    pub fn queue(&mut self, frame: &[u8], answer_batch_ms: f64, now_ms: f64) {
        self.queued = frame.to_vec();
        self.queued_at = 0;
        self.answer_batch_ms = answer_batch_ms;
        self.posted_at = now_ms;
    }

    /// Whether a Worker posts the answers it holds now, after a record of the queued frame:
    /// the engine's own realm work comes next (so the core times it as the engine's, not a
    /// line's), the frame is done, `answer_batch_ms` has passed since the last post (a line
    /// that hangs holds back at most that much), or it holds [`POST_BYTES`] of answers. When it
    /// says yes, the wait starts again from `now_ms`.
    pub fn post_due(&mut self, now_ms: f64) -> bool {
        let due = self.work_follows
            || !self.has_next()
            || now_ms - self.posted_at >= self.answer_batch_ms
            || self.unposted_bytes >= POST_BYTES;
        if due {
            self.posted_at = now_ms;
            self.unposted_bytes = 0;
        }
        due
    }

    /// Whether the queued frame has records left.
    pub fn has_next(&self) -> bool {
        self.queued_at < self.queued.len()
    }

    /// Performs the queued frame's next record as [`Session::run`] does (the first record opens
    /// the batch); answers nothing (an empty string) when the record answered no line (it
    /// opened or reset a run) or none is left, so a Worker holds and posts real answers only.
    /// A record that is not whole, and what follows it, is performed at once: its lines are
    /// answered as engine faults.
    pub fn run_next(&mut self, began: impl FnMut(LineStart)) -> String {
        let frame = std::mem::take(&mut self.queued);
        let at = self.queued_at;
        let rest = frame.get(at..).unwrap_or_default();
        if rest.is_empty() {
            self.queued_at = 0;
            return String::new();
        }
        let (record, after) = rest.split_at(wire::record_len(rest).unwrap_or(rest.len()));
        let (answers, reports) = self.perform(record, at == 0, began);
        let out = if answers.is_empty() {
            String::new()
        } else {
            encode_answers(&answers, &reports)
        };
        self.unposted_bytes = self.unposted_bytes.saturating_add(out.len());
        if wire::starts_realm_work(after) {
            self.work_follows = true;
        }
        if after.is_empty() {
            self.queued_at = 0;
        } else {
            self.queued_at = at + record.len();
            self.queued = frame;
        }
        out
    }

    /// Whether an engine is loaded.
    pub fn started(&self) -> bool {
        self.engine.is_some()
    }

    /// Makes the realm the next start will load its parser into (the prelude's constants are
    /// the sandbox's defaults, which every [`EngineConfig`] keeps). `build.sh` calls it once and
    /// keeps the instance's memory as the module's initial memory, so every instance starts
    /// with the realm made. Answers JSON of `Result<(), LoadError>`.
    pub fn prepare(&mut self) -> String {
        let result = match &self.blank {
            Some(_) => Ok(()),
            None => BlankRealm::new(&SandboxOptions::default()).map(|b| {
                self.blank = Some(b);
            }),
        };
        encode(
            &result.map_err(parsebox_engine::load_error),
            r#"{"Err":{"code":"engine_fault","message":"could not encode the prepare result","line":null,"column":null}}"#,
        )
    }

    /// Whether a realm made by [`prepare`](Self::prepare) is waiting for a start.
    pub fn prepared(&self) -> bool {
        self.blank.is_some()
    }

    /// Loads `source` (UTF-8) with `config` (JSON of the host's `EngineConfig`), replacing any
    /// earlier engine. Answers JSON of `Result<Started, LoadError>`: the entry point and the
    /// module's shape, or why the
    /// source was refused (`bad_options` for input that does not decode).
    pub fn start(&mut self, source: &[u8], config: &[u8]) -> String {
        // The old engine goes first, so its memory can serve the new one.
        self.engine = None;
        let result = self.load(source, config).map(|(engine, started)| {
            self.engine = Some(engine);
            started
        });
        encode(
            &result,
            r#"{"Err":{"code":"engine_fault","message":"could not encode the start result","line":null,"column":null}}"#,
        )
    }

    fn load(&mut self, source: &[u8], config: &[u8]) -> Result<(Engine, Started), LoadError> {
        let config: EngineConfig = serde_json::from_slice(config)
            .map_err(|e| bad_options(format!("the engine config is not an EngineConfig: {e}")))?;
        let source = std::str::from_utf8(source)
            .map_err(|e| bad_options(format!("the parser source is not UTF-8: {e}")))?;
        let options = SandboxOptions {
            clock: self.hooks.clock,
            heap_probe: self.hooks.heap_probe,
            max_heap_growth_bytes: heap_growth_cap(config.max_memory_bytes),
            ..sandbox_options(&config)?
        };
        Engine::start_with(source, options, &mut self.blank)
    }

    /// Performs `ops` (an ops frame, [`parsebox_protocol::wire`], or JSON of `Vec<EngineOp>`) in
    /// order. `batch_start`: these are the first ops of a batch the host sent. `began` is
    /// called as each live line starts ([`LineStart`]: reported when the host needs it to arm
    /// the line's deadline, the first of a batch or one after the engine's own realm work, see
    /// `parsebox_protocol`'s `began` rule). Answers JSON `[[seq, outcome], …]`; before a successful start, or when `ops`
    /// does not decode, every line op is answered with `engine_fault`.
    pub fn run(&mut self, ops: &[u8], batch_start: bool, began: impl FnMut(LineStart)) -> String {
        let (answers, reports) = self.perform(ops, batch_start, began);
        encode_answers(&answers, &reports)
    }

    /// [`Session::run`]'s answers and reports, before encoding.
    fn perform(
        &mut self,
        ops: &[u8],
        batch_start: bool,
        began: impl FnMut(LineStart),
    ) -> Performed {
        let mut reports = Vec::new();
        let answers = match (decode(ops), &mut self.engine) {
            (Ok(ops), Some(engine)) => {
                if batch_start {
                    engine.batch_arrived();
                }
                let answers = engine.run_ops(ops, began);
                reports = engine.take_reports();
                answers
            }
            (Ok(ops), None) => {
                let seqs = ops
                    .iter()
                    .filter_map(|op| match op {
                        EngineOp::Line(l) => Some(l.seq),
                        _ => None,
                    })
                    .collect();
                faults(
                    seqs,
                    "the engine has no parser: it was not started, or its start failed",
                )
            }
            (Err(e), _) => faults(lenient_line_seqs(ops), &e),
        };
        if let Some((_, outcome)) = answers.last() {
            self.work_follows = parsebox_protocol::engine_work_follows(outcome);
        }
        (answers, reports)
    }
}

/// An ops batch in either encoding.
fn decode(ops: &[u8]) -> Result<Vec<EngineOp>, String> {
    if wire::is_frame(ops) {
        wire::decode_ops(ops).map_err(|e| format!("the ops frame is malformed: {e}"))
    } else {
        serde_json::from_slice(ops)
            .map_err(|e| format!("the ops batch is not a list of EngineOp: {e}"))
    }
}

/// The seqs of the line ops of a batch that does not decode, so each is still answered.
fn lenient_line_seqs(ops: &[u8]) -> Vec<Seq> {
    if wire::is_frame(ops) {
        wire::frame_line_seqs(ops)
    } else {
        serde_json::from_slice(ops)
            .map(|v| line_seqs(&v))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parsebox_protocol::{LineOp, RunId};
    use serde_json::json;

    const CONFIG: &str = r#"{"lineBudgetMs":50,"initBudgetMs":1000,"maxSourceBytes":51200,"maxLineBytes":4194304,"maxMemoryBytes":536870912}"#;

    const COUNTER: &str = r#"
        export function createStdoutParser() {
          let n = 0;
          return {
            parseLine(line, ts) { n++; return [{ kind: "stdout", ts, text: n + ":" + line }]; },
            reset() { n = 0; },
          };
        }"#;

    fn json(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    /// The answers without what the engine reports besides their outcomes (timings vary).
    fn outcomes(s: &str) -> Value {
        let mut v = json(s);
        for a in v.as_array_mut().unwrap() {
            a.as_array_mut().unwrap().truncate(2);
        }
        v
    }

    /// A live line of run 1.
    fn line(seq: Seq, text: &str) -> EngineOp {
        EngineOp::Line(LineOp {
            seq,
            run: RunId(1),
            line: text.to_owned(),
            ts: "t".to_owned(),
            replay: false,
        })
    }

    /// Opens run 1.
    fn new_run() -> EngineOp {
        EngineOp::NewRun {
            run: RunId(1),
            stateless: false,
        }
    }

    fn started() -> Session {
        let mut s = Session::default();
        let answer = json(&s.start(COUNTER.as_bytes(), CONFIG.as_bytes()));
        // The export it drives and the module's shape (the core's `status().module`).
        assert_eq!(
            answer,
            json!({ "Ok": { "entryPoint": "createStdoutParser", "module": { "format": "esm", "exports": ["createStdoutParser"], "otherExports": [] } } })
        );
        s
    }

    #[test]
    fn a_started_engine_answers_live_lines_and_reports_the_first_began() {
        let mut s = started();
        let ops = json!([
            { "op": "newRun", "run": 1 },
            { "op": "line", "seq": 7, "run": 1, "line": "a", "ts": "t1", "replay": true },
            { "op": "line", "seq": 8, "run": 1, "line": "b", "ts": "t2", "replay": false },
            { "op": "reset", "run": 1 },
            { "op": "line", "seq": 9, "run": 1, "line": "c", "ts": "t3", "replay": false },
        ]);
        let mut began = Vec::new();
        let text = s.run(ops.to_string().as_bytes(), true, |start| began.push(start));
        // Line 9 follows an answered line in the same batch: the core starts its clock at that
        // answer, so only line 8's start is reported; both starts are told (a Worker times its
        // own stop at the deadline from each).
        assert_eq!(
            began,
            [
                LineStart {
                    seq: 8,
                    report: true
                },
                LineStart {
                    seq: 9,
                    report: false
                }
            ]
        );
        // The new run's realm is the engine's own work, reported with the first live line.
        let reports = &json(&text)[1][2];
        assert!(reports["workMs"].as_f64().unwrap() > 0.0, "{reports}");
        assert_eq!(
            json(&text)[2].as_array().unwrap().len(),
            2,
            "nothing to report"
        );
        assert_eq!(
            outcomes(&text),
            json!([
                [7, { "Ok": [{ "kind": "stdout", "ts": "t1", "text": "1:a" }] }],
                [8, { "Ok": [{ "kind": "stdout", "ts": "t2", "text": "2:b" }] }],
                [9, { "Ok": [{ "kind": "stdout", "ts": "t3", "text": "1:c" }] }],
            ])
        );
    }

    #[test]
    fn a_frame_and_its_json_give_the_same_answers() {
        let ops = [
            EngineOp::NewRun {
                run: RunId(1),
                stateless: false,
            },
            EngineOp::Line(LineOp {
                seq: 5,
                run: RunId(1),
                line: "ünï 💬".to_owned(),
                ts: "t".to_owned(),
                replay: false,
            }),
        ];
        let from_json = outcomes(&started().run(&serde_json::to_vec(&ops).unwrap(), true, |_| {}));
        let mut began = Vec::new();
        let from_frame =
            outcomes(&started().run(&wire::ops_frame(&ops), true, |start| began.push(start.seq)));
        assert_eq!(from_frame, from_json);
        assert_eq!(began, [5]);
        // A cut frame still answers its readable line, as a fault.
        let frame = wire::ops_frame(&ops);
        let answers = json(&started().run(&frame[..frame.len() - 1], true, |_| {}));
        assert_eq!(answers[0][0], 5);
        assert_eq!(answers[0][1]["Err"]["code"], "engine_fault");
    }

    #[test]
    fn a_queued_frame_runs_a_record_at_a_time_and_says_when_realm_work_comes_next() {
        let new_run = new_run();
        let ops = [new_run.clone(), line(1, "a"), new_run, line(2, "b")];
        let whole = outcomes(&started().run(&wire::ops_frame(&ops), true, |_| {}));
        let mut s = started();
        s.queue(&wire::ops_frame(&ops), 0.0, 0.0);
        let mut began = Vec::new();
        let mut answers = Vec::new();
        let mut follows = Vec::new();
        while s.has_next() {
            let text = s.run_next(|start| began.push((start.seq, start.report)));
            if !text.is_empty() {
                answers.extend(json(&text).as_array().unwrap().iter().cloned());
            }
            follows.push(s.work_follows);
        }
        // The same answers as the frame run at once; each opens with its own realm work.
        let mut answers = Value::from(answers);
        for a in answers.as_array_mut().unwrap() {
            a.as_array_mut().unwrap().truncate(2);
        }
        assert_eq!(answers, whole);
        assert_eq!(
            began,
            [(1, true), (2, true)],
            "each line after realm work reports began"
        );
        // After line 1 a new run's realm comes next: the Worker posts what it holds first. It
        // stays so through the record (the realm is made for the run's first line).
        assert_eq!(follows, [false, true, true, false]);
        assert_eq!(s.run_next(|_| {}), "", "none left: nothing");
        // A cut frame: the readable line is answered, as a fault, and the queue ends.
        let frame = wire::ops_frame(&[line(3, "c")]);
        s.queue(&frame[..frame.len() - 1], 0.0, 0.0);
        let answers = json(&s.run_next(|_| {}));
        assert_eq!(answers[0][1]["Err"]["code"], "engine_fault");
        assert!(!s.has_next());
    }

    #[test]
    fn a_worker_posts_before_realm_work_once_the_batch_time_passed_and_at_the_frame_end() {
        let new_run = new_run();
        let lines: Vec<EngineOp> = (1..=4).map(|i| line(i, "x")).collect();
        let mut ops = vec![new_run.clone()];
        ops.extend(lines.iter().cloned());
        ops.push(new_run);
        ops.extend(lines.iter().cloned());
        let mut s = started();
        s.queue(&wire::ops_frame(&ops), 10.0, 100.0);
        // (clock after the record, expected), a record per op.
        let rows = [
            (101.0, false), // newRun
            (103.0, false),
            (105.0, false),
            (110.0, true), // 10 ms since the frame came
            (112.0, true), // a new run's realm comes next
            (113.0, true), // it still does (that record made none: it opened the run)
            (114.0, false),
            (118.0, false),
            (122.0, false), // 9 ms since the last post
            (125.0, true),  // the frame is done
        ];
        let mut due = Vec::new();
        for (now, _) in rows {
            assert!(s.has_next());
            s.run_next(|_| {});
            due.push(s.post_due(now));
        }
        assert!(!s.has_next());
        assert_eq!(due, rows.map(|r| r.1));
        // With no batch time, every record is posted.
        s.queue(&wire::ops_frame(&lines), 0.0, 200.0);
        while s.has_next() {
            s.run_next(|_| {});
            assert!(s.post_due(200.0));
        }
    }

    #[test]
    fn a_worker_posts_once_it_holds_post_bytes_of_answers_whatever_the_time() {
        let big = "y".repeat(40_000);
        let mut ops = vec![new_run()];
        ops.extend((1..=40).map(|i| line(i, &big)));
        let mut s = started();
        s.queue(&wire::ops_frame(&ops), 1e9, 0.0);
        let (mut held, mut posts, mut largest) = (0, 0, 0);
        while s.has_next() {
            held += s.run_next(|_| {}).len();
            if s.post_due(0.0) {
                posts += 1;
                largest = largest.max(held);
                held = 0;
            }
        }
        // Each post holds at most POST_BYTES and one answer more; the clock never moved.
        assert!(posts >= 4, "{posts} posts");
        assert!(largest < POST_BYTES + 50_000, "{largest}");
    }

    #[test]
    fn a_prepared_realm_serves_the_start_and_answers_the_same() {
        let ops = json!([
            { "op": "newRun", "run": 1 },
            { "op": "line", "seq": 1, "run": 1, "line": "a", "ts": "t1", "replay": false },
            { "op": "line", "seq": 2, "run": 1, "line": "b", "ts": "t2", "replay": false },
        ])
        .to_string();
        let mut prepared = Session::default();
        assert!(!prepared.prepared());
        assert_eq!(json(&prepared.prepare()), json!({ "Ok": null }));
        assert!(prepared.prepared());
        // A refused source leaves it for the next start.
        let refused = json(&prepared.start(b"export const x = ;", CONFIG.as_bytes()));
        assert_eq!(refused["Err"]["code"], "syntax_error");
        assert!(prepared.prepared());
        let answer = json(&prepared.start(COUNTER.as_bytes(), CONFIG.as_bytes()));
        assert_eq!(answer["Ok"]["entryPoint"], "createStdoutParser");
        assert!(!prepared.prepared(), "the start used the prepared realm");
        assert_eq!(
            outcomes(&prepared.run(ops.as_bytes(), true, |_| {})),
            outcomes(&started().run(ops.as_bytes(), true, |_| {}))
        );
    }

    #[test]
    fn every_config_the_host_sends_can_use_the_prepared_realm() {
        // build.sh prepares the realm once, for every instance: a config it did not suit would
        // silently cost each start the whole set-up again.
        use parsebox_host::{HostOptions, Placement};
        let host = HostOptions::default();
        for config in [
            host.engine_config(),
            host.engine_config_at(Placement::Worker),
            host.engine_config_at(Placement::Inline),
        ] {
            let mut s = Session::default();
            s.prepare();
            let answer = json(&s.start(
                COUNTER.as_bytes(),
                serde_json::to_string(&config).unwrap().as_bytes(),
            ));
            assert_eq!(
                answer["Ok"]["entryPoint"], "createStdoutParser",
                "{config:?}"
            );
            assert!(!s.prepared(), "{config:?}");
        }
    }

    #[test]
    fn refused_input_is_data() {
        let mut s = Session::default();
        let cases: [(&[u8], &[u8], &str); 4] = [
            (COUNTER.as_bytes(), b"{", "bad_options"),
            (COUNTER.as_bytes(), br#"{"lineBudgetMs":50}"#, "bad_options"),
            (b"\xff\xfe", CONFIG.as_bytes(), "bad_options"),
            (b"export const x = ;", CONFIG.as_bytes(), "syntax_error"),
        ];
        for (source, config, code) in cases {
            let answer = json(&s.start(source, config));
            assert_eq!(answer["Err"]["code"], code, "{answer}");
            assert!(!s.started());
        }
        let syntax = json(&s.start(b"let a = 1;\nlet b = ;", CONFIG.as_bytes()));
        assert_eq!(syntax["Err"]["line"], 2, "{syntax}");
        assert!(syntax["Err"]["column"].is_u64(), "{syntax}");
    }

    #[test]
    fn lines_the_engine_cannot_run_fail_as_engine_faults() {
        let line = r#"[{"op":"newRun","run":1},{"op":"line","seq":3,"run":1,"line":"a","ts":"t","replay":false}]"#;
        let mut s = Session::default();
        let mut began = 0;
        let before_start = json(&s.run(line.as_bytes(), true, |_| began += 1));
        assert_eq!(before_start[0][0], 3);
        assert_eq!(before_start[0][1]["Err"]["code"], "engine_fault");
        assert_eq!(began, 0);

        let mut s = started();
        let garbled = r#"[{"op":"line","seq":4,"run":1},{"op":"warp"}]"#;
        let answers = json(&s.run(garbled.as_bytes(), true, |_| {}));
        assert_eq!(answers.as_array().unwrap().len(), 1);
        assert_eq!(answers[0][0], 4);
        assert_eq!(answers[0][1]["Err"]["code"], "engine_fault");
        assert_eq!(json(&s.run(b"not json", true, |_| {})), json!([]));
    }

    #[test]
    fn the_growth_cap_is_half_the_maximum_within_the_sandbox_default() {
        assert_eq!(heap_growth_cap(64 << 20), 32 << 20);
        assert_eq!(
            heap_growth_cap(4 << 30),
            SandboxOptions::default().max_heap_growth_bytes
        );
    }
}
