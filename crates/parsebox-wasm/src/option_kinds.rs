//! Which options each JS entry point takes and what kind of value each holds: the one check
//! of an options object's keys and value types, before its values are read. (Ranges are the
//! host core's and the builder's to check, once the values are numbers.)

use wasm_bindgen::prelude::*;

use parsebox_host::shown_number;

use crate::boundary::into_error;

/// The kind of value an option holds.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A finite number above 0.
    Positive,
    /// `true` or `false`.
    Boolean,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A function, or `null` for none.
    FunctionOrNull,
    /// An object, or `null` for none.
    ObjectOrNull,
}

use Kind::{Boolean, FunctionOrNull, ObjectOrNull, OneOf, Positive};

/// `ParserRegistry`'s options.
const REGISTRY: &[(&str, Kind)] = &[
    ("lineBudgetMs", Positive),
    ("hardDeadlineMs", Positive),
    ("callBudgetMs", Positive),
    ("rebuildSliceMs", Positive),
    ("initBudgetMs", Positive),
    ("maxSourceBytes", Positive),
    ("maxLineBytes", Positive),
    ("maxEntriesPerLine", Positive),
    ("maxStringBytes", Positive),
    ("maxMemoryBytes", Positive),
    ("maxTranscriptBytesTotal", Positive),
    ("maxLiveEngines", Positive),
    ("maxWorkers", Positive),
    ("droppedPreviewChars", Positive),
    ("loadSource", FunctionOrNull),
    ("host", OneOf(&["inline", "worker", "auto"])),
];

/// `TranscriptBuilder`'s options.
const BUILDER: &[(&str, Kind)] = &[
    ("redactHomePaths", Boolean),
    ("failedLineEntry", OneOf(&["parseError", "generic"])),
    ("timeline", Boolean),
    ("maxChunks", Positive),
    ("maxRetainedBytes", Positive),
    ("dropDuplicateChunks", Boolean),
    ("maxTranscriptBytes", Positive),
];

/// `useTranscript`'s options (the React hook).
const USE_TRANSCRIPT: &[(&str, Kind)] = &[
    ("registry", ObjectOrNull),
    ("censorUsernameInLogs", Boolean),
];

/// The options table of entry point `what`.
fn table(what: &str) -> Option<&'static [(&'static str, Kind)]> {
    match what {
        "ParserRegistry" => Some(REGISTRY),
        "TranscriptBuilder" => Some(BUILDER),
        "useTranscript" => Some(USE_TRANSCRIPT),
        _ => None,
    }
}

/// A JS value, as far as checking its kind goes.
#[derive(Clone, Debug, PartialEq)]
enum Given {
    Number(f64),
    Boolean(bool),
    Text(String),
    Function,
    Object,
    Null,
    /// Any other type, by its `typeof`.
    Other(&'static str),
}

impl Given {
    /// The value as a message shows it: a string quoted as `JSON.stringify` quotes it (so
    /// `"5"` does not read as the number 5), anything else as `String(value)` shows it.
    fn shown(&self) -> String {
        match self {
            Self::Number(v) => shown_number(*v),
            Self::Boolean(b) => b.to_string(),
            Self::Text(s) => serde_json::Value::from(s.as_str()).to_string(),
            Self::Function => "a function".to_owned(),
            Self::Object => "an object".to_owned(),
            Self::Null => "null".to_owned(),
            Self::Other(t) => format!("a {t}"),
        }
    }
}

/// Whether `given` is of `kind`, or the sentence that says what it should be.
fn check_one(what: &str, key: &str, kind: Kind, given: &Given) -> Result<(), String> {
    let ok = match (kind, given) {
        (Positive, Given::Number(v)) => v.is_finite() && *v > 0.0,
        (Boolean, Given::Boolean(_)) => true,
        (OneOf(names), Given::Text(s)) => names.contains(&s.as_str()),
        (FunctionOrNull, Given::Function | Given::Null) => true,
        (ObjectOrNull, Given::Object | Given::Null) => true,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let head = format!("{what} option \"{key}\" must be");
    Err(match kind {
        Positive => format!("{head} a positive number, got {}", given.shown()),
        Boolean => format!("{head} a boolean, got {}", given.shown()),
        OneOf(names) => {
            let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let (last, rest) = quoted.split_last().map_or(("", &[][..]), |(l, r)| (l, r));
            format!(
                "{head} {} or {last}, got {}",
                rest.join(", "),
                given.shown()
            )
        }
        FunctionOrNull => format!("{head} a function or null, got {}", given.shown()),
        ObjectOrNull => format!("{head} an object or null, got {}", given.shown()),
    })
}

/// Checks the options `entries` (key and value, `undefined` ones left out) of entry point
/// `what` against its table: every key known, every value of its kind.
fn check_entries(what: &str, entries: &[(String, Given)]) -> Result<(), String> {
    let table = table(what).ok_or_else(|| format!("no options are known for {what}"))?;
    for (key, given) in entries {
        let Some(&(_, kind)) = table.iter().find(|(name, _)| name == key) else {
            let known: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "unknown {what} option \"{key}\" (known: {})",
                known.join(", ")
            ));
        };
        check_one(what, key, kind, given)?;
    }
    Ok(())
}

/// A JS value's kind.
fn given(value: &JsValue) -> Given {
    if let Some(v) = value.as_f64() {
        Given::Number(v)
    } else if let Some(b) = value.as_bool() {
        Given::Boolean(b)
    } else if let Some(s) = value.as_string() {
        Given::Text(s)
    } else if value.is_null() {
        Given::Null
    } else if value.is_function() {
        Given::Function
    } else if value.is_object() {
        Given::Object
    } else if value.is_bigint() {
        Given::Other("bigint")
    } else {
        Given::Other("symbol")
    }
}

/// Checks the options object of `what` (`"ParserRegistry"`, `"TranscriptBuilder"`,
/// `"useTranscript"`): `undefined` and `null` are no options; otherwise an object whose every
/// key is one of the entry point's options, with a value of its kind (`undefined`: not given).
///
/// # Errors
/// `ParseboxOptionsError` saying which option is wrong and what it should be.
#[wasm_bindgen(js_name = checkOptions)]
pub fn check_options(
    what: &str,
    // Optional, and typed as an object the binding does not check, only so the raw export
    // takes a heap index, not an untyped `externref` (`any` in the published `.d.ts`).
    #[wasm_bindgen(unchecked_param_type = "unknown")] options: Option<js_sys::Object>,
) -> Result<(), JsValue> {
    // `undefined` and `null` arrive as `None`: no options given.
    let Some(options) = options.map(JsValue::from) else {
        return Ok(());
    };
    if !options.is_object() || options.is_function() {
        return Err(into_error(
            "ParseboxOptionsError",
            format!("{what} options must be an object"),
        ));
    }
    let object = js_sys::Object::from(options);
    let mut entries = Vec::new();
    for key in js_sys::Object::keys(&object).iter() {
        let value = js_sys::Reflect::get(&object, &key).unwrap_or(JsValue::UNDEFINED);
        if !value.is_undefined() {
            entries.push((key.as_string().unwrap_or_default(), given(&value)));
        }
    }
    check_entries(what, &entries).map_err(|m| into_error("ParseboxOptionsError", m))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(what: &str, key: &str, given: Given) -> Result<(), String> {
        check_entries(what, &[(key.to_owned(), given)])
    }

    #[test]
    fn each_kind_takes_its_values_and_names_what_it_wants() {
        let rows: &[(&str, &str, Given, Option<&str>)] = &[
            ("ParserRegistry", "lineBudgetMs", Given::Number(5.0), None),
            ("ParserRegistry", "lineBudgetMs", Given::Number(1e308), None),
            (
                "ParserRegistry",
                "lineBudgetMs",
                Given::Number(-1.0),
                Some("ParserRegistry option \"lineBudgetMs\" must be a positive number, got -1"),
            ),
            (
                "ParserRegistry",
                "lineBudgetMs",
                Given::Number(0.0),
                Some("got 0"),
            ),
            (
                "ParserRegistry",
                "lineBudgetMs",
                Given::Number(f64::NAN),
                Some("got NaN"),
            ),
            (
                "ParserRegistry",
                "lineBudgetMs",
                Given::Number(f64::INFINITY),
                Some("got Infinity"),
            ),
            (
                "ParserRegistry",
                "lineBudgetMs",
                Given::Text("5".into()),
                Some("must be a positive number, got \"5\""),
            ),
            (
                "ParserRegistry",
                "maxMemoryBytes",
                Given::Null,
                Some("positive number, got null"),
            ),
            ("ParserRegistry", "host", Given::Text("worker".into()), None),
            (
                "ParserRegistry",
                "host",
                Given::Text("thread".into()),
                Some("must be \"inline\", \"worker\" or \"auto\", got \"thread\""),
            ),
            ("ParserRegistry", "loadSource", Given::Function, None),
            ("ParserRegistry", "loadSource", Given::Null, None),
            (
                "ParserRegistry",
                "loadSource",
                Given::Text("/x".into()),
                Some("a function or null, got \"/x\""),
            ),
            (
                "ParserRegistry",
                "lineBudgetMS",
                Given::Number(5.0),
                Some("unknown ParserRegistry option \"lineBudgetMS\" (known: lineBudgetMs,"),
            ),
            ("TranscriptBuilder", "timeline", Given::Boolean(false), None),
            (
                "TranscriptBuilder",
                "timeline",
                Given::Text("yes".into()),
                Some("a boolean, got \"yes\""),
            ),
            (
                "TranscriptBuilder",
                "failedLineEntry",
                Given::Text("loud".into()),
                Some("\"parseError\" or \"generic\""),
            ),
            ("TranscriptBuilder", "maxChunks", Given::Number(0.5), None),
            (
                "TranscriptBuilder",
                "lineBudgetMs",
                Given::Number(5.0),
                Some("unknown TranscriptBuilder option"),
            ),
            ("useTranscript", "registry", Given::Object, None),
            ("useTranscript", "registry", Given::Null, None),
            (
                "useTranscript",
                "registry",
                Given::Number(1.0),
                Some("an object or null, got 1"),
            ),
            (
                "useTranscript",
                "censorUsernameInLogs",
                Given::Other("symbol"),
                Some("a boolean, got a symbol"),
            ),
        ];
        for (what, key, given, want) in rows {
            let got = check(what, key, given.clone());
            match want {
                None => assert_eq!(got, Ok(()), "{what}.{key} = {given:?}"),
                Some(part) => {
                    let message = got.expect_err(&format!("{what}.{key} = {given:?} is refused"));
                    assert!(
                        message.contains(part),
                        "{message:?} should contain {part:?}"
                    );
                }
            }
        }
    }

    /// Whether `{key: a value of kind}` deserialises as `T`.
    fn read_as<T: serde::de::DeserializeOwned>(key: &str, kind: Kind) -> Result<T, String> {
        let value = match kind {
            OneOf(names) => serde_json::json!(names[0]),
            Boolean => serde_json::json!(true),
            _ => serde_json::json!(1),
        };
        serde_json::from_str(&serde_json::json!({ key: value }).to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_option_checked_is_one_the_core_reads() {
        // Each table names the options of the type that reads them (the JS-only loader aside).
        for &(key, kind) in REGISTRY.iter().filter(|(key, _)| *key != "loadSource") {
            let read = read_as::<crate::options::RegistryOptions>(key, kind);
            assert!(read.is_ok(), "ParserRegistry {key}: {:?}", read.err());
        }
        for &(key, kind) in BUILDER {
            let read = read_as::<parsebox_live::TranscriptSettings>(key, kind);
            assert!(read.is_ok(), "TranscriptBuilder {key}: {:?}", read.err());
        }
    }

    #[test]
    fn an_unknown_entry_point_is_an_error_not_a_pass() {
        assert!(check_entries("Nothing", &[]).is_err());
    }
}
