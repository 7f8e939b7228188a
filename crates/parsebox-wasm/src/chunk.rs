//! Chunks as the page hands them over: one JSON text per chunk (`{ts, stream, chunk, seq?}`),
//! with the text's UTF-16 code units beside it when it is not well-formed (half a surrogate
//! pair), decoded the same way for a builder's `push` and for a followed list, so a chunk refused
//! on one is refused on the other. Also what the live crate's errors are called at the boundary.

use parsebox_live::{ChunkIn, TranscriptError};
use parsebox_transcript::Chunk;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::boundary::into_error;

#[wasm_bindgen]
extern "C" {
    /// The page's encoder of a followed list's chunks: chunk `i` of the list, as the core takes
    /// it (`chunk.js`' `encodeChunk`).
    #[wasm_bindgen(typescript_type = "(i: number) => [json: string, units?: Uint16Array]")]
    pub type ChunkEncoder;
}

/// The encoder a call was given (optional only so the raw export takes a heap index, not an
/// untyped `externref`).
pub(crate) fn encoder(encode: Option<ChunkEncoder>) -> Result<js_sys::Function, JsValue> {
    encode.map(JsCast::unchecked_into).ok_or_else(|| {
        into_error(
            "ParseboxOptionsError",
            "a followed list needs its chunk encoder",
        )
    })
}

/// A chunk's JSON text decoded, or a `ParseboxChunkError` that says what a chunk is.
pub(crate) fn chunk_from_json(chunk_json: &str) -> Result<Chunk, JsValue> {
    serde_json::from_str(chunk_json).map_err(|e| {
        into_error(
            "ParseboxChunkError",
            format!("invalid chunk: {e} (a chunk is {{ ts: string, stream: \"stdout\" | \"stderr\" | \"system\", chunk: string, seq?: number }})"),
        )
    })
}

/// A refused transcript call as a named error.
pub(crate) fn transcript_error(e: TranscriptError) -> JsValue {
    let name = match e {
        TranscriptError::Options(_) => "ParseboxOptionsError",
        TranscriptError::Disposed => "ParseboxDisposedError",
        TranscriptError::Reentered => "ParseboxReentrancyError",
        TranscriptError::Chunk(_) => "ParseboxChunkError",
        TranscriptError::Memory(_) => "ParseboxMemoryError",
    };
    into_error(name, e)
}

/// A JS error on its way out of a followed list's pushes: what the page's encoder threw, or a
/// transcript call refused.
pub(crate) struct Thrown(pub(crate) JsValue);

impl From<TranscriptError> for Thrown {
    fn from(e: TranscriptError) -> Self {
        Self(transcript_error(e))
    }
}

/// Chunk `i` of a followed list, as the page's `encode(i)` gives it: `[json]`, or `[json,
/// units]` for a text that is not well-formed.
pub(crate) fn chunk_at(encode: &js_sys::Function, i: usize) -> Result<ChunkIn, Thrown> {
    // A list's index is far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let at = JsValue::from_f64(i as f64);
    let encoded = encode.call1(&JsValue::NULL, &at).map_err(Thrown)?;
    let encoded: js_sys::Array = encoded.dyn_into().map_err(|_| {
        Thrown(into_error(
            "ParseboxChunkError",
            "a chunk's encoding is [json, units?]",
        ))
    })?;
    let json = encoded.get(0).as_string().unwrap_or_default();
    let chunk = chunk_from_json(&json).map_err(Thrown)?;
    let units = encoded.get(1);
    if units.is_undefined() {
        return Ok(ChunkIn::Text(chunk));
    }
    let units: js_sys::Uint16Array = units.dyn_into().map_err(|_| {
        Thrown(into_error(
            "ParseboxChunkError",
            "a chunk's code units are a Uint16Array",
        ))
    })?;
    Ok(ChunkIn::Utf16(chunk, units.to_vec()))
}
