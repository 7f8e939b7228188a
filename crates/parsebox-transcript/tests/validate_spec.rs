//! SPEC §2: which untrusted entries reach the renderer, and why the others do not.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    entries_from_return, entries_from_return_previewing, validate_entry, CheckedEntries, Dropped,
    EntryLimits, Rejection, MAX_PREVIEWS_PER_LINE,
};
use serde_json::{json, Value};

fn check(v: Value) -> Result<Value, String> {
    validate_entry(v, &EntryLimits::default())
        .map(|e| serde_json::to_value(e).unwrap())
        .map_err(|r| r.code().to_owned())
}

#[test]
fn every_kind_of_the_spec_table_is_accepted_with_its_required_fields() {
    let ok = [
        json!({"kind":"assistant","ts":"t","text":"hi"}),
        json!({"kind":"assistant","ts":"t","text":"hi","delta":true}),
        json!({"kind":"thinking","ts":"t","text":"hmm"}),
        json!({"kind":"user","ts":"t","text":"do it"}),
        json!({"kind":"stderr","ts":"t","text":"err"}),
        json!({"kind":"system","ts":"t","text":"sys"}),
        json!({"kind":"stdout","ts":"t","text":"out"}),
        json!({"kind":"tool_call","ts":"t","name":"shell","input":{"command":"ls"},"toolUseId":"1","invocationId":"i","actionRequestId":"a"}),
        json!({"kind":"tool_call","ts":"t","name":"noop","input":null}),
        json!({"kind":"tool_result","ts":"t","toolUseId":"1","content":"ok","isError":false,"toolName":"shell"}),
        json!({"kind":"init","ts":"t","model":"m","sessionId":"s"}),
        json!({"kind":"result","ts":"t","text":"done","inputTokens":1200,"outputTokens":3,"cachedTokens":0,"costUsd":0.012,"subtype":"success","isError":false,"errors":[]}),
        json!({"kind":"diff","ts":"t","changeType":"file_header","text":"--- a"}),
    ];
    for v in ok {
        // Round trip: what comes out is exactly what went in (numbers stay integers).
        assert_eq!(check(v.clone()), Ok(v));
    }
}

#[test]
fn broken_entries_are_rejected_with_a_reason() {
    let table = [
        (json!("text"), "not_an_object"),
        (json!([1]), "not_an_object"),
        (json!({"ts":"t","text":"x"}), "missing_kind"),
        (json!({"kind":7,"ts":"t","text":"x"}), "missing_kind"),
        (json!({"kind":"banner","ts":"t","text":"x"}), "unknown_kind"),
        (json!({"kind":"assistant","ts":"t"}), "missing_field"),
        (json!({"kind":"assistant","text":"x"}), "missing_field"),
        (
            json!({"kind":"assistant","ts":"t","text":42}),
            "ill_typed_field",
        ),
        (
            json!({"kind":"tool_call","ts":"t","input":{}}),
            "missing_field",
        ),
        (
            json!({"kind":"tool_result","ts":"t","toolUseId":"1","content":"c","isError":"no"}),
            "ill_typed_field",
        ),
        (
            json!({"kind":"result","ts":"t","text":"","inputTokens":null,"outputTokens":0,"cachedTokens":0,"costUsd":0,"subtype":"s","isError":false,"errors":[]}),
            "ill_typed_field",
        ),
        (
            json!({"kind":"result","ts":"t","text":"","inputTokens":0,"outputTokens":0,"cachedTokens":0,"costUsd":0,"subtype":"s","isError":false,"errors":[1]}),
            "ill_typed_field",
        ),
        (
            json!({"kind":"diff","ts":"t","changeType":"moved","text":"x"}),
            "ill_typed_field",
        ),
        (json!({"kind":"init","ts":"t","model":"m"}), "missing_field"),
    ];
    for (v, code) in table {
        assert_eq!(check(v.clone()), Err(code.to_owned()), "{v}");
    }
    let why = validate_entry(
        json!({"kind":"tool_result","ts":"t","toolUseId":"1","content":5,"isError":false}),
        &EntryLimits::default(),
    )
    .unwrap_err();
    assert_eq!(
        why.to_string(),
        "tool_result entry field `content` must be a string, found a number"
    );
}

#[test]
fn extra_plain_fields_and_ill_typed_optional_fields_pass_through() {
    assert_eq!(
        check(json!({"kind":"assistant","ts":"t","text":"x","channel":"c","meta":{"n":[1,2]}})),
        Ok(json!({"kind":"assistant","ts":"t","text":"x","channel":"c","meta":{"n":[1,2]}}))
    );
    // Paperclip passes optional fields through whatever their type.
    assert_eq!(
        check(json!({"kind":"assistant","ts":"t","text":"x","delta":"yes"})),
        Ok(json!({"kind":"assistant","ts":"t","text":"x","delta":"yes"}))
    );
    assert_eq!(
        check(json!({"kind":"tool_call","ts":"t","name":"n","toolUseId":7,"invocationId":null})),
        Ok(json!({"kind":"tool_call","ts":"t","name":"n","toolUseId":7,"invocationId":null}))
    );
}

#[test]
fn sizes_are_bounded() {
    let limits = EntryLimits {
        max_string_bytes: 10,
        max_array_len: 3,
        max_depth: 4,
        max_object_keys: 5,
        max_entries_per_line: 2,
    };
    let v = |x: Value| validate_entry(x, &limits).map_err(|r| r.to_string());
    assert!(v(json!({"kind":"stdout","ts":"t","text":"1234567890"})).is_ok());
    assert_eq!(
        v(json!({"kind":"stdout","ts":"t","text":"12345678901"})).unwrap_err(),
        "entry exceeds max_string_bytes (10)"
    );
    assert_eq!(
        v(json!({"kind":"tool_call","ts":"t","name":"n","input":[1,2,3,4]})).unwrap_err(),
        "entry exceeds max_array_len (3)"
    );
    assert_eq!(
        v(json!({"kind":"tool_call","ts":"t","name":"n","input":[[[[1]]]]})).unwrap_err(),
        "entry exceeds max_depth (4)"
    );
    assert!(v(json!({"kind":"tool_call","ts":"t","name":"n","input":[[[1]]]})).is_ok());
    assert_eq!(
        v(json!({"kind":"stdout","ts":"t","text":"","a":1,"b":2,"c":3})).unwrap_err(),
        "entry exceeds max_object_keys (5)"
    );
    let three = json!([{"kind":"stdout","ts":"t","text":"1"},{"kind":"stdout","ts":"t","text":"2"},{"kind":"stdout","ts":"t","text":"3"}]);
    let checked = entries_from_return(three, &limits).unwrap();
    assert_eq!(
        (checked.entries.len(), checked.dropped),
        (2, vec![Dropped::new(Rejection::TooManyEntries { max: 2 })])
    );
}

#[test]
fn previews_show_each_dropped_entry_as_returned_and_only_when_asked() {
    let limits = EntryLimits {
        max_entries_per_line: 3,
        ..EntryLimits::default()
    };
    let long = "é".repeat(300);
    let value = json!([
        {"kind":"stdout","ts":"t","text":"fine"},
        {"kind":"nope","ts":"t"},
        {"kind":"stdout","ts":"t","text":long},
        {"kind":"stdout","ts":"t","text":"x"},
        "just a string",
    ]);
    let whole = |i: usize| serde_json::to_string(&value[i]).unwrap();
    let checked = entries_from_return_previewing(value.clone(), &limits, 40).unwrap();
    assert_eq!(
        checked.entries.len(),
        2,
        "the first and the third are valid"
    );
    let got: Vec<(&str, String, usize)> = checked
        .dropped
        .iter()
        .map(|d| {
            let p = d.preview.as_ref().unwrap();
            (d.why.code(), p.json.clone(), p.chars)
        })
        .collect();
    let head = |i: usize| whole(i).chars().take(40).collect::<String>();
    assert_eq!(
        got,
        [
            ("unknown_kind", whole(1), whole(1).chars().count()),
            ("too_many_entries", head(3), whole(3).chars().count()),
            ("too_many_entries", head(4), whole(4).chars().count()),
        ]
    );
    // A long entry keeps 40 characters (two bytes each here), and says how long it was.
    let one = entries_from_return_previewing(json!([{"kind":1,"text":long}]), &limits, 40)
        .unwrap()
        .dropped;
    let p = one[0].preview.as_ref().unwrap();
    assert_eq!(p.json.chars().count(), 40);
    assert_eq!(p.chars, 300 + r#"{"kind":1,"text":""}"#.len());
    // Without previews, the same verdicts and none kept.
    let plain = entries_from_return(value, &limits).unwrap();
    assert_eq!(plain.entries, checked.entries);
    assert!(plain.dropped.iter().all(|d| d.preview.is_none()));
    let codes = |c: &CheckedEntries| c.dropped.iter().map(|d| d.why.code()).collect::<Vec<_>>();
    assert_eq!(codes(&plain), codes(&checked));
    // A line's first MAX_PREVIEWS_PER_LINE dropped entries get one; the rest are counted.
    let many = Value::Array(vec![json!({"kind":"nope"}); MAX_PREVIEWS_PER_LINE + 5]);
    let dropped = entries_from_return_previewing(many, &EntryLimits::default(), 10)
        .unwrap()
        .dropped;
    assert_eq!(dropped.len(), MAX_PREVIEWS_PER_LINE + 5);
    assert_eq!(
        dropped.iter().filter(|d| d.preview.is_some()).count(),
        MAX_PREVIEWS_PER_LINE
    );
}

#[test]
fn return_values_are_arrays_single_entries_or_nothing() {
    let l = EntryLimits::default();
    let one = json!({"kind":"stdout","ts":"t","text":"x"});
    assert_eq!(
        entries_from_return(one.clone(), &l).unwrap().entries.len(),
        1
    );
    assert_eq!(
        entries_from_return(json!([one, {"kind":"nope"}]), &l)
            .unwrap()
            .dropped
            .len(),
        1
    );
    assert!(entries_from_return(Value::Null, &l)
        .unwrap()
        .entries
        .is_empty());
    assert_eq!(
        entries_from_return(json!("x"), &l).unwrap_err(),
        "parser returned a string, expected an array of entries"
    );
    assert!(entries_from_return(json!(3), &l).is_err());
}
