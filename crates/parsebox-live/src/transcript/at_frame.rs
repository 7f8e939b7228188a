//! [`Transcripts`]: a registry's transcripts as its frame sees them, so the late answers of
//! every transcript a frame calls back are folded in by one call of the page, not one per
//! transcript.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use parsebox_host::RunId;

use super::update::Update;
use super::LiveTranscript;
use crate::executor::Executor;
use crate::shared::SharedCore;

/// See the module's doc. It holds each transcript weakly: the page owns it, and one let go
/// is forgotten here at the next frame.
pub struct Transcripts<X: Executor> {
    core: Rc<SharedCore<X>>,
    by_run: HashMap<RunId, Weak<RefCell<LiveTranscript<X>>>>,
}

impl<X: Executor> Transcripts<X> {
    /// The transcripts of the registry whose core is `core` (none yet).
    pub fn new(core: Rc<SharedCore<X>>) -> Self {
        Self {
            core,
            by_run: HashMap::new(),
        }
    }

    /// Adds `transcript`: the frames that call its run back fold its late answers in here.
    pub fn add(&mut self, transcript: &Rc<RefCell<LiveTranscript<X>>>) {
        let run = transcript.borrow().run();
        self.by_run.insert(run, Rc::downgrade(transcript));
    }

    /// The page's frame: for each run of `runs` (the runs a frame calls back) that is a
    /// transcript here, folds in its late answers and hands what changed to `each` (nothing
    /// for a transcript whose frame changed nothing), and takes the run out of `runs`; the runs
    /// left are the page's to call back. A transcript that a call under way holds (a parser
    /// inside it reached the page's frame) is called back at the next frame.
    ///
    /// # Errors
    /// What `each` returns.
    pub fn at_frame<E>(
        &mut self,
        runs: &mut Vec<u64>,
        mut each: impl FnMut(RunId, &Update<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.by_run.retain(|_, t| t.strong_count() > 0);
        let mut left = Vec::new();
        for id in runs.drain(..) {
            let Some(transcript) = self.by_run.get(&RunId(id)).and_then(Weak::upgrade) else {
                left.push(id);
                continue;
            };
            let folded = match transcript.try_borrow_mut() {
                Ok(mut transcript) => match transcript.apply_late() {
                    Ok(Some(update)) => {
                        each(RunId(id), &update)?;
                        true
                    }
                    Ok(None) => true,
                    Err(_) => false,
                },
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
