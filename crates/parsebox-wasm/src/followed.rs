//! `FollowedRunCore`: a run followed from a chunk list handed over whole on every render
//! ([`FollowedRun`], the React hook's store) as a JS class.

use std::cell::{RefCell, RefMut};
use std::rc::Rc;

use parsebox_live::{FollowedRun, Transcripts};
use wasm_bindgen::prelude::*;

use crate::boundary::{chunk_ids, to_json};
use crate::chunk::{chunk_at, encoder, transcript_error, ChunkEncoder};
use crate::js_executor::{reentered, JsExecutor};
use crate::registry_core::RegistryCore;

/// The registry's followed runs, whose late answers its frame folds in.
type Followers = Transcripts<JsExecutor, FollowedRun<JsExecutor>>;

/// See the module's doc.
#[wasm_bindgen]
pub struct FollowedRunCore {
    /// Shared with the registry's frame (`followers`), which folds its late answers in.
    run: Rc<RefCell<FollowedRun<JsExecutor>>>,
    followers: Rc<RefCell<Followers>>,
}

impl FollowedRunCore {
    /// The run, for one call.
    fn hold(&self) -> Result<RefMut<'_, FollowedRun<JsExecutor>>, JsValue> {
        self.run.try_borrow_mut().map_err(|_| reentered())
    }
}

#[wasm_bindgen]
#[allow(clippy::cast_precision_loss)] // run ids are far below 2^53
impl FollowedRunCore {
    /// A followed run of `adapter_type` in `registry`, home paths redacted with `redact`.
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(constructor)]
    pub fn new(
        registry: &RegistryCore,
        adapter_type: &str,
        redact: bool,
    ) -> Result<FollowedRunCore, JsValue> {
        let run =
            FollowedRun::new(&registry.core, adapter_type, redact).map_err(transcript_error)?;
        let run = Rc::new(RefCell::new(run));
        let followers = Rc::clone(&registry.followers);
        followers
            .try_borrow_mut()
            .map_err(|_| reentered())?
            .add(&run);
        Ok(Self { run, followers })
    }

    /// The run's id in the core (late answers name it; a list that does not go on from the
    /// last one starts another).
    ///
    /// # Errors
    /// `ParseboxReentrancyError` from inside a call.
    pub fn run(&self) -> Result<f64, JsValue> {
        Ok(self.hold()?.run().0 as f64)
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
        let mut run = self.hold()?;
        let before = run.run();
        let changed = run
            .follow(&chunk_ids(ids), redact, |i| chunk_at(&encode, i))
            .map_err(|e| e.0)?;
        if run.run() != before {
            // Started anew: the frame finds it by its new run.
            drop(run);
            self.followers
                .try_borrow_mut()
                .map_err(|_| reentered())?
                .add(&self.run);
        }
        Ok(changed)
    }

    /// What the page's copy of the run's entries is to take since it last asked, and the
    /// window a render then shows, as JSON `{dropped, from, entries, first, keep, tail}`
    /// ([`parsebox_live::Shown`]); `undefined` when nothing changed.
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    pub fn shown(&mut self) -> Result<Option<String>, JsValue> {
        match self.hold()?.shown().map_err(transcript_error)? {
            Some(shown) => to_json(&shown).map(Some),
            None => Ok(None),
        }
    }
}
