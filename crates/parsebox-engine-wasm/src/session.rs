//! One instance's engine as JSON in, JSON out: what the exports call, tested natively.

use parsebox_engine::{sandbox_options, Engine};
use parsebox_host::{wire, EngineConfig, EngineOp, EngineReports, LoadError, Seq};
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
    /// The last line [`Session::run`] answered failed: the engine does realm work of its own
    /// before its next line ([`parsebox_host::engine_work_follows`]).
    work_follows: bool,
}

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

/// The answers as JSON `[[seq, {"Ok":value}|{"Err":failure}], …]`: each value's text goes in
/// as the converter wrote it, never parsed again. A line in `reports` carries a third element,
/// its [`EngineReports`] ([`parsebox_host::EngineAnswer`]).
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
        }
    }

    /// Whether the engine does realm work of its own before its next line (the last line
    /// answered failed). A Worker posts the answers it holds first, so the core arms a
    /// recovery deadline, not the line's, for that work.
    pub fn work_follows(&self) -> bool {
        self.work_follows
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
    /// earlier engine. Answers JSON of `Result<String, LoadError>`: the entry point, or why the
    /// source was refused (`bad_options` for input that does not decode).
    pub fn start(&mut self, source: &[u8], config: &[u8]) -> String {
        // The old engine goes first, so its memory can serve the new one.
        self.engine = None;
        let result = self.load(source, config).map(|(engine, entry)| {
            self.engine = Some(engine);
            entry
        });
        encode(
            &result,
            r#"{"Err":{"code":"engine_fault","message":"could not encode the start result","line":null,"column":null}}"#,
        )
    }

    fn load(&mut self, source: &[u8], config: &[u8]) -> Result<(Engine, String), LoadError> {
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

    /// Performs `ops` (an ops frame, [`parsebox_host::wire`], or JSON of `Vec<EngineOp>`) in
    /// order. `batch_start`: these are the first ops of a batch the host sent. `began(seq)` is
    /// called before a live line when the host needs it to arm the line's deadline (the first
    /// of a batch, or one after the engine's own realm work: see `parsebox_host`'s `began`
    /// rule). Answers JSON `[[seq, outcome], …]`; before a successful start, or when `ops`
    /// does not decode, every line op is answered with `engine_fault`.
    pub fn run(&mut self, ops: &[u8], batch_start: bool, began: impl FnMut(Seq)) -> String {
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
                        EngineOp::Line { seq, .. } => Some(*seq),
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
            self.work_follows = parsebox_host::engine_work_follows(outcome);
        }
        encode_answers(&answers, &reports)
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
    use parsebox_host::RunId;
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

    fn started() -> Session {
        let mut s = Session::default();
        let answer = json(&s.start(COUNTER.as_bytes(), CONFIG.as_bytes()));
        assert_eq!(answer, json!({ "Ok": "createStdoutParser" }));
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
        let text = s.run(ops.to_string().as_bytes(), true, |seq| began.push(seq));
        // Line 9 follows an answered line in the same batch: its clock starts at that answer.
        assert_eq!(began, [8]);
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
            EngineOp::Line {
                seq: 5,
                run: RunId(1),
                line: "ünï 💬".to_owned(),
                ts: "t".to_owned(),
                replay: false,
            },
        ];
        let from_json = outcomes(&started().run(&serde_json::to_vec(&ops).unwrap(), true, |_| {}));
        let mut began = Vec::new();
        let from_frame =
            outcomes(&started().run(&wire::ops_frame(&ops), true, |seq| began.push(seq)));
        assert_eq!(from_frame, from_json);
        assert_eq!(began, [5]);
        // A cut frame still answers its readable line, as a fault.
        let frame = wire::ops_frame(&ops);
        let answers = json(&started().run(&frame[..frame.len() - 1], true, |_| {}));
        assert_eq!(answers[0][0], 5);
        assert_eq!(answers[0][1]["Err"]["code"], "engine_fault");
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
        assert_eq!(answer, json!({ "Ok": "createStdoutParser" }));
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
            assert_eq!(answer, json!({ "Ok": "createStdoutParser" }), "{config:?}");
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
