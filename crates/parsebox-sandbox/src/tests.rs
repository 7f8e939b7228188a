//! Unit tests of loading, isolation, determinism and conversion.

use super::*;
use parsebox_transcript::{CheckedEntries, LineParser, TranscriptEntry};
use serde_json::json;

const TS0: &str = "2026-01-01T00:00:00.000Z";
const TS1: &str = "2026-01-01T00:00:01.000Z";

fn load(src: &str) -> ParserModule {
    ParserModule::load(src, SandboxOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn both_module_shapes_load() {
    let table = [
        ("export function parseStdoutLine(line, ts) { return [{ kind: 'stdout', ts, text: line }]; }", EntryPoint::ParseStdoutLine),
        ("function p(line, ts) { return []; }\nexport { p as parseStdoutLine };", EntryPoint::ParseStdoutLine),
        ("export const createStdoutParser = () => ({ parseLine() { return []; }, reset() {} });", EntryPoint::CreateStdoutParser),
        ("module.exports = { parseStdoutLine(l, ts) { return []; } };", EntryPoint::ParseStdoutLine),
        ("\"use strict\";\nObject.defineProperty(exports, \"__esModule\", { value: true });\nexports.createStdoutParser = function () { return { parseLine: () => [] }; };", EntryPoint::CreateStdoutParser),
        ("var __defProp = Object.defineProperty;\nvar x = {};\n__defProp(x, 'parseStdoutLine', { get: () => f, enumerable: true });\nfunction f() { return []; }\nmodule.exports = x;", EntryPoint::ParseStdoutLine),
        ("export function parseStdoutLine() { return []; }\nexport function createStdoutParser() { return { parseLine() { return []; } }; }", EntryPoint::CreateStdoutParser),
    ];
    for (src, entry) in table {
        assert_eq!(load(src).entry_point(), entry, "{src}");
    }
}

#[test]
fn load_refusals_have_reasons() {
    let table = [
        ("export const x = 1;", "no_export"),
        ("module.exports = 5;", "no_export"),
        ("export function createStdoutParser() { return {}; }", "bad_factory"),
        ("throw new Error('boom'); export function parseStdoutLine() {}", "init_threw"),
        ("for (;;) {} export function parseStdoutLine() {}", "init_budget_exceeded"),
        ("function f() { for (let i = 0; i < 1000; i++); }\nwhile (true) f();\nexport function parseStdoutLine() {}", "init_budget_exceeded"),
        ("const r = /^(a+)+$/;\nexport function parseStdoutLine() {}", "unsafe_regex"),
    ];
    for (src, code) in table {
        let e = ParserModule::load(src, SandboxOptions::default()).unwrap_err();
        assert_eq!(e.code, code, "{src}: {e}");
    }
    let big = format!("module.exports = {{}}; //{}", "x".repeat(60 * 1024));
    assert_eq!(
        ParserModule::load(&big, SandboxOptions::default())
            .unwrap_err()
            .code,
        "too_large"
    );
}

#[test]
fn an_engine_that_a_deadline_guards_runs_regexes_the_screen_refuses() {
    // A Worker engine: the literal loads and a `RegExp` of the same shape is built; lines the
    // pattern handles quickly parse as usual (a hanging one is the Worker deadline's to end).
    let src = "const r = /^(a+)+$/;\n\
        export function parseStdoutLine(line, ts) {\n\
          const q = new RegExp('^(\\\\w+\\\\s?)*$');\n\
          return [{ kind: 'stdout', ts, text: String(r.test(line)) + ' ' + String(q.test(line)) }];\n\
        }";
    let options = SandboxOptions {
        screen_regexes: false,
        ..SandboxOptions::default()
    };
    let module = ParserModule::load(src, options).unwrap();
    let mut run = module.new_run().unwrap();
    let checked = run.parse_line("aaa", "t").unwrap();
    assert_eq!(checked.entries[0].text(), Some("true true"));
    // The same source with the screen on (inline) is refused at load.
    assert_eq!(
        ParserModule::load(src, SandboxOptions::default())
            .unwrap_err()
            .code,
        "unsafe_regex"
    );
}

#[test]
fn conversion_matches_json_stringify() {
    let src = "export function parseStdoutLine(line, ts) { return eval0(line); }\n\
        function eval0(w) {\n\
          if (w === 'plain') return [{ kind: 'stdout', ts: 't', text: 'x', n: 1200, f: 1.5, nan: NaN, u: undefined, fn() {}, arr: [1, undefined, () => 1], neg: -0 }];\n\
          if (w === 'getter') return [{ kind: 'stdout', get ts() { return 'g'; }, text: 'y' }];\n\
          if (w === 'tojson') return [{ kind: 'stdout', ts: 't', text: 'z', when: new Date(0), extra: { toJSON() { return 'J'; } } }];\n\
          if (w === 'tojson-data') return [{ kind: 'stdout', ts: 't', text: 'd', v: { toJSON: 1, a: [{ toJSON: null }] } }];\n\
          if (w === 'nested-then-map') return [{ kind: 'stdout', ts: 't', text: 'n', a: { b: {} }, c: { d: {} }, m: new Map() }];\n\
          if (w === 'tojson-mixed') return [{ kind: 'stdout', ts: 't', text: 'm', v: { toJSON: 'x' }, when: new Date(0) }];\n\
          if (w === 'proxy') return new Proxy([], { get(t, k) { return k === 'length' ? 1 : { kind: 'stdout', ts: 'p', text: 'q' }; } });\n\
          if (w === 'cycle') { const o = { kind: 'stdout', ts: 't', text: 'c' }; o.self = o; return [o]; }\n\
          if (w === 'keys') return { 2: 'b', a: 1, 1: 'a', kind: 'x' };\n\
          if (w === 'string') return 'nope';\n\
          if (w === 'undef') return undefined;\n\
          if (w === 'bigint') return [{ n: 1n }];\n\
          if (w === 'boxed') return [new String('s'), new Number(3), Object(false)];\n\
        }";
    let m = load(src);
    let mut run = m.new_run().unwrap();
    let mut r = |l: &str| run.parse_line_raw(l, TS0);
    assert_eq!(
        r("plain").unwrap(),
        json!([{ "kind": "stdout", "ts": "t", "text": "x", "n": 1200, "f": 1.5, "nan": null, "arr": [1, null, null], "neg": 0 }])
    );
    assert!(!r("plain").unwrap().to_string().contains("1200.0"));
    assert_eq!(
        r("getter").unwrap(),
        json!([{ "kind": "stdout", "ts": "g", "text": "y" }])
    );
    assert_eq!(
        r("tojson").unwrap(),
        json!([{ "kind": "stdout", "ts": "t", "text": "z", "when": "1970-01-01T00:00:00.000Z", "extra": "J" }])
    );
    // A data key named toJSON whose value is not a function is plain data (SPEC §2), on the
    // native walk and after the bytecode converter alike.
    assert_eq!(
        r("tojson-data").unwrap().to_string(),
        r#"[{"kind":"stdout","ts":"t","text":"d","v":{"toJSON":1,"a":[{"toJSON":null}]}}]"#
    );
    assert_eq!(
        r("tojson-mixed").unwrap().to_string(),
        r#"[{"kind":"stdout","ts":"t","text":"m","v":{"toJSON":"x"},"when":"1970-01-01T00:00:00.000Z"}]"#
    );
    // The bytecode converter after two nested containers (it threw "bad length for array").
    assert_eq!(
        r("nested-then-map").unwrap().to_string(),
        r#"[{"kind":"stdout","ts":"t","text":"n","a":{"b":{}},"c":{"d":{}},"m":{}}]"#
    );
    assert_eq!(
        r("proxy").unwrap(),
        json!([{ "kind": "stdout", "ts": "p", "text": "q" }])
    );
    assert_eq!(r("cycle").unwrap_err().code, "bad_return");
    assert_eq!(
        r("keys").unwrap().to_string(),
        r#"{"1":"a","2":"b","a":1,"kind":"x"}"#
    );
    assert_eq!(r("undef").unwrap(), json!(null));
    assert_eq!(r("bigint").unwrap_err().code, "threw");
    assert_eq!(r("boxed").unwrap(), json!(["s", 3, false]));
    assert_eq!(
        run.parse_line("string", TS0).unwrap_err().code,
        "bad_return"
    );
    assert_eq!(run.parse_line("plain", TS0).unwrap().entries.len(), 1);
    // The JSON text an engine instance sends is, byte for byte, the value the same walk
    // builds, encoded: for plain data, the bytecode fallback, and every failure.
    let mut run = m.new_run().unwrap();
    for w in [
        "plain", "getter", "tojson", "proxy", "cycle", "keys", "string", "undef", "bigint", "boxed",
    ] {
        let value = run.parse_line_raw(w, TS0);
        let text = run.parse_line_json(w, TS0);
        match (value, text) {
            (Ok(v), Ok(t)) => assert_eq!(t.as_str(), v.to_string(), "{w}"),
            (Err(a), Err(b)) => assert_eq!(a.code, b.code, "{w}"),
            (a, b) => panic!("{w}: {a:?} against {b:?}"),
        }
    }
    let unicode = load(
        "export function parseStdoutLine() { return [{ 'ké\\u00ff': 'a\\u0000\\n\\\"\\u2028\\ud83d\\ude00\\ud800', e: [], o: {}, big: 2 ** 70, small: -1e-7 }]; }",
    );
    let mut run = unicode.new_run().unwrap();
    let v = run.parse_line_raw("x", TS0).unwrap();
    assert_eq!(
        run.parse_line_json("x", TS0).unwrap().as_str(),
        v.to_string()
    );
}

#[test]
fn time_and_random_are_pinned() {
    let src = "let n = 0;\nconst atLoad = Date.now();\n\
        export function createStdoutParser() { const created = Date.now(); return { parseLine(line, ts) {\n\
          return [{ kind: 'stdout', ts, text: [atLoad, created, Date.now(), new Date().toISOString(), Date().slice(0, 24), Math.random(), ++n, new Date(0).getHours(), new Date(2026, 0, 1).getTime()].join('|') }];\n\
        } }; }";
    let m = load(src);
    let a: Vec<String> = {
        let mut run = m.new_run().unwrap();
        [TS0, TS1, "not a date"]
            .iter()
            .map(|ts| match &run.parse_line("x", ts).unwrap().entries[0] {
                TranscriptEntry::Stdout(t) => t.text.to_string(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(a[0], "0|0|1767225600000|2026-01-01T00:00:00.000Z|Thu Jan 01 2026 00:00:00|0.7100320369936526|1|0|1767225600000");
    assert!(
        a[1].starts_with("0|0|1767225601000|2026-01-01T00:00:01.000Z|"),
        "{}",
        a[1]
    );
    assert!(
        a[2].starts_with("0|0|0|1970-01-01T00:00:00.000Z|"),
        "{}",
        a[2]
    );
    let mut run2 = m.new_run().unwrap();
    let again = match &run2.parse_line("x", TS0).unwrap().entries[0] {
        TranscriptEntry::Stdout(t) => t.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        again, a[0],
        "a new run starts from fresh module state and seed"
    );
}

#[test]
fn isolation_and_line_parser() {
    let src = "globalThis.leak = (globalThis.leak || 0) + 1;\n\
        export function parseStdoutLine(line, ts) {\n\
          const seen = ['window','document','fetch','XMLHttpRequest','WebSocket','postMessage','localStorage','indexedDB','SharedArrayBuffer','Atomics','WebAssembly','setTimeout','require','process'].filter(k => typeof globalThis[k] !== 'undefined')\n\
            .concat(Object.getOwnPropertyNames(globalThis).filter(k => k.startsWith('__parsebox_')));\n\
          let ev; try { ev = eval('1'); } catch (e) { ev = e.name; }\n\
          let fn; try { fn = Function('return 1')(); } catch (e) { fn = e.name; }\n\
          console.log('hello', 1);\n\
          return [{ kind: 'stdout', ts, text: JSON.stringify({ seen, ev, fn, leak: globalThis.leak }) }];\n\
        }";
    let m = load(src);
    let mut run = m.new_run().unwrap();
    let checked = run.parse_line("x", TS0).unwrap();
    let TranscriptEntry::Stdout(t) = &checked.entries[0] else {
        panic!()
    };
    assert_eq!(
        t.text,
        r#"{"seen":[],"ev":"EvalError","fn":"EvalError","leak":1}"#
    );
    assert_eq!(run.diagnostics().console_calls, 1);
    assert_eq!(run.diagnostics().console_messages, vec!["hello".to_owned()]);
    let mut lp: Box<dyn LineParser> = Box::new(m.new_run().unwrap());
    assert_eq!(lp.parse_line("y", TS0).unwrap().len(), 1);
}

#[test]
fn state_survives_a_budget_abort_by_replay() {
    let src = "let n = 0;\nexport function createStdoutParser() { let k = 0; return {\n\
          parseLine(line, ts) { if (line === 'spin') for (;;) {} k++; n++; return [{ kind: 'stdout', ts, text: k + '/' + n }]; },\n\
          reset() { k = 0; } }; }";
    let m = load(src);
    let mut run = m.new_run().unwrap();
    let text = |c: CheckedEntries| match &c.entries[0] {
        TranscriptEntry::Stdout(t) => t.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text(run.parse_line("a", TS0).unwrap()), "1/1");
    run.reset().unwrap();
    assert_eq!(text(run.parse_line("b", TS0).unwrap()), "1/2");
    assert_eq!(
        run.parse_line("spin", TS0).unwrap_err().code,
        "budget_exceeded"
    );
    // `recover` does the rebuild ahead of the line (an engine keeps it out of the line's
    // time); the line then runs in the rebuilt realm, and a second `recover` does nothing.
    assert!(run.needs_recovery());
    run.recover().unwrap();
    assert_eq!(run.diagnostics().rebuilds, 1);
    assert!(!run.needs_recovery());
    run.recover().unwrap();
    assert_eq!(text(run.parse_line("c", TS0).unwrap()), "2/3");
    assert_eq!(run.diagnostics().rebuilds, 1);
    assert_eq!(run.diagnostics().replayed_lines, 2);
}

#[test]
fn hoisted_regexes_behave_like_fresh_literals() {
    // Each line exercises a hoisted shape; the expected values are what Node gives.
    let src = "let n = 0;\n\
        export function parseStdoutLine(line, ts) {\n\
          n++;\n\
          const m = /(\\d+)/.exec(line);\n\
          const all = line.match(/\\d/g);\n\
          const r = line.replace(/\\d/g, (d) => String(+d + 1));\n\
          const parts = line.split(/\\s*,\\s*/);\n\
          return [{ kind: 'stdout', ts, text: [m && m[1], all && all.length, r, parts.length, /^a/i.test(line), line.search(/,/)].join('|') }];\n\
        }";
    let module = load(src);
    let mut run = module.new_run().unwrap();
    let got: Vec<String> = ["A1, b22, c", "x9", "no digits", "A1, b22, c"]
        .iter()
        .map(|l| match &run.parse_line(l, TS0).unwrap().entries[0] {
            TranscriptEntry::Stdout(t) => t.text.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            "1|3|A2, b33, c|3|true|2",
            "9|1|x10|1|false|-1",
            "||no digits|1|false|-1",
            "1|3|A2, b33, c|3|true|2"
        ]
    );
}

/// What a thrown value reads as in Paperclip's parse-error entry (`formatTranscriptParserError`):
/// an Error's message, a non-empty string, else JSON; nothing for `undefined`.
#[test]
fn thrown_values_are_worded_as_paperclip_words_them() {
    let src = "export function parseStdoutLine(line) {\n\
          if (line === 'error') throw new Error('bad line');\n\
          if (line === 'type') null.x;\n\
          if (line === 'empty') throw new Error('');\n\
          if (line === 'string') throw 'plain words';\n\
          if (line === 'blank') throw '';\n\
          if (line === 'number') throw 42;\n\
          if (line === 'object') throw { code: 7, why: 'x' };\n\
          if (line === 'undefined') throw undefined;\n\
          if (line === 'null') throw null;\n\
          if (line === 'getter') throw { get boom() { for (;;) {} } };\n\
          return [];\n\
        }";
    let m = load(src);
    let mut run = m.new_run().unwrap();
    let table: [(&str, Option<&str>); 10] = [
        ("error", Some("bad line")),
        ("type", None),
        ("empty", Some("{}")),
        ("string", Some("plain words")),
        ("blank", Some("\"\"")),
        ("number", Some("42")),
        ("object", Some(r#"{"code":7,"why":"x"}"#)),
        ("undefined", None),
        ("null", Some("null")),
        ("getter", None),
    ];
    for (line, want) in table {
        let f = run.parse_line_raw(line, TS0).unwrap_err();
        assert_eq!(f.code, "threw", "{line}");
        match (line, want) {
            // A native TypeError: its message, whatever boa words it as.
            ("type", _) => assert!(
                f.thrown
                    .as_deref()
                    .is_some_and(|t| !t.is_empty() && !t.starts_with("TypeError")),
                "{f:?}"
            ),
            // JSON would run the getter: described without running it.
            ("getter", _) => assert!(f.thrown.is_some(), "{f:?}"),
            _ => assert_eq!(f.thrown.as_deref(), want, "{line}"),
        }
        // Diagnostics keep the error's name.
        if line == "error" {
            assert_eq!(f.message, "Error: bad line");
        }
    }
}

/// A module that exports both: runs are `createStdoutParser()` instances, and a stateless run
/// calls the module's own `parseStdoutLine`, as Paperclip's `adapter.parseStdoutLine` does.
#[test]
fn a_stateless_run_calls_the_modules_own_function() {
    let src = "export function parseStdoutLine(line, ts) { return [{ kind: 'stdout', ts, text: 'plain ' + line }]; }\n\
        export function createStdoutParser() { let n = 0; return { parseLine(line, ts) { n++; return [{ kind: 'stdout', ts, text: n + ' ' + line }]; } }; }";
    let m = load(src);
    let text = |run: &mut ParserRun, line: &str| {
        let v = run.parse_line_raw(line, TS0).unwrap();
        v[0]["text"].as_str().unwrap().to_owned()
    };
    let mut stateful = m.new_run().unwrap();
    assert_eq!(text(&mut stateful, "a"), "1 a");
    assert_eq!(text(&mut stateful, "b"), "2 b");
    let mut stateless = m.new_stateless_run().unwrap();
    assert_eq!(text(&mut stateless, "a"), "plain a");
    assert_eq!(text(&mut stateless, "b"), "plain b");
    // A module with the factory alone: a stateless run is an instance like any other.
    let only = load("export function createStdoutParser() { let n = 0; return { parseLine(l, ts) { n++; return [{ kind: 'stdout', ts, text: String(n) }]; } }; }");
    let mut run = only.new_stateless_run().unwrap();
    assert_eq!(text(&mut run, "a"), "1");
    assert_eq!(text(&mut run, "b"), "2");
}

/// Recovery is bounded: after a line that leaves the realm dirty, the next line replays the
/// run's history only within `replay_budget_ms`; past it the run starts fresh (state lost,
/// counted) instead of blocking the thread for as long as the history takes. A history whose
/// lines took longer than that budget when they ran is not even kept (nor replayed in vain).
#[test]
fn a_replay_past_its_budget_starts_the_run_fresh() {
    let src = "export function createStdoutParser() { let n = 0; return { parseLine(line, ts) {\n\
          if (line === 'spin') for (;;) {}\n\
          n++; let x = 0; for (let i = 0; i < 20000; i++) x += i;\n\
          return [{ kind: 'stdout', ts, text: String(n) }]; } }; }";
    for (budget_ms, fresh) in [(5.0, true), (60_000.0, false)] {
        let options = SandboxOptions {
            replay_budget_ms: budget_ms,
            line_budget_ms: 200.0,
            ..SandboxOptions::default()
        };
        let m = ParserModule::load(src, options).unwrap();
        let mut run = m.new_run().unwrap();
        for _ in 0..60 {
            run.parse_line_raw("line", TS0).unwrap();
        }
        assert_eq!(
            run.parse_line_raw("spin", TS0).unwrap_err().code,
            "budget_exceeded"
        );
        let next = run.parse_line_raw("next", TS0).unwrap();
        let expect = if fresh { "1" } else { "61" };
        assert_eq!(next[0]["text"], expect, "replay budget {budget_ms} ms");
        assert_eq!(run.diagnostics().state_lost, u64::from(fresh));
        let replayed = if fresh { 0 } else { 60 };
        assert_eq!(
            run.diagnostics().replayed_lines,
            replayed,
            "replay budget {budget_ms} ms"
        );
    }
}

/// Honest work is not refused (SPEC §10): a two-million-character string is a legitimate line's
/// work, though boa charges each repetition to its loop-iteration safety net.
#[test]
fn a_long_repeat_is_honest_work() {
    let m = load("export function parseStdoutLine(line, ts) { const n = Number(line); return [{ kind: 'stdout', ts, text: String('ab'.repeat(n).length) + String('x'.padStart(n).length) }]; }");
    let mut run = m.new_run().unwrap();
    for (n, want) in [
        (3, "63"),
        (2_000_000, "40000002000000"),
        (65_537, "13107465537"),
    ] {
        let v = run.parse_line_raw(&n.to_string(), TS0).unwrap();
        assert_eq!(v[0]["text"], want, "{n}");
    }
}

#[test]
fn every_regex_method_obeys_the_input_cap() {
    // The native `test`, `replace`, `match` and `split` check the cap where their `exec` would
    // be called; the others go through the guarded `exec` itself.
    let src = r#"export function parseStdoutLine(line, ts) {
      const input = "a".repeat(Number(line));
      const out = [];
      for (const f of [() => /a/.exec(input), () => /a/g.test(input), () => input.replace(/a/g, "b"),
        () => input.replace(/a/, "b"), () => input.match(/a/g), () => input.match(/a/),
        () => input.split(/a/), () => input.replace(/a/g, (m) => m), () => input.search(/a/),
        () => [...input.matchAll(/a/g)]]) {
        try { f(); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message); }
      }
      return [{ kind: "stdout", ts, text: out.join("|") }];
    }"#;
    let opts = SandboxOptions {
        max_regex_input: 100,
        ..SandboxOptions::default()
    };
    let m = ParserModule::load(src, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut run = m.new_run().unwrap();
    let v = run.parse_line_raw("100", TS0).unwrap();
    assert_eq!(v[0]["text"], ["ok"; 10].join("|"));
    let v = run.parse_line_raw("101", TS0).unwrap();
    let refused =
        "RangeError: parsebox: regex input length of 101 exceeds the sandbox limit of 100";
    assert_eq!(v[0]["text"], [refused; 10].join("|"));
}

/// With a clock that never moves, each of the JavaScript functions in the array `calls` (after
/// `setup`, each called on the string `big`) run once is answered with at least `min_work`
/// cycles counted, and run `times` times in one line ends as `budget_exceeded`, even inside a
/// `try` (the guest cannot catch the budget); the run goes on.
fn assert_calls_end_at_the_work_budget(setup: &str, calls: &str, times: u32, min_work: u64) {
    fn frozen() -> f64 {
        0.0
    }
    let src = format!(
        r#"{setup}
    const calls = {calls};
    export function parseStdoutLine(line, ts) {{
      const [which, times] = line.split(" ").map(Number);
      let caught = 0;
      for (let i = 0; i < times; i++) {{
        try {{ calls[which](big); }} catch (e) {{ caught++; }}
      }}
      return [{{ kind: "stdout", ts, text: String(caught) }}];
    }}"#
    );
    let opts = SandboxOptions {
        clock: Some(frozen),
        line_budget_ms: 300.0,
        ..SandboxOptions::default()
    };
    let m = ParserModule::load(&src, opts).unwrap_or_else(|e| panic!("{e}"));
    let count = calls.matches("=>").count();
    for which in 0..count {
        let mut run = m.new_run().unwrap();
        let v = run.parse_line_raw(&format!("{which} 1"), TS0).unwrap();
        assert_eq!(v[0]["text"], "0", "call {which}");
        assert!(
            run.diagnostics().work_cycles >= min_work,
            "call {which}: {}",
            run.diagnostics().work_cycles
        );
        let failed = run
            .parse_line_raw(&format!("{which} {times}"), TS0)
            .unwrap_err();
        assert_eq!(failed.code, "budget_exceeded", "call {which}: {failed:?}");
        let v = run.parse_line_raw(&format!("{which} 1"), TS0).unwrap();
        assert_eq!(v[0]["text"], "0", "call {which}");
    }
}

/// The native regex methods' scans and `JSON.parse`'s reading are counted work (issue 54: no
/// clock in an outcome): a line that runs them over a long string many times ends at its
/// budget, and one call scans the 600,000 units at least once.
#[test]
fn native_scans_are_counted_against_the_work_budget() {
    assert_calls_end_at_the_work_budget(
        r#"const big = "ab ".repeat(200000);
    const bigJson = JSON.stringify(big);"#,
        r#"[(s) => s.replace(/b/g, "c"), (s) => s.split(/ /), (s) => s.match(/a/g),
      (s) => /z/.test(s), (s) => /z/g.exec(s), (s) => s.replaceAll(/a/g, ""),
      (s) => JSON.parse(bigJson)]"#,
        100,
        600_000,
    );
}

#[test]
fn more_regexes_than_the_matcher_cache_holds_still_answer_right() {
    // 200 patterns, each its own matcher, over a cache of 64: each still matches as itself.
    let m = load(
        r##"export function parseStdoutLine(line, ts) {
          const out = [];
          for (let i = 0; i < 200; i++) out.push(line.replace(new RegExp("x" + i + "(?!\\d)", "g"), "#"));
          const changed = out.filter((s) => s !== line).length;
          return [{ kind: "stdout", ts, text: [changed, out[7], out[150], out[199]].join("|") }];
        }"##,
    );
    let mut run = m.new_run().unwrap();
    for _ in 0..2 {
        let v = run.parse_line_raw("a x7 b x150 c x199", TS0).unwrap();
        assert_eq!(
            v[0]["text"],
            "3|a # b x150 c x199|a x7 b # c x199|a x7 b x150 c #"
        );
    }
}

/// The built-ins that search or copy a whole string or array in one native call (`indexOf`,
/// `toUpperCase`, `repeat`, `join`, `JSON.stringify`, a `split` or `replace` by a string …) are
/// counted work too: a line that loops over one of them on a long input ends as
/// `budget_exceeded` by the count (the clock, which moves on while the loop's bytecode counts,
/// would never stop it). A tokenizer's `indexOf(sep, from)` loop is charged what it scans, not
/// the string's length each time.
#[test]
fn native_searches_and_copies_are_counted_against_the_work_budget() {
    assert_calls_end_at_the_work_budget(
        r#"const big = "ab ".repeat(200000) + " ";
    const arr = "01234567".repeat(75000).split("");
    const obj = { a: big };
    const some = arr.slice(0, 20000);"#,
        r#"[(s) => s.indexOf("z"), (s) => s.includes("z"), (s) => s.lastIndexOf("z"),
      (s) => s.toUpperCase(), (s) => "ab".repeat(300000), (s) => s.toLowerCase(), (s) => JSON.stringify(obj),
      (s) => arr.join(""), (s) => arr.indexOf(9), (s) => arr.includes(9), (s) => arr.slice(1),
      (s) => s.split(" "), (s) => s.replace("ab", "x"), (s) => s.concat("x"),
      (s) => s.padEnd(600010), (s) => new String(s).indexOf("z"), (s) => String.fromCharCode(...arr),
      (s) => s.normalize(), (s) => arr.concat(["x"]), (s) => some.toSorted(), (s) => some.sort(),
      (s) => encodeURIComponent(s), (s) => decodeURI(s)]"#,
        1000,
        30_000,
    );
    // A tokenizer walking a long line with indexOf(sep, from) is charged what it scans.
    let tokenizer = load(
        r#"export function parseStdoutLine(line, ts) {
          const s = "word ".repeat(20000);
          let n = 0, at = 0, next;
          while ((next = s.indexOf(" ", at)) >= 0) { n++; at = next + 1; }
          return [{ kind: "stdout", ts, text: String(n) }];
        }"#,
    );
    let mut run = tokenizer.new_run().unwrap();
    let v = run.parse_line_raw("x", TS0).unwrap();
    assert_eq!(v[0]["text"], "20000");
}

#[test]
fn a_regex_cannot_be_recompiled_in_place() {
    // The native regex methods keep what a regex object's slots gave, by the object: sound
    // only while nothing can change them, as Annex B's `RegExp.prototype.compile` would.
    let m = load("export function parseStdoutLine(line, ts) {\n\
          return [{ kind: 'stdout', ts, text: typeof RegExp.prototype.compile + ' ' + typeof /a/.compile }];\n\
        }");
    let mut run = m.new_run().unwrap();
    match &run.parse_line("x", TS0).unwrap().entries[0] {
        TranscriptEntry::Stdout(t) => assert_eq!(t.text.as_ref() as &str, "undefined undefined"),
        other => panic!("{other:?}"),
    }
}
