//! Shared by the Node and the browser test binaries: the binding as JS sees it, with built-in
//! parsers (JS functions) and a stub executor (no engine module is loaded here; the package's
//! Node and browser tests drive real engine instances).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    dead_code
)]

use parsebox_wasm::{EngineExecutor, RegistryCore, TranscriptBuilderCore};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};

fn parse(json: String) -> Value {
    serde_json::from_str(&json).unwrap()
}

/// An executor whose inline engines never start (these tests use built-ins only).
fn executor() -> Option<EngineExecutor> {
    js_sys::eval(
        "({ startInline() { return JSON.stringify({ Err: { code: 'engine_fault', message: 'no engine module in this test', line: null, column: null } }); }, runInline() { throw new Error('no engine'); }, endInline() {}, postOps() {}, wake() {} })",
    )
    .ok()
    .map(JsCast::unchecked_into)
}

fn core(options: &str) -> RegistryCore {
    RegistryCore::new(options, executor()).unwrap()
}

fn function(args: &str, body: &str) -> js_sys::Function {
    js_sys::Function::new_with_args(args, body)
}

/// A stateful built-in: `n:line`, throws on `throw`.
fn counter(core: &RegistryCore, adapter_type: &str) -> Value {
    let create = function(
        "",
        "let n = 0; return { parseLine(line, ts) { if (line === 'throw') throw new Error('bad line'); n++; return [{ kind: 'assistant', ts, text: n + ':' + line }]; }, reset() { n = 0; } };",
    );
    parse(
        core.register_builtin(adapter_type, None, Some(create))
            .unwrap(),
    )
}

pub fn lines_become_entries_and_failures_are_data() {
    let core = core(r#"{"loadSources":false,"host":"inline"}"#);
    assert_eq!(
        parse(core.parse_default("counter", "x", "t").unwrap())["entries"],
        json!([{"kind":"stdout","ts":"t","text":"x"}])
    );
    assert_eq!(counter(&core, "counter")["state"], "builtin");
    assert_eq!(
        parse(core.parse_default("counter", "a", "t").unwrap())["entries"],
        json!([{"kind":"assistant","ts":"t","text":"1:a"}])
    );
    assert_eq!(
        parse(core.parse_default("counter", "throw", "t").unwrap())["entries"],
        json!([{"kind":"stdout","ts":"t","text":"throw"}])
    );
    assert_eq!(
        parse(core.parse_default("counter", "b", "t").unwrap())["entries"][0]["text"],
        "1:b",
        "a failed line resets the parser"
    );
    assert_eq!(
        parse(core.diagnostics(Some("counter".into())).unwrap())["fallbacks"]["threw"],
        1
    );
    let failed = parse(
        core.register_source("broken", "export function parseStdoutLine(", None)
            .unwrap(),
    );
    assert_eq!(failed["state"], "failed");
    assert_eq!(failed["error"]["code"], "engine_fault");
}

pub fn a_reentrant_builtin_is_refused_not_corrupting() {
    // A built-in that calls back into the core it runs in: the inner call is refused with a
    // named error, which the built-in sees as a throw, so its line falls back; the core
    // carries on and answers the next line.
    let core = JsValue::from(core(r#"{"loadSources":false,"host":"inline"}"#));
    js_sys::Reflect::set(&js_sys::global(), &"__parseboxCore".into(), &core).unwrap();
    let method = |name: &str| -> js_sys::Function {
        js_sys::Reflect::get(&core, &name.into())
            .unwrap()
            .dyn_into()
            .unwrap()
    };
    let reenter = function(
        "line, ts",
        "if (line === 'again') return globalThis.__parseboxCore.parseDefault('reenter', line, ts); return [{ kind: 'system', ts, text: 'ok' }];",
    );
    method("registerBuiltin")
        .call3(&core, &"reenter".into(), &reenter, &JsValue::UNDEFINED)
        .unwrap();
    let line = |text: &str| -> Value {
        let out = method("parseDefault")
            .call3(&core, &"reenter".into(), &text.into(), &"t".into())
            .unwrap();
        parse(out.as_string().unwrap())
    };
    assert_eq!(line("again")["entries"][0]["kind"], "stdout");
    assert_eq!(line("fine")["entries"][0]["text"], "ok");
    let diag = method("diagnostics")
        .call1(&core, &"reenter".into())
        .unwrap()
        .as_string()
        .unwrap();
    let diag = parse(diag);
    assert_eq!(diag["fallbacks"]["threw"], 1);
    assert!(
        diag["lastError"].as_str().unwrap().contains("re-entrantly"),
        "{diag}"
    );
}

pub fn misuse_throws_named_errors() {
    let err = RegistryCore::new(r#"{"lineBudget":5}"#, executor())
        .err()
        .unwrap();
    let err: js_sys::Error = err.dyn_into().unwrap();
    assert_eq!(String::from(err.name()), "ParseboxOptionsError");
    assert!(String::from(err.message()).contains("lineBudget"));
    let err: js_sys::Error = RegistryCore::new(r#"{"lineBudgetMs":1e308}"#, executor())
        .err()
        .unwrap()
        .dyn_into()
        .unwrap();
    assert_eq!(String::from(err.name()), "ParseboxOptionsError");
    let core = core("{}");
    let err: js_sys::Error = core
        .parse_line(999.0, "x", "t")
        .err()
        .unwrap()
        .dyn_into()
        .unwrap();
    assert_eq!(String::from(err.name()), "ParseboxRunError");
}

pub fn the_builder_reports_what_changed() {
    let core = core(r#"{"loadSources":false,"host":"inline"}"#);
    counter(&core, "counter");
    let mut b = TranscriptBuilderCore::new(&core, "counter", "{}").unwrap();
    // Two strings: the entries' changes, then the timeline's.
    let split = |out: Vec<js_sys::JsString>| {
        let mut out = out.into_iter().map(|s| parse(s.into()));
        (out.next().unwrap(), out.next().unwrap())
    };
    let (first, timeline) = split(
        b.push(r#"{"ts":"t1","stream":"stdout","chunk":"a\nb"}"#)
            .unwrap(),
    );
    // On the wire an item's text and timestamp are the index of the entry that holds them
    // (builder.js puts them back).
    let item = |id: &str, index: usize, last: bool| {
        json!({"id": id, "type": "assistant", "timestamp": index, "content": index,
               "isFirst": index == 0, "isLast": last, "entries": [index]})
    };
    assert_eq!(
        first,
        json!({"dropped":0,"from":0,"length":1,"entries":[{"kind":"assistant","ts":"t1","text":"1:a"}]})
    );
    assert_eq!(
        timeline,
        json!({"changed":[],"added":[item("e0", 0, true)],"removed":[]})
    );
    let (end, timeline) = split(b.finish().unwrap());
    assert_eq!(
        end["entries"],
        json!([{"kind":"assistant","ts":"t1","text":"2:b"}])
    );
    // The new item, and the one before it, which stopped being the last.
    assert_eq!(
        timeline,
        json!({"changed":[item("e0", 0, false)],"added":[item("e1", 1, true)],"removed":[]})
    );
    assert!(b.push(r#"{"ts":"t","stream":"video","chunk":""}"#).is_err());
}

/// A transcript's `heldBytes` are the core's real bytes for it, and a line shown generic costs
/// no more than a chunk is refused for (`parsebox_live::memory`): here, in the wasm32 core
/// itself, with its counting allocator.
pub fn held_bytes_are_the_cores_real_bytes() {
    use parsebox_live::memory::GENERIC_LINE_BYTES;
    let core = core(r#"{"loadSources":false,"host":"inline"}"#);
    for len in [1usize, 34, 1000] {
        let meter = parsebox_meter::Meter::start();
        let mut b = TranscriptBuilderCore::new(&core, "none", "{}").unwrap();
        let line = "a".repeat(len);
        let lines = 20_000;
        let per_chunk = (200_000 / (len + 1)).max(1);
        let mut pushed = 0;
        while pushed < lines {
            let n = per_chunk.min(lines - pushed);
            let text = format!("{line}\n").repeat(n);
            let chunk =
                json!({"ts": "2026-01-01T00:00:00.000Z", "stream": "stdout", "chunk": text});
            b.push(&chunk.to_string()).unwrap();
            pushed += n;
        }
        let real = meter.held() as f64;
        let counts = parse(b.counts().unwrap());
        let held = counts["heldBytes"].as_f64().unwrap();
        let per_line = real / lines as f64;
        wasm_bindgen_test::console_log!(
            "{len}-character lines: {per_line:.0} bytes a line in the core, {:.2} a byte of log",
            real / (lines * (len + 1)) as f64
        );
        assert!(
            (held - real).abs() <= real * 0.02 + 16_384.0,
            "{len}: counted {held}, really {real}"
        );
        assert!(
            per_line <= (GENERIC_LINE_BYTES + 4 * len) as f64,
            "{len}: {per_line}"
        );
    }
}

/// The core's memory grows in steps of an eighth of itself, not of one allocation
/// (`parsebox_meter::GrowAhead`): 64 MiB held in 1 KiB blocks grow it a few dozen times, where
/// the system allocator alone grows it once per 64 KiB (a thousand times), and the step taken
/// ahead is neither held nor counted: the count moves by the blocks alone.
pub fn the_memory_grows_in_few_steps() {
    const BLOCK: usize = 1024;
    const BLOCKS: usize = 64 * 1024;
    let meter = parsebox_meter::Meter::start();
    let pages_before = core::arch::wasm32::memory_size(0);
    let mut grows = 0;
    let mut pages = pages_before;
    let mut blocks = Vec::with_capacity(BLOCKS);
    for k in 0..BLOCKS {
        blocks.push(vec![(k % 251) as u8; BLOCK]);
        let now = core::arch::wasm32::memory_size(0);
        if now != pages {
            grows += 1;
            pages = now;
        }
    }
    let held = meter.held();
    let grown = (pages - pages_before) * 64 * 1024;
    let wanted = BLOCKS * parsebox_meter::block_bytes(BLOCK, 1)
        + parsebox_meter::buffer_bytes(BLOCKS * std::mem::size_of::<Vec<u8>>());
    wasm_bindgen_test::console_log!(
        "64 MiB in 1 KiB blocks: the memory grew {grows} times, by {grown} bytes in all"
    );
    assert!(grows <= 40, "the memory grew {grows} times");
    assert_eq!(
        held, wanted as isize,
        "the count is the blocks' bytes alone"
    );
    assert!(
        grown <= wanted + wanted / 8 + (2 << 20),
        "grew {grown} bytes for {wanted}"
    );
    assert!(blocks
        .iter()
        .enumerate()
        .all(|(k, b)| b[BLOCK - 1] == (k % 251) as u8));
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
