//! SPEC §4, event by event: what the viewer sees as adapters load, fail, reload and misbehave.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::rc::Rc;

use parsebox_registry::run::RunParser;
use parsebox_registry::{AdapterState, LoadResult, Registry, RegistryOptions};
use parsebox_transcript::{LineFailure, LineOutcome, TranscriptEntry};
use serde_json::{json, Value};

const COUNTER: &str = r#"
let made = 0;
export function createStdoutParser() {
  let n = 0;
  made++;
  return {
    parseLine(line, ts) {
      if (line === "throw") throw new Error("bad line");
      if (line === "junk") return [{ kind: "nope" }];
      if (line === "half") return [{ kind: "nope" }, { kind: "system", ts, text: "kept" }];
      n++;
      return [{ kind: "assistant", ts, text: `${made}:${n}:${line}` }];
    },
    reset() { n = 0; },
  };
}
"#;

fn json_of(entries: &[TranscriptEntry]) -> Vec<Value> {
    entries
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn texts(entries: &[TranscriptEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| format!("{}:{}", e.kind(), e.text().unwrap_or("")))
        .collect()
}

#[test]
fn the_first_line_is_answered_at_once_and_starts_one_background_load() {
    let mut r = Registry::new(RegistryOptions::default());
    assert_eq!(
        json_of(&r.parse_line("hermes", "hello", "t1")),
        vec![json!({"kind":"stdout","ts":"t1","text":"hello"})]
    );
    assert_eq!(r.status("hermes").state, AdapterState::Loading);
    r.parse_line("hermes", "again", "t2");
    let requests = r.take_load_requests();
    assert_eq!(requests.len(), 1, "one load per type, not one per line");
    assert_eq!(requests[0].adapter_type, "hermes");
    assert_eq!(r.take_changes(), vec!["hermes".to_owned()]);

    let status = r
        .complete_load(
            &requests[0],
            LoadResult::Source {
                source: COUNTER.into(),
                contract_version: Some("1.0.0".into()),
            },
        )
        .unwrap();
    assert_eq!(status.state, AdapterState::Ready);
    assert_eq!(status.entry_point, Some("createStdoutParser"));
    assert_eq!(
        r.take_changes(),
        vec!["hermes".to_owned()],
        "ready fires a change so the viewer can rebuild"
    );
    assert_eq!(
        texts(&r.parse_line("hermes", "hello", "t3")),
        vec!["assistant:1:1:hello"]
    );
    assert!(r.diagnostics(Some("hermes")).load_ms.is_some());
}

#[test]
fn a_failed_load_is_not_retried_until_reload() {
    let mut r = Registry::new(RegistryOptions::default());
    r.parse_line("codex", "x", "t");
    let req = r.take_load_requests().remove(0);
    let status = r
        .complete_load(
            &req,
            LoadResult::Failed("GET /api/adapters/codex/ui-parser.js: 404 Not Found".into()),
        )
        .unwrap();
    assert_eq!(status.state, AdapterState::Failed);
    assert_eq!(
        status.reason.as_deref(),
        Some("GET /api/adapters/codex/ui-parser.js: 404 Not Found")
    );
    assert_eq!(texts(&r.parse_line("codex", "y", "t")), vec!["stdout:y"]);
    assert!(r.take_load_requests().is_empty(), "no retries");

    assert_eq!(r.reload("codex").state, AdapterState::Loading);
    let again = r.take_load_requests();
    assert_eq!(again.len(), 1);
    // The old request's late answer is ignored; the new one wins.
    assert!(r
        .complete_load(
            &req,
            LoadResult::Source {
                source: COUNTER.into(),
                contract_version: None
            }
        )
        .is_none());
    assert_eq!(r.status("codex").state, AdapterState::Loading);
    r.complete_load(
        &again[0],
        LoadResult::Source {
            source: COUNTER.into(),
            contract_version: None,
        },
    );
    assert_eq!(r.status("codex").state, AdapterState::Ready);
}

#[test]
fn sources_are_checked_before_they_run() {
    // source, declared version, what the reason mentions, the error's code and position.
    #[allow(clippy::type_complexity)]
    let table: &[(&str, Option<&str>, &str, &str, Option<(u32, u32)>)] = &[
        (
            COUNTER,
            Some("2.0.0"),
            "contract version",
            "unsupported_contract_version",
            None,
        ),
        (
            COUNTER,
            Some("banana"),
            "contract version",
            "unsupported_contract_version",
            None,
        ),
        (
            "\n  export function parseStdoutLine(line, ts) { return [ }",
            None,
            ":",
            "syntax_error",
            Some((2, 56)),
        ),
        (
            "export const nothing = 1;",
            None,
            "parseStdoutLine",
            "no_export",
            None,
        ),
        (
            "import x from 'y'; export function parseStdoutLine() { return []; }",
            None,
            "import",
            "imports",
            Some((1, 1)),
        ),
    ];
    for (i, (src, version, needle, code, at)) in table.iter().enumerate() {
        let mut r = Registry::new(RegistryOptions::default());
        let t = format!("t{i}");
        let status = r.register_source(&t, src, *version);
        assert_eq!(status.state, AdapterState::Failed, "{src}");
        let error = status.error.clone().unwrap();
        assert_eq!(error.code, *code, "{src}");
        assert_eq!(error.line.zip(error.column), *at, "{src}: {error:?}");
        let reason = status.reason.unwrap();
        assert!(
            reason.contains(needle),
            "reason {reason:?} should mention {needle:?}"
        );
        assert_eq!(texts(&r.parse_line(&t, "line", "ts")), vec!["stdout:line"]);
    }
    let mut r = Registry::new(RegistryOptions::default());
    assert_eq!(
        r.register_source("ok", COUNTER, Some("1.4.2")).state,
        AdapterState::Ready
    );
    assert_eq!(
        r.register_source("ok2", COUNTER, None).state,
        AdapterState::Ready,
        "a missing version is accepted"
    );
}

#[test]
fn a_type_without_a_parser_is_generic_not_failed() {
    let mut r = Registry::new(RegistryOptions::default());
    r.parse_line("process", "x", "t");
    let req = r.take_load_requests().remove(0);
    let s = r.complete_load(&req, LoadResult::NoParser).unwrap();
    assert_eq!(s.state, AdapterState::Generic);
}

#[test]
fn a_bad_line_falls_back_alone_and_the_parser_stays_registered() {
    let mut r = Registry::new(RegistryOptions::default());
    r.register_source("h", COUNTER, None);
    assert_eq!(texts(&r.parse_line("h", "a", "t")), vec!["assistant:1:1:a"]);
    assert_eq!(
        texts(&r.parse_line("h", "throw", "t")),
        vec!["stdout:throw"]
    );
    // The stateful instance was reset after the failure (n starts again).
    assert_eq!(texts(&r.parse_line("h", "b", "t")), vec!["assistant:1:1:b"]);
    // Every entry invalid: the line is shown rather than lost.
    assert_eq!(texts(&r.parse_line("h", "junk", "t")), vec!["stdout:junk"]);
    // Some entries invalid: the valid ones are kept, the others counted.
    assert_eq!(texts(&r.parse_line("h", "half", "t")), vec!["system:kept"]);
    assert_eq!(r.status("h").state, AdapterState::Ready);
    let d = r.diagnostics(Some("h"));
    assert_eq!(d.lines_parsed, 5);
    assert_eq!(d.fallbacks.get("threw"), Some(&1));
    assert_eq!(d.fallbacks.get("all_entries_invalid"), Some(&1));
    assert_eq!(d.dropped_entries.get("unknown_kind"), Some(&2));
    assert!(d.last_error.unwrap().contains("unknown entry kind"));
}

#[test]
fn runs_have_their_own_state_and_switch_parser_only_on_reset() {
    let mut r = Registry::new(RegistryOptions {
        load_sources: false,
        ..Default::default()
    });
    let early = r.create_run("h");
    assert_eq!(
        texts(&r.run_parse_line(early, "x", "t").unwrap()),
        vec!["stdout:x"]
    );
    r.register_source("h", COUNTER, None);
    let a = r.create_run("h");
    let b = r.create_run("h");
    r.run_parse_line(a, "1", "t").unwrap();
    assert_eq!(
        texts(&r.run_parse_line(a, "2", "t").unwrap()),
        vec!["assistant:1:2:2"]
    );
    // Module state (made) is fresh per run too: each run sees made == 1.
    assert_eq!(
        texts(&r.run_parse_line(b, "1", "t").unwrap()),
        vec!["assistant:1:1:1"]
    );
    // The early run keeps the generic parser until the transcript is rebuilt (reset).
    assert_eq!(
        texts(&r.run_parse_line(early, "y", "t").unwrap()),
        vec!["stdout:y"]
    );
    r.reset_run(early).unwrap();
    assert_eq!(
        texts(&r.run_parse_line(early, "z", "t").unwrap()),
        vec!["assistant:1:1:z"]
    );
    r.reset_run(a).unwrap();
    assert_eq!(
        texts(&r.run_parse_line(a, "3", "t").unwrap()),
        vec!["assistant:1:1:3"]
    );
    r.drop_run(a);
    assert_eq!(
        r.run_parse_line(a, "4", "t").unwrap_err().to_string(),
        "run 1 does not exist (it was disposed, or never created)".replace('1', &a.0.to_string())
    );
}

struct Upper;
impl RunParser for Upper {
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome {
        if line == "panic" {
            panic!("test-only fault trigger");
        }
        Ok(json!({"kind":"assistant","ts":ts,"text":line.to_uppercase()}))
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        Ok(())
    }
}

#[test]
fn builtins_are_called_directly_and_a_faulting_engine_takes_down_only_its_type() {
    let mut r = Registry::new(RegistryOptions {
        load_sources: false,
        ..Default::default()
    });
    assert_eq!(
        r.register_builtin("claude", Rc::new(|| Box::new(Upper) as Box<dyn RunParser>))
            .state,
        AdapterState::Builtin
    );
    r.register_source("h", COUNTER, None);
    assert_eq!(
        texts(&r.parse_line("claude", "hi", "t")),
        vec!["assistant:HI"]
    );
    // The engine faults mid-line: that line still shows, the type is failed with the reason,
    // and every other type and the generic parser keep answering.
    assert_eq!(
        texts(&r.parse_line("claude", "panic", "t")),
        vec!["stdout:panic"]
    );
    let s = r.status("claude");
    assert_eq!(s.state, AdapterState::Failed);
    assert!(s.reason.unwrap().contains("test-only fault trigger"));
    assert_eq!(
        texts(&r.parse_line("claude", "after", "t")),
        vec!["stdout:after"]
    );
    assert_eq!(
        texts(&r.parse_line("h", "fine", "t")),
        vec!["assistant:1:1:fine"]
    );
    assert_eq!(
        texts(&r.parse_line("other", "plain", "t")),
        vec!["stdout:plain"]
    );
    assert_eq!(r.diagnostics(None).fallbacks.get("engine_fault"), Some(&1));
}

#[test]
fn budget_overruns_are_reported_so_the_host_can_move_the_adapter() {
    let mut r = Registry::new(RegistryOptions {
        load_sources: false,
        ..Default::default()
    });
    r.register_source("spin", "export function parseStdoutLine(line, ts) { if (line === 'spin') { for (;;) {} } return [{ kind: 'system', ts, text: line }]; }", None);
    let before = r.event_count();
    assert_eq!(texts(&r.parse_line("spin", "ok", "t")), vec!["system:ok"]);
    assert_eq!(r.event_count(), before, "an ordinary line is not an event");
    assert_eq!(
        texts(&r.parse_line("spin", "spin", "t")),
        vec!["stdout:spin"]
    );
    assert!(r.event_count() > before);
    assert_eq!(r.take_overruns(), vec!["spin".to_owned()]);
    assert!(r.take_overruns().is_empty());
    assert_eq!(
        texts(&r.parse_line("spin", "after", "t")),
        vec!["system:after"]
    );
    // The aborted realm was rebuilt and the run's earlier line replayed: diagnostics say so.
    let host = r.diagnostics(Some("spin")).host;
    assert_eq!(host.realm_rebuilds, 1, "{host:?}");
    assert_eq!(host.replayed_lines, 1, "{host:?}");
    assert_eq!(host.state_lost, 0);
}

#[test]
fn the_incident_counter_moves_with_fallbacks_and_dropped_entries_only() {
    let mut r = Registry::new(RegistryOptions {
        load_sources: false,
        ..Default::default()
    });
    r.register_source("h", COUNTER, None);
    let n = r.incident_count();
    r.parse_line("h", "fine", "t");
    assert_eq!(r.incident_count(), n);
    r.parse_line("h", "throw", "t");
    assert_eq!(r.incident_count(), n + 1);
    assert_eq!(r.diagnostics(Some("h")).fallbacks.get("threw"), Some(&1));
    r.parse_line("h", "half", "t");
    assert_eq!(r.incident_count(), n + 2);
    assert_eq!(
        r.diagnostics(Some("h")).dropped_entries.get("unknown_kind"),
        Some(&1)
    );
    r.parse_line("h", "fine", "t");
    assert_eq!(r.incident_count(), n + 2);
}
