//! [`Transcripts`]: a registry's transcripts as its frame sees them, so the late answers of
//! every transcript a frame calls back are folded in by one call of the page, not one per
//! transcript. A transcript is anything that folds a run's late answers in ([`FoldsLate`]): a
//! [`LiveTranscript`] (the `TranscriptBuilder`), or a [`FollowedRun`] (the React hook's store).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use parsebox_host::RunId;

use super::update::Update;
use super::{LiveTranscript, TranscriptError};
use crate::executor::Executor;
use crate::paperclip::FollowedRun;
use crate::shared::SharedCore;

/// A page-owned transcript of one run, into which a frame folds that run's late answers.
pub trait FoldsLate {
    /// What a fold that changed something hands the page.
    type Update<'a>
    where
        Self: 'a;

    /// The run whose answers it takes (a followed run's changes when a list starts it anew).
    fn run(&self) -> RunId;

    /// Folds in the run's late answers: what changed, or `None` when nothing did.
    ///
    /// # Errors
    /// [`TranscriptError::Reentered`] from inside a call.
    fn apply_late(&mut self) -> Result<Option<Self::Update<'_>>, TranscriptError>;

    /// Runs `call` as one call of the page, its memory measured as a whole
    /// ([`LiveTranscript::metered`]); by default, just runs it.
    fn metered<R>(&mut self, call: impl FnOnce(&mut Self) -> R) -> R {
        call(self)
    }
}

impl<X: Executor> FoldsLate for LiveTranscript<X> {
    type Update<'a>
        = Update<'a>
    where
        X: 'a;

    fn run(&self) -> RunId {
        LiveTranscript::run(self)
    }

    fn apply_late(&mut self) -> Result<Option<Update<'_>>, TranscriptError> {
        LiveTranscript::apply_late(self)
    }

    fn metered<R>(&mut self, call: impl FnOnce(&mut Self) -> R) -> R {
        LiveTranscript::metered(self, call)
    }
}

impl<X: Executor> FoldsLate for FollowedRun<X> {
    /// Only that the window changed: the page asks for it when it renders.
    type Update<'a>
        = ()
    where
        X: 'a;

    fn run(&self) -> RunId {
        FollowedRun::run(self)
    }

    fn apply_late(&mut self) -> Result<Option<()>, TranscriptError> {
        Ok(FollowedRun::apply_late(self)?.then_some(()))
    }
}

/// See the module's doc. It holds each transcript weakly: the page owns it, and one let go
/// is forgotten here at the next frame, or when the map has doubled since it was last swept.
pub struct Transcripts<X: Executor, T> {
    core: Rc<SharedCore<X>>,
    by_run: HashMap<RunId, Weak<RefCell<T>>>,
    /// `by_run`'s size after its last sweep (at least 64).
    swept: usize,
}

impl<X: Executor, T: FoldsLate> Transcripts<X, T> {
    /// The transcripts of the registry whose core is `core` (none yet).
    pub fn new(core: Rc<SharedCore<X>>) -> Self {
        Self {
            core,
            by_run: HashMap::new(),
            swept: 64,
        }
    }

    /// Adds `transcript` under its run: the frames that call that run back fold its late
    /// answers in here. Added again after its run changed (a followed list started anew), it
    /// is found by the new run, and its old run is forgotten at the next sweep.
    pub fn add(&mut self, transcript: &Rc<RefCell<T>>) {
        let Ok(run) = transcript.try_borrow().map(|t| t.run()) else {
            return;
        };
        self.by_run.insert(run, Rc::downgrade(transcript));
        if self.by_run.len() >= self.swept * 2 {
            self.sweep();
            self.swept = self.by_run.len().max(64);
        }
    }

    /// How many runs it knows a transcript of (those let go and not yet swept included).
    pub fn len(&self) -> usize {
        self.by_run.len()
    }

    /// Whether it knows none.
    pub fn is_empty(&self) -> bool {
        self.by_run.is_empty()
    }

    /// Forgets the transcripts let go of, and the runs a transcript has since left.
    fn sweep(&mut self) {
        self.by_run.retain(|run, t| {
            t.upgrade()
                .is_some_and(|t| t.try_borrow().map_or(true, |t| t.run() == *run))
        });
    }

    /// The page's frame: for each run of `runs` (the runs a frame calls back) that is a
    /// transcript here, folds in its late answers and hands what changed to `each` (nothing
    /// for a transcript whose frame changed nothing), and takes the run out of `runs`; the runs
    /// left are another's to call back. A transcript that a call under way holds (a parser
    /// inside it reached the page's frame) is called back at the next frame.
    ///
    /// # Errors
    /// What `each` returns.
    pub fn at_frame<E>(
        &mut self,
        runs: &mut Vec<u64>,
        mut each: impl FnMut(RunId, T::Update<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.sweep();
        let mut left = Vec::new();
        for id in runs.drain(..) {
            let Some(transcript) = self.by_run.get(&RunId(id)).and_then(Weak::upgrade) else {
                left.push(id);
                continue;
            };
            let folded = match transcript.try_borrow_mut() {
                // The fold and the handing over of what changed are one call of the page.
                Ok(mut transcript) => transcript.metered(|t| match t.apply_late() {
                    Ok(Some(update)) => each(RunId(id), update).map(|()| true),
                    Ok(None) => Ok(true),
                    Err(_) => Ok(false),
                })?,
                Err(_) => false,
            };
            if !folded {
                // A call under way holds it or the core: its answers wait for the next frame.
                if let Ok(mut s) = self.core.enter() {
                    s.call_builder_back(RunId(id));
                }
            }
        }
        *runs = left;
        Ok(())
    }
}
