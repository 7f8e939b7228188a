//! A JSON value kept as its compact text: what a `tool_call`'s `input` holds. A parsed
//! `serde_json::Value` costs the core about ten times its JSON text (a map entry, a key string
//! and a boxed number for every field: ~140 bytes a field of `{"key1":1,…}` in the wasm core),
//! and a tool input is the largest value a parser returns (issue 54: dense inputs trapped the
//! core). The text is written once, from the validated value, by the same writer that wrote the
//! entry for the page before, so the page gets the same bytes; the entry and the timeline's tool
//! card share it.
//!
//! It serialises as the value itself (raw, with `serde_json`), deserialises from any JSON value,
//! and reads back as a [`Value`] on demand ([`RawJson::value`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value as its compact text, shared.
#[derive(Clone)]
pub struct RawJson(Arc<Box<RawValue>>);

impl RawJson {
    /// `value`'s compact JSON text (keys in the value's order, every double as it reads back).
    pub fn from_value(value: &Value) -> Self {
        // Writing a `Value` cannot fail (its keys are strings): the default (`null`) is never
        // taken.
        Self(Arc::new(
            serde_json::value::to_raw_value(value).unwrap_or_default(),
        ))
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value, parsed from the text again (a copy the caller owns).
    pub fn value(&self) -> Value {
        read_value(self.get()).unwrap_or(Value::Null)
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.get() == "null"
    }
}

/// `text` read as a [`Value`], or `None` when it is not one JSON value. The core's crates read
/// JSON text through this crate's functions: `serde_json` builds its whole reader, exact float
/// reader included (~20 KB of wasm), in every crate that reads JSON from text.
#[inline(never)]
pub fn read_value(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// The top-level fields of `text` when it is a JSON object, each value left as its text (a
/// large object's fields stay unparsed); `None` when it is not an object. One reader, as
/// [`read_value`] says.
#[inline(never)]
pub fn read_fields(text: &str) -> Option<HashMap<String, &RawValue>> {
    serde_json::from_str(text).ok()
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self::from_value(&value)
    }
}

impl From<&Value> for RawJson {
    fn from(value: &Value) -> Self {
        Self::from_value(value)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.get() == other.get()
    }
}

impl PartialEq<Value> for RawJson {
    fn eq(&self, other: &Value) -> bool {
        self.value() == *other
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self.0).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|v| Self::from_value(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn it_writes_the_value_as_the_entry_writer_did_and_reads_it_back() {
        let value = json!({ "z": 1, "a": [0.1, -0.0, 1e300, "é\u{2028}"], "n": null });
        let raw = RawJson::from_value(&value);
        assert_eq!(raw.get(), serde_json::to_string(&value).unwrap_or_default());
        assert_eq!(raw.value(), value);
        let entry = json!({ "input": raw });
        assert_eq!(entry.get("input"), Some(&value));
        let back: RawJson =
            serde_json::from_str(raw.get()).unwrap_or_else(|_| RawJson::from(Value::Null));
        assert_eq!(back, raw);
        assert!(RawJson::from(Value::Null).is_null());
    }
}
