//! `TranscriptBuilderCore`: a transcript of the live core ([`LiveTranscript`]) as a JS class:
//! each method decodes its arguments, makes one call and encodes what it returns.

use parsebox_live::{LiveTranscript, TranscriptSettings, Update};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::boundary::{into_error, to_json};
use crate::chunk::{chunk_from_json, transcript_error};
use crate::host_core::HostCore;
use crate::js_executor::JsExecutor;

/// Most bytes the reused output buffer keeps between calls (a rebuild of a long run may grow it
/// far past what a push needs).
const KEPT_OUTPUT_BYTES: usize = 1 << 20;

/// Serialises `value` as JSON into `buf` (cleared first, its capacity reused from call to call:
/// no regrowth per update) and hands it to JS as one string.
fn encode(buf: &mut Vec<u8>, value: &impl Serialize) -> Result<js_sys::JsString, JsValue> {
    buf.clear();
    if buf.capacity() > KEPT_OUTPUT_BYTES {
        buf.shrink_to(KEPT_OUTPUT_BYTES);
    }
    serde_json::to_writer(&mut *buf, value)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))?;
    // serde_json writes UTF-8 only; the check is a formality.
    let text = std::str::from_utf8(buf)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))?;
    Ok(js_sys::JsString::from(text))
}

/// An [`Update`] as JS reads it: `[changes]`, or with a timeline `[changes, timelineChanges]`,
/// each a JSON string. Two strings, not one: the items' wire form is mostly ASCII (their texts
/// are references to entries), so JS decodes and parses it as a one-byte string, which an
/// entry's one non-Latin-1 character would prevent in a shared string (measured: a fifth less
/// time to decode and parse).
fn encode_update(buf: &mut Vec<u8>, update: &Update<'_>) -> Result<Vec<js_sys::JsString>, JsValue> {
    let mut out = vec![encode(buf, &update.changes)?];
    if let Some(timeline) = &update.timeline {
        out.push(encode(buf, timeline)?);
    }
    Ok(out)
}

/// One transcript of one adapter type, built chunk by chunk.
#[wasm_bindgen]
pub struct TranscriptBuilderCore {
    live: LiveTranscript<JsExecutor>,
    /// The JSON of the last result, reused (see [`encode`]).
    out: Vec<u8>,
}

#[wasm_bindgen]
#[allow(clippy::cast_precision_loss)] // run ids, indices and counts are far below 2^53
impl TranscriptBuilderCore {
    /// A builder with its own run of `adapter_type` in `host`.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types; `ParseboxDisposedError`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: &HostCore,
        adapter_type: &str,
        options_json: &str,
    ) -> Result<TranscriptBuilderCore, JsValue> {
        let settings: TranscriptSettings = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid TranscriptBuilder options: {e}"),
            )
        })?;
        let live =
            LiveTranscript::new(&host.core, adapter_type, settings).map_err(transcript_error)?;
        Ok(Self {
            live,
            out: Vec::new(),
        })
    }

    /// The run's id in the host core (late answers name it).
    pub fn run(&self) -> f64 {
        self.live.run().0 as f64
    }

    /// Appends a chunk (`{ts, stream, chunk, seq?}` as JSON); returns two JSON strings,
    /// `{"dropped":n,"from":n,"length":n,"entries":[…]}` (the entries from `from` on changed)
    /// and `{"changed":[…],"added":[…],"removed":[…]}` (the timeline items that changed or were
    /// added, in their wire form, and the ids of those removed); the second is absent when the
    /// builder keeps no timeline.
    ///
    /// # Errors
    /// `ParseboxChunkError` for a malformed chunk; `ParseboxMemoryError` when it does not fit.
    pub fn push(&mut self, chunk_json: &str) -> Result<Vec<js_sys::JsString>, JsValue> {
        let chunk = chunk_from_json(chunk_json)?;
        let update = self.live.push(&chunk, None).map_err(transcript_error)?;
        encode_update(&mut self.out, &update)
    }

    /// Appends a chunk whose text is not well-formed UTF-16 (it holds half a surrogate pair):
    /// `chunk_json` is the chunk as for `push` with an empty text, `units` its text's code
    /// units. Same result shape as `push`.
    ///
    /// # Errors
    /// As `push`.
    #[wasm_bindgen(js_name = pushUtf16)]
    pub fn push_utf16(
        &mut self,
        chunk_json: &str,
        units: &[u16],
    ) -> Result<Vec<js_sys::JsString>, JsValue> {
        let chunk = chunk_from_json(chunk_json)?;
        let update = self
            .live
            .push_utf16(&chunk, units, None)
            .map_err(transcript_error)?;
        encode_update(&mut self.out, &update)
    }

    /// Flushes the pending partial line and ends the timeline's run (calls still pending
    /// become unanswered), completing a rebuild under way first; same result shape as `push`.
    pub fn finish(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        let update = self.live.finish();
        encode_update(&mut self.out, &update)
    }

    /// Re-parses every chunk from scratch (after the adapter's parser changed) and rebuilds
    /// the timeline from it; returns `[{"dropped":0,"from":0,"length":n,"entries":[…]}]` (no
    /// timeline changes: `timeline()` gives the rebuilt one whole). `sliced`: for at most the
    /// registry's `rebuildSliceMs` (when it has one); the rest goes on at the JS side's next
    /// frames (`applyLate`), each slice's changes shaped as `push`'s.
    pub fn rebuild(&mut self, sliced: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        let changes = self.live.rebuild(sliced);
        Ok(vec![encode(&mut self.out, &changes)?])
    }

    /// The JS side's frame: folds in the late answers the core holds for this builder's run,
    /// goes on with a rebuild under way for one slice, and places in the timeline the lines
    /// that have waited across a frame; same result shape as `push`, or `[]` when nothing
    /// changed (no listener needs to hear of it).
    ///
    /// # Errors
    /// `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = applyLate)]
    pub fn apply_late(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        match self.live.apply_late().map_err(transcript_error)? {
            Some(update) => encode_update(&mut self.out, &update),
            None => Ok(Vec::new()),
        }
    }

    /// Turns redaction of home paths on or off without re-parsing; same result shape as
    /// `push` (every entry changed when the setting did).
    #[wasm_bindgen(js_name = setRedactHomePaths)]
    pub fn set_redact_home_paths(&mut self, on: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        let update = self.live.set_redact_home_paths(on);
        encode_update(&mut self.out, &update)
    }

    /// What the builder holds and has let go of (`BuilderCounts` as JSON).
    pub fn counts(&self) -> Result<String, JsValue> {
        to_json(&self.live.counts())
    }

    /// The whole transcript as a JSON array.
    pub fn entries(&self) -> Result<String, JsValue> {
        to_json(&self.live.entries())
    }

    /// The whole timeline as a JSON array of items.
    ///
    /// # Errors
    /// `ParseboxOptionsError` when the builder was made with `timeline: false`.
    pub fn timeline(&self) -> Result<String, JsValue> {
        let timeline = self.live.timeline().map_err(transcript_error)?;
        to_json(&timeline.items())
    }
}
