//! Shared by the Node and the browser test binaries: the binding as JS sees it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    dead_code
)]

use parsebox_wasm::{RegistryCore, TranscriptBuilderCore};
use serde_json::{json, Value};
use wasm_bindgen::JsCast;

pub const COUNTER: &str = r#"
export function createStdoutParser() {
  let n = 0;
  return {
    parseLine(line, ts) {
      if (line === "throw") throw new Error("bad line");
      n++;
      return [{ kind: "assistant", ts, text: n + ":" + line }];
    },
    reset() { n = 0; },
  };
}"#;

fn parse(json: String) -> Value {
    serde_json::from_str(&json).unwrap()
}

pub fn lines_become_entries_and_failures_are_data() {
    let core = RegistryCore::new(r#"{"loadSources":false,"lineBudgetMs":50}"#).unwrap();
    assert_eq!(
        parse(core.parse_line("counter", "x", "t").unwrap()),
        json!([{"kind":"stdout","ts":"t","text":"x"}])
    );
    let status = parse(
        core.register_source("counter", COUNTER, Some("1.0.0".into()))
            .unwrap(),
    );
    assert_eq!(status["state"], "ready");
    assert_eq!(
        parse(core.parse_line("counter", "a", "t").unwrap()),
        json!([{"kind":"assistant","ts":"t","text":"1:a"}])
    );
    assert_eq!(
        parse(core.parse_line("counter", "throw", "t").unwrap()),
        json!([{"kind":"stdout","ts":"t","text":"throw"}])
    );
    assert_eq!(
        parse(core.diagnostics(Some("counter".into())).unwrap())["fallbacks"]["threw"],
        1
    );
    let failed = parse(
        core.register_source("broken", "export function parseStdoutLine( {", None)
            .unwrap(),
    );
    assert_eq!(failed["state"], "failed");
}

pub fn a_hostile_log_line_cannot_crash_the_instance() {
    // 100,000 nested `[` handed to JSON.parse by an honest parser: the sandbox's JSON.parse
    // refuses nesting past 512 levels (and the wasm stack is 8 MiB besides), the line falls
    // back, the instance lives on.
    let core = RegistryCore::new(r#"{"loadSources":false}"#).unwrap();
    let src = "export function parseStdoutLine(line, ts) { JSON.parse(line); return [{ kind: 'system', ts, text: 'parsed' }]; }";
    assert_eq!(
        parse(core.register_source("json", src, None).unwrap())["state"],
        "ready"
    );
    let deep = "[".repeat(100_000);
    assert_eq!(
        parse(core.parse_line("json", &deep, "t").unwrap())[0]["kind"],
        "stdout"
    );
    assert_eq!(
        parse(core.parse_line("json", "[1]", "t").unwrap())[0]["text"],
        "parsed"
    );
}

pub fn misuse_throws_named_errors() {
    let err = RegistryCore::new(r#"{"lineBudget":5}"#).err().unwrap();
    let err: js_sys::Error = err.dyn_into().unwrap();
    assert_eq!(String::from(err.name()), "ParseboxOptionsError");
    assert!(String::from(err.message()).contains("lineBudget"));
    let core = RegistryCore::new("{}").unwrap();
    let err: js_sys::Error = core
        .run_parse_line(999.0, "x", "t")
        .err()
        .unwrap()
        .dyn_into()
        .unwrap();
    assert_eq!(String::from(err.name()), "ParseboxRunError");
}

pub fn the_builder_reports_what_changed() {
    let core = RegistryCore::new(r#"{"loadSources":false}"#).unwrap();
    core.register_source("counter", COUNTER, None).unwrap();
    let mut b = TranscriptBuilderCore::new(&core, "counter", "{}").unwrap();
    let first = parse(
        b.push(r#"{"ts":"t1","stream":"stdout","chunk":"a\nb"}"#)
            .unwrap(),
    );
    assert_eq!(
        first,
        json!({"from":0,"length":1,"entries":[{"kind":"assistant","ts":"t1","text":"1:a"}]})
    );
    let end = parse(b.finish().unwrap());
    assert_eq!(
        end["entries"],
        json!([{"kind":"assistant","ts":"t1","text":"2:b"}])
    );
    assert!(b.push(r#"{"ts":"t","stream":"video","chunk":""}"#).is_err());
}

/// The scenarios as `#[wasm_bindgen_test]` functions: one invocation per runtime's test binary.
macro_rules! binding_scenarios {
    ($($name:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test::wasm_bindgen_test]
            fn $name() {
                common::$name();
            }
        )*
    };
}
pub(crate) use binding_scenarios;
