//! `FollowedRunCore`: a run followed from a chunk list handed over whole on every render
//! ([`FollowedRun`], the React hook's store) as a JS class.

use parsebox_live::FollowedRun;
use wasm_bindgen::prelude::*;

use crate::boundary::{chunk_ids, to_json};
use crate::chunk::{chunk_at, encoder, transcript_error, ChunkEncoder};
use crate::host_core::HostCore;
use crate::js_executor::JsExecutor;

/// See the module's doc.
#[wasm_bindgen]
pub struct FollowedRunCore {
    run: FollowedRun<JsExecutor>,
}

#[wasm_bindgen]
#[allow(clippy::cast_precision_loss)] // run ids are far below 2^53
impl FollowedRunCore {
    /// A followed run of `adapter_type` in `host`, home paths redacted with `redact`.
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: &HostCore,
        adapter_type: &str,
        redact: bool,
    ) -> Result<FollowedRunCore, JsValue> {
        let run = FollowedRun::new(&host.core, adapter_type, redact).map_err(transcript_error)?;
        Ok(Self { run })
    }

    /// The run's id in the core (late answers name it; a list that does not go on from the
    /// last one starts another).
    pub fn run(&self) -> f64 {
        self.run.run().0 as f64
    }

    /// Takes the list of chunk ids `ids`, `encode(i)` encoding its chunk `i` when the core asks
    /// for it (`[json, units?]`); whether what a render shows may have changed.
    ///
    /// # Errors
    /// What `encode` throws; `ParseboxChunkError` for a chunk the core refuses.
    pub fn follow(
        &mut self,
        ids: &[f64],
        redact: bool,
        encode: Option<ChunkEncoder>,
    ) -> Result<bool, JsValue> {
        let encode = encoder(encode)?;
        self.run
            .follow(&chunk_ids(ids), redact, |i| chunk_at(&encode, i))
            .map_err(|e| e.0)
    }

    /// The page's frame: folds in the run's late answers; whether the window changed.
    ///
    /// # Errors
    /// `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = applyLate)]
    pub fn apply_late(&mut self) -> Result<bool, JsValue> {
        self.run.apply_late().map_err(transcript_error)
    }

    /// What the page's copy of the run's entries is to take since it last asked, and the
    /// window a render then shows, as JSON `{dropped, from, entries, first, keep, tail}`
    /// ([`parsebox_live::Shown`]); `undefined` when nothing changed.
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    pub fn shown(&mut self) -> Result<Option<String>, JsValue> {
        match self.run.shown().map_err(transcript_error)? {
            Some(shown) => to_json(&shown).map(Some),
            None => Ok(None),
        }
    }
}
