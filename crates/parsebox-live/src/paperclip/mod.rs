//! Paperclip compatibility in one place. A [`FollowedRun`] is a run whose chunk list the page
//! hands over whole on every render: chunk ids in, whether what a render shows changed and that
//! window out. [`Paperclip`] is what `parsebox/paperclip`'s `buildTranscript` needs of a
//! registry: the followed runs it keeps between renders (`kept.rs`: which one a list goes on
//! from, which to let go), and their late answers folded in at the page's frame. The page's JS
//! only numbers chunk objects and encodes the chunks the core asks for.

mod followed;
mod kept;

use std::rc::Rc;

use parsebox_host::RunId;
use serde::Serialize;

use crate::executor::Executor;
use crate::shared::SharedCore;
use crate::transcript::TranscriptError;

pub use followed::{ChunkIn, FollowedRun, Shown};
pub use kept::KEEP_RUNS;

use kept::{Continued, KeptRuns};

impl<X: Executor> Continued for FollowedRun<X> {
    fn adapter_type(&self) -> &str {
        FollowedRun::adapter_type(self)
    }

    fn continues(&self, ids: &[u64]) -> bool {
        FollowedRun::continues(self, ids)
    }
}

/// What one `buildTranscript` gives the page.
#[derive(Serialize, Debug)]
pub struct Built<'a> {
    /// The run the list was followed in (the page's copy of its entries is found by it).
    pub run: RunId,
    /// The run let go to make room, if one was (the page lets go of its copy).
    pub gone: Option<RunId>,
    /// What the run's copy takes, and the window then shown; `None` when nothing changed.
    pub shown: Option<Shown<'a>>,
}

/// See the module's doc.
pub struct Paperclip<X: Executor> {
    core: Rc<SharedCore<X>>,
    kept: KeptRuns<FollowedRun<X>>,
}

impl<X: Executor> Paperclip<X> {
    /// The followed runs of the registry whose core is `core` (none yet).
    pub fn new(core: Rc<SharedCore<X>>) -> Self {
        Self {
            core,
            kept: KeptRuns::default(),
        }
    }

    /// `buildTranscript` of the list `ids` of `adapter_type`'s chunks, home paths redacted with
    /// `redact`. The kept run the list goes on from takes only its new chunks (`chunk_at(i)`
    /// encodes the list's chunk `i`); a list none goes on from starts a new run, letting go of
    /// the one used least recently past [`KEEP_RUNS`]. Returns the run, the run let go, and what
    /// the page's copy of the run's entries is to take ([`FollowedRun::shown`]).
    ///
    /// # Errors
    /// As [`FollowedRun::follow`] and [`FollowedRun::shown`].
    pub fn build_transcript<E: From<TranscriptError>>(
        &mut self,
        adapter_type: &str,
        ids: &[u64],
        redact: bool,
        chunk_at: impl FnMut(usize) -> Result<ChunkIn, E>,
    ) -> Result<Built<'_>, E> {
        let mut gone = None;
        if !self.kept.bring_forward(adapter_type, ids) {
            let run = FollowedRun::new(&self.core, adapter_type, redact)?;
            gone = self.kept.keep(run).map(|g| g.run());
        }
        let run = self.kept.latest().ok_or(TranscriptError::Disposed)?;
        run.follow(ids, redact, chunk_at)?;
        Ok(Built {
            run: run.run(),
            gone,
            shown: run.shown()?,
        })
    }

    /// The page's frame: folds in the late answers of the kept runs among `builders` (the runs
    /// whose builders the frame calls back), leaving the others. Returns whether a kept run's
    /// window changed (the page renders again).
    ///
    /// # Errors
    /// [`TranscriptError::Reentered`] from inside a call.
    pub fn at_frame(&mut self, builders: &mut Vec<u64>) -> Result<bool, TranscriptError> {
        let mut changed = false;
        for run in self.kept.iter_mut() {
            let id = run.run().0;
            if let Some(at) = builders.iter().position(|&b| b == id) {
                builders.remove(at);
                changed |= run.apply_late()?;
            }
        }
        Ok(changed)
    }

    /// Lets every kept run go.
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}
