//! `TranscriptBuilderCore`: a transcript of the live core ([`LiveTranscript`]) as a JS class:
//! each method decodes its arguments, makes one call and encodes what it returns.

use std::cell::{RefCell, RefMut};
use std::rc::Rc;

use parsebox_live::{LiveTranscript, TranscriptSettings};
use wasm_bindgen::prelude::*;

use crate::boundary::{encode, encode_update, into_error, to_json};
use crate::chunk::{chunk_from_json, transcript_error};
use crate::js_executor::{reentered, JsExecutor};
use crate::registry_core::RegistryCore;

/// The transcript, for one call.
fn hold(
    live: &RefCell<LiveTranscript<JsExecutor>>,
) -> Result<RefMut<'_, LiveTranscript<JsExecutor>>, JsValue> {
    live.try_borrow_mut().map_err(|_| reentered())
}

/// One transcript of one adapter type, built chunk by chunk.
#[wasm_bindgen]
pub struct TranscriptBuilderCore {
    /// Shared with the registry's frame ([`parsebox_live::Transcripts`]), which folds its late
    /// answers in.
    live: Rc<RefCell<LiveTranscript<JsExecutor>>>,
    /// The JSON of the last result, reused (see [`encode`]).
    out: Vec<u8>,
}

#[wasm_bindgen]
#[allow(clippy::cast_precision_loss)] // run ids, indices and counts are far below 2^53
impl TranscriptBuilderCore {
    /// A builder with its own run of `adapter_type` in `registry`.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types; `ParseboxDisposedError`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        registry: &RegistryCore,
        adapter_type: &str,
        options_json: &str,
    ) -> Result<TranscriptBuilderCore, JsValue> {
        let settings: TranscriptSettings = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid TranscriptBuilder options: {e}"),
            )
        })?;
        let live = LiveTranscript::new(&registry.core, adapter_type, settings)
            .map_err(transcript_error)?;
        let live = Rc::new(RefCell::new(live));
        registry
            .transcripts
            .try_borrow_mut()
            .map_err(|_| reentered())?
            .add(&live);
        Ok(Self {
            live,
            out: Vec::new(),
        })
    }

    /// The run's id in the host core (late answers name it).
    pub fn run(&self) -> Result<f64, JsValue> {
        Ok(hold(&self.live)?.run().0 as f64)
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
        let out = &mut self.out;
        hold(&self.live)?.metered(|live| {
            let update = live.push(&chunk, None).map_err(transcript_error)?;
            encode_update(out, &update)
        })
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
        let out = &mut self.out;
        hold(&self.live)?.metered(|live| {
            let update = live
                .push_utf16(&chunk, units, None)
                .map_err(transcript_error)?;
            encode_update(out, &update)
        })
    }

    /// Flushes the pending partial line and ends the timeline's run (calls still pending
    /// become unanswered), completing a rebuild under way first; same result shape as `push`.
    pub fn finish(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        let out = &mut self.out;
        hold(&self.live)?.metered(|live| encode_update(out, &live.finish()))
    }

    /// Re-parses every chunk from scratch (after the adapter's parser changed) and rebuilds
    /// the timeline from it; returns `[{"dropped":0,"from":0,"length":n,"entries":[…]}]` (no
    /// timeline changes: `timeline()` gives the rebuilt one whole). `sliced`: for at most the
    /// registry's `rebuildSliceMs` (when it has one); the rest goes on at the JS side's next
    /// frames (`applyLate`), each slice's changes shaped as `push`'s.
    pub fn rebuild(&mut self, sliced: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        let out = &mut self.out;
        hold(&self.live)?.metered(|live| Ok(vec![encode(out, &live.rebuild(sliced))?]))
    }

    /// Turns redaction of home paths on or off without re-parsing; same result shape as
    /// `push` (every entry changed when the setting did).
    #[wasm_bindgen(js_name = setRedactHomePaths)]
    pub fn set_redact_home_paths(&mut self, on: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        let out = &mut self.out;
        hold(&self.live)?.metered(|live| encode_update(out, &live.set_redact_home_paths(on)))
    }

    /// What the builder holds and has let go of (`BuilderCounts` as JSON).
    pub fn counts(&self) -> Result<String, JsValue> {
        to_json(&hold(&self.live)?.counts())
    }

    /// The whole transcript as a JSON array.
    pub fn entries(&self) -> Result<String, JsValue> {
        to_json(&hold(&self.live)?.entries())
    }

    /// The whole timeline as a JSON array of items.
    ///
    /// # Errors
    /// `ParseboxOptionsError` when the builder was made with `timeline: false`.
    pub fn timeline(&self) -> Result<String, JsValue> {
        let live = hold(&self.live)?;
        let items = live.timeline_items().map_err(transcript_error)?;
        to_json(&items)
    }
}
