//! Paperclip's own `buildTranscript` rules where parsebox used to differ, one table per rule.
//! Each row names the Paperclip behaviour a viewer would see
//! (`ui/src/adapters/transcript.ts`, `packages/adapter-utils/src/log-redaction.ts`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use parsebox_transcript::{
    settle_line, validate_entry, Chunk, EntryLimits, FailureCode, LineFailure, TranscriptBuilder,
    TranscriptEntry, TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A parser whose line is the JSON array of entries it returns.
fn json_parser(line: &str, _ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    let v: Value = serde_json::from_str(line)
        .map_err(|e| LineFailure::new(FailureCode::Threw, e.to_string()))?;
    Ok(v.as_array()
        .unwrap()
        .iter()
        .map(|e| validate_entry(e.clone(), &EntryLimits::default()).unwrap())
        .collect())
}

/// The transcript, as JSON text per entry, of one stdout line per group of entries.
fn transcript(lines: &[Value], redact: bool) -> Vec<String> {
    let opts = TranscriptOptions {
        redact_home_paths: redact,
        ..Default::default()
    };
    let mut b = TranscriptBuilder::new(json_parser, opts);
    for line in lines {
        b.push(&Chunk::stdout("t", &format!("{line}\n")));
    }
    b.finish();
    b.entries()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect()
}

fn text_of(entry: &str) -> String {
    let v: Value = serde_json::from_str(entry).unwrap();
    v["text"].as_str().unwrap().to_owned()
}

#[test]
fn rule_1_streamed_pieces_merge_for_any_channel_and_any_truthy_delta() {
    let piece = |kind: &str, text: &str, delta: Option<Value>, channel: Option<&str>| {
        let mut e = json!({"kind": kind, "ts": text, "text": text});
        if let Some(d) = delta {
            e["delta"] = d;
        }
        if let Some(c) = channel {
            e["channel"] = json!(c);
        }
        e
    };
    let t = Some(json!(true));
    #[allow(clippy::type_complexity)]
    let rows: &[(&str, Value, Value, &[&str])] = &[
        (
            "pieces of different channels merge",
            piece("assistant", "A", t.clone(), Some("a")),
            piece("assistant", "B", t.clone(), Some("b")),
            &["AB"],
        ),
        (
            "a piece with a channel merges with one without",
            piece("assistant", "A", t.clone(), None),
            piece("assistant", "B", t.clone(), Some("b")),
            &["AB"],
        ),
        (
            "thinking pieces of different channels merge",
            piece("thinking", "A", t.clone(), Some("a")),
            piece("thinking", "B", t.clone(), Some("b")),
            &["AB"],
        ),
        (
            "delta: 1 is truthy",
            piece("assistant", "A", Some(json!(1)), None),
            piece("assistant", "B", Some(json!(1)), None),
            &["AB"],
        ),
        (
            "a non-empty string delta is truthy",
            piece("assistant", "A", Some(json!("yes")), None),
            piece("assistant", "B", t.clone(), None),
            &["AB"],
        ),
        (
            "an object or array delta is truthy",
            piece("thinking", "A", Some(json!({})), None),
            piece("thinking", "B", Some(json!([])), None),
            &["AB"],
        ),
        (
            "delta: 0 is falsy",
            piece("assistant", "A", t.clone(), None),
            piece("assistant", "B", Some(json!(0)), None),
            &["A", "B"],
        ),
        (
            "an empty string delta is falsy",
            piece("assistant", "A", Some(json!("")), None),
            piece("assistant", "B", t.clone(), None),
            &["A", "B"],
        ),
        (
            "delta: null is falsy",
            piece("assistant", "A", t.clone(), None),
            piece("assistant", "B", Some(json!(null)), None),
            &["A", "B"],
        ),
        (
            "delta: false is falsy",
            piece("assistant", "A", Some(json!(false)), None),
            piece("assistant", "B", t.clone(), None),
            &["A", "B"],
        ),
        (
            "no delta on the later entry: no merge",
            piece("assistant", "A", t.clone(), None),
            piece("assistant", "B", None, None),
            &["A", "B"],
        ),
        (
            "assistant and thinking pieces never merge",
            piece("assistant", "A", t.clone(), None),
            piece("thinking", "B", t.clone(), None),
            &["A", "B"],
        ),
    ];
    for (what, first, second, texts) in rows {
        // Within one line and across two lines alike.
        let one_line = transcript(&[json!([first, second])], false);
        let two_lines = transcript(&[json!([first]), json!([second])], false);
        for got in [one_line, two_lines] {
            let got: Vec<String> = got.iter().map(|e| text_of(e)).collect();
            assert_eq!(got, *texts, "{what}");
        }
    }
}

#[test]
fn rule_1_a_merged_entry_keeps_the_earlier_ones_fields_and_key_order_with_the_later_ts() {
    let got = transcript(
        &[json!([
            {"text":"A","kind":"assistant","delta":1,"channel":"x","ts":"t1"},
            {"kind":"assistant","ts":"t2","text":"B","delta":true,"channel":"y","seq":2}
        ])],
        false,
    );
    assert_eq!(
        got,
        [r#"{"text":"AB","kind":"assistant","delta":1,"channel":"x","ts":"t2"}"#]
    );
}

#[test]
fn rule_2_redaction_touches_the_fields_paperclip_redacts_and_nothing_else() {
    let rows = [
        (
            "stdout: text; extra fields are left alone",
            json!({"kind":"stdout","ts":"t","text":"cd /home/alice","cwd":"/home/alice"}),
            json!({"kind":"stdout","ts":"t","text":"cd /home/a****","cwd":"/home/alice"}),
        ),
        (
            "assistant: text; channel and extras are left alone",
            json!({"kind":"assistant","ts":"/home/ts","text":"/Users/bob","channel":"/Users/bob"}),
            json!({"kind":"assistant","ts":"/home/ts","text":"/Users/b**","channel":"/Users/bob"}),
        ),
        (
            "diff: text",
            json!({"kind":"diff","ts":"t","changeType":"add","text":"+ /home/alice/x"}),
            json!({"kind":"diff","ts":"t","changeType":"add","text":"+ /home/a****/x"}),
        ),
        (
            "tool_call: name and every string in input (not its keys); ids and extras are left alone",
            json!({"kind":"tool_call","ts":"t","name":"/Users/bob/bin/run",
                   "input":{"/home/carol":["/home/carol/a",1,{"p":"C:\\Users\\carol\\b"}]},
                   "toolUseId":"/home/dave","meta":"/home/erin"}),
            json!({"kind":"tool_call","ts":"t","name":"/Users/b**/bin/run",
                   "input":{"/home/carol":["/home/c****/a",1,{"p":"C:\\Users\\c****\\b"}]},
                   "toolUseId":"/home/dave","meta":"/home/erin"}),
        ),
        (
            "tool_call without input: name only, no input appears",
            json!({"kind":"tool_call","ts":"t","name":"/home/alice/tool"}),
            json!({"kind":"tool_call","ts":"t","name":"/home/a****/tool"}),
        ),
        (
            "tool_result: content; toolUseId and toolName are left alone",
            json!({"kind":"tool_result","ts":"t","toolUseId":"/home/id","toolName":"/home/tool",
                   "content":"/home/alice","isError":false}),
            json!({"kind":"tool_result","ts":"t","toolUseId":"/home/id","toolName":"/home/tool",
                   "content":"/home/a****","isError":false}),
        ),
        (
            "init: model and sessionId",
            json!({"kind":"init","ts":"t","model":"/Users/bob/m.gguf","sessionId":"/home/alice/s","x":"/home/x"}),
            json!({"kind":"init","ts":"t","model":"/Users/b**/m.gguf","sessionId":"/home/a****/s","x":"/home/x"}),
        ),
        (
            "result: text, subtype and each error",
            json!({"kind":"result","ts":"t","text":"/home/alice","inputTokens":1,"outputTokens":2,
                   "cachedTokens":0,"costUsd":0.5,"subtype":"/home/bob","isError":true,
                   "errors":["/home/carol","ok"]}),
            json!({"kind":"result","ts":"t","text":"/home/a****","inputTokens":1,"outputTokens":2,
                   "cachedTokens":0,"costUsd":0.5,"subtype":"/home/b**","isError":true,
                   "errors":["/home/c****","ok"]}),
        ),
    ];
    for (what, entry, want) in rows {
        let got = transcript(&[json!([entry.clone()])], true);
        assert_eq!(got, [want.to_string()], "{what}");
        // Without the option nothing changes.
        let got = transcript(&[json!([entry.clone()])], false);
        assert_eq!(got, [entry.to_string()], "{what} (redaction off)");
    }
}

#[test]
fn rule_3_a_tool_call_may_leave_input_out() {
    let rows = [
        (
            "no input: still a tool_call, shown without input",
            json!({"kind":"tool_call","ts":"t","name":"read","toolUseId":"1"}),
            "tool_call",
            r#"{"kind":"tool_call","ts":"t","name":"read","toolUseId":"1"}"#,
        ),
        (
            "input: null is kept as null",
            json!({"kind":"tool_call","ts":"t","name":"read","input":null}),
            "tool_call",
            r#"{"kind":"tool_call","ts":"t","name":"read","input":null}"#,
        ),
        (
            "no name is still invalid: the line shows as stdout",
            json!({"kind":"tool_call","ts":"t","input":{}}),
            "stdout",
            r#"{"kind":"stdout","ts":"t","text":"the line"}"#,
        ),
    ];
    for (what, entry, kind, json_text) in rows {
        let settled = settle_line(
            "the line",
            "t",
            Ok(entry),
            &EntryLimits::default(),
            Default::default(),
        );
        assert_eq!(settled.entries.len(), 1, "{what}");
        assert_eq!(settled.entries[0].kind(), kind, "{what}");
        assert_eq!(
            serde_json::to_string(&settled.entries[0]).unwrap(),
            json_text,
            "{what}"
        );
    }
    // Reading entries back keeps the difference between no input and `input: null`.
    for text in [
        r#"{"kind":"tool_call","ts":"t","name":"read"}"#,
        r#"{"kind":"tool_call","ts":"t","name":"read","input":null}"#,
        // A result's usage fields and its extra fields each land in their own place.
        r#"{"kind":"result","ts":"t","text":"done","inputTokens":3,"outputTokens":4,"cachedTokens":0,"costUsd":0.5,"subtype":"success","isError":false,"errors":["e"],"model":"m"}"#,
    ] {
        let entry: TranscriptEntry = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&entry).unwrap(), text);
    }
}

#[test]
fn rule_4_entries_keep_the_parsers_key_order() {
    let rows = [
        (
            "declaration order",
            r#"{"kind":"tool_call","ts":"t","name":"ls","input":{"b":1,"a":2},"toolUseId":"1"}"#,
        ),
        (
            "toolUseId before input",
            r#"{"kind":"tool_call","ts":"t","toolUseId":"1","name":"ls","input":{"b":1,"a":2}}"#,
        ),
        ("kind last", r#"{"ts":"t","text":"x","kind":"stdout"}"#),
        (
            "extra fields first, between and last",
            r#"{"channel":"c","kind":"assistant","seq":3,"text":"x","ts":"t","delta":true,"raw":{"z":1,"a":2}}"#,
        ),
        (
            "an ill-typed optional field keeps its place",
            r#"{"kind":"tool_result","toolName":5,"ts":"t","toolUseId":"1","isError":false,"content":"c"}"#,
        ),
        (
            "all ten keys of a result, reversed",
            r#"{"errors":[],"isError":false,"subtype":"s","costUsd":0.1,"cachedTokens":0,"outputTokens":2,"inputTokens":1,"text":"x","ts":"t","kind":"result"}"#,
        ),
        (
            "init with sessionId first",
            r#"{"sessionId":"s","model":"m","kind":"init","ts":"t"}"#,
        ),
        (
            "diff with text before changeType",
            r#"{"kind":"diff","text":"@@","changeType":"hunk","ts":"t"}"#,
        ),
    ];
    for (what, text) in rows {
        let entry =
            validate_entry(serde_json::from_str(text).unwrap(), &EntryLimits::default()).unwrap();
        assert_eq!(serde_json::to_string(&entry).unwrap(), text, "{what}");
        // Through the builder (with redaction on) too.
        let line: Value = serde_json::from_str(&format!("[{text}]")).unwrap();
        assert_eq!(transcript(&[line], true), [text], "{what} (builder)");
    }
}

#[test]
fn rule_4_a_field_set_after_validation_comes_after_the_parsers_keys() {
    let mut entry = validate_entry(
        json!({"name":"ls","kind":"tool_call","ts":"t","extra":1}),
        &EntryLimits::default(),
    )
    .unwrap();
    if let TranscriptEntry::ToolCall(b) = &mut entry {
        b.tool_use_id = Some("late".to_owned());
    }
    assert_eq!(
        serde_json::to_string(&entry).unwrap(),
        r#"{"name":"ls","kind":"tool_call","ts":"t","extra":1,"toolUseId":"late"}"#
    );
}

proptest! {
    /// Any order of a result's ten keys and three extra fields comes back as it went in.
    #[test]
    fn rule_4_any_key_order_round_trips(order in Just((0..13).collect::<Vec<usize>>()).prop_shuffle()) {
        let pairs = [
            ("kind", json!("result")), ("ts", json!("t")), ("text", json!("x")),
            ("inputTokens", json!(1)), ("outputTokens", json!(2)), ("cachedTokens", json!(0)),
            ("costUsd", json!(0.25)), ("subtype", json!("s")), ("isError", json!(false)),
            ("errors", json!(["e"])), ("a", json!(1)), ("toolUseId", json!(null)), ("z", json!({})),
        ];
        let mut obj = serde_json::Map::new();
        for i in order {
            let (k, v) = &pairs[i];
            obj.insert((*k).to_owned(), v.clone());
        }
        let text = Value::Object(obj).to_string();
        let entry = validate_entry(serde_json::from_str(&text).unwrap(), &EntryLimits::default())
            .unwrap();
        prop_assert_eq!(serde_json::to_string(&entry).unwrap(), text);
    }
}
