//! What crosses the JS boundary, converted one way for the whole binding: misuse as a named
//! `Error`, results as JSON text (a transcript's updates into a buffer reused from call to
//! call), a thrown value as a sentence, the clock, chunk ids.

use parsebox_live::Update;
use parsebox_transcript::lone_surrogates::{to_page_json, unmark_json};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A named `Error` for host misuse (bad options, unknown run, …): the one way this binding
/// throws. Guest failures never come here; they are data in status and diagnostics.
pub(crate) fn into_error(name: &str, message: impl std::fmt::Display) -> JsValue {
    let err = js_sys::Error::new(&message.to_string());
    err.set_name(name);
    err.into()
}

/// Serialises a value to a JSON string for the JS side to `JSON.parse`: a parser's lone
/// surrogates are written as JavaScript writes them (`unmark_json`), so `JSON.parse` gives
/// them back.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, JsValue> {
    to_page_json(value)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))
}

/// A thrown JS value as a sentence (for a line's failure or an engine's death), as
/// `Error.prototype.toString` words an `Error`. Read through `Reflect.get`, whose exceptions
/// are caught: an `Error` whose `name` or `message` getter throws must not unwind through the
/// core while a call holds it.
pub(crate) fn describe(e: &JsValue) -> String {
    if e.dyn_ref::<js_sys::Error>().is_none() {
        return e
            .as_string()
            .unwrap_or_else(|| "a non-Error value was thrown".to_owned());
    }
    let name = error_text(e, "name").unwrap_or_else(|| "Error".to_owned());
    match error_text(e, "message").filter(|m| !m.is_empty()) {
        Some(message) if !name.is_empty() => format!("{name}: {message}"),
        Some(message) => message,
        None => name,
    }
}

/// The `requestedBytes` of a thrown value (engine.js's `EngineMemoryError` names the
/// allocation that did not fit); 0 when it has none.
pub(crate) fn requested_bytes(e: &JsValue) -> f64 {
    js_sys::Reflect::get(e, &JsValue::from_str("requestedBytes"))
        .ok()
        .and_then(|b| b.as_f64())
        .unwrap_or(0.0)
}

/// An `Error`'s `name` or `message` when it is a string; `None` when it is not, or its getter
/// throws.
pub(crate) fn error_text(e: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(e, &JsValue::from_str(key))
        .ok()?
        .as_string()
}

#[wasm_bindgen]
extern "C" {
    /// The executor's monotonic clock, in milliseconds (`performance.now()`: browsers,
    /// Workers and Node all have it).
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Now, on the clock every deadline of the host core is measured with.
pub(crate) fn now_ms() -> f64 {
    performance_now()
}

/// Chunk ids as the JS side numbers them (whole numbers from 1).
pub(crate) fn chunk_ids(ids: &[f64]) -> Vec<u64> {
    ids.iter().map(|&id| id as u64).collect()
}

/// Most bytes the reused output buffer keeps between calls: a push's update fits, and a rebuild
/// of a long run, which may grow it far past that, gives it back. What a builder keeps counts
/// against its memory budget (`parsebox_live::memory::CALL_SLACK_BYTES` leaves room for it).
const KEPT_OUTPUT_BYTES: usize = 64 << 10;

/// Serialises `value` as JSON into `buf` (cleared first, its capacity reused from call to call:
/// no regrowth per update) and hands it to JS as one string. A buffer grown past
/// [`KEPT_OUTPUT_BYTES`] (a rebuild's whole transcript) is let go of once JS has the string, so
/// what a builder keeps between calls is small (it counts against its memory budget).
pub(crate) fn encode(
    buf: &mut Vec<u8>,
    value: &impl Serialize,
) -> Result<js_sys::JsString, JsValue> {
    buf.clear();
    let encoded = serde_json::to_writer(&mut *buf, value)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))
        // serde_json writes UTF-8 only; the check is a formality.
        .and_then(|()| {
            std::str::from_utf8(buf)
                .map(|json| js_sys::JsString::from(&*unmark_json(json)))
                .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))
        });
    if buf.capacity() > KEPT_OUTPUT_BYTES {
        buf.clear();
        buf.shrink_to(KEPT_OUTPUT_BYTES);
    }
    encoded
}

/// An [`Update`] as JS reads it: `[changes]`, or with a timeline `[changes, timelineChanges]`,
/// each a JSON string. Two strings, not one: the items' wire form is mostly ASCII (their texts
/// are references to entries), so JS decodes and parses it as a one-byte string, which an
/// entry's one non-Latin-1 character would prevent in a shared string (measured: a fifth less
/// time to decode and parse).
pub(crate) fn encode_update(
    buf: &mut Vec<u8>,
    update: &Update<'_>,
) -> Result<Vec<js_sys::JsString>, JsValue> {
    let mut out = vec![encode(buf, &update.changes)?];
    if let Some(timeline) = &update.timeline {
        out.push(encode(buf, timeline)?);
    }
    Ok(out)
}
