//! The wasm-bindgen binding of parsebox: it converts arguments, calls the registry core
//! (`parsebox-registry`), encodes results and maps errors — nothing else. The classes here are
//! the low-level layer under the package's `ParserRegistry` and `TranscriptBuilder` (see
//! `js/index.js`), which adds what only JavaScript can do: the async source loader, change
//! listeners, `Symbol.dispose`, and re-instantiating the module after a wasm trap.
//!
//! Entries cross the boundary as one JSON string per call: measured faster than building JS
//! objects field by field (`FINDINGS.md`), and `JSON.parse` gives plain objects.

mod builder;
mod builtin;
mod registry;

use wasm_bindgen::prelude::*;

pub use builder::TranscriptBuilderCore;
pub use registry::RegistryCore;

/// Installs the panic hook, so a Rust panic is reported on the console before the trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A named `Error` for host misuse (bad options, unknown run, …): the one way this binding
/// throws. Guest failures never come here; they are data in status and diagnostics.
pub(crate) fn into_error(name: &str, message: impl std::fmt::Display) -> JsValue {
    let err = js_sys::Error::new(&message.to_string());
    err.set_name(name);
    err.into()
}

/// Serialises a value to a JSON string for the JS side to `JSON.parse`.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, JsValue> {
    serde_json::to_string(value)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../js/types.d.ts");
