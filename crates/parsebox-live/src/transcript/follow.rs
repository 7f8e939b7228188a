//! Following a run whose chunk list the page hands over whole on every render (Paperclip's
//! `buildTranscript` and the React hook): which chunks of a list are new, where the list
//! begins, when the chunks before it are let go, the window a render shows (its pending line
//! finished in a fresh run, as Paperclip's finish would), and a new parser re-parsing the run.

use std::rc::Rc;

use parsebox_transcript::TranscriptEntry;

use super::update::{Changes, Update};
use super::{LiveTranscript, TranscriptError};
use crate::executor::Executor;
use crate::host_run::HostRunParser;

/// The window a render of the followed list shows.
#[derive(Debug, PartialEq)]
pub struct FollowedWindow {
    /// The index of its first entry (the entries before it came from chunks the page no longer
    /// hands over).
    pub first: usize,
    /// When the list ends mid-line: how that line shows.
    pub pending: Option<PendingTail>,
}

/// A window ending mid-line, as a finish would end it, the run itself going on: its first
/// `keep` entries, then `entries`.
#[derive(Debug, PartialEq)]
pub struct PendingTail {
    /// How many of the window's entries stay.
    pub keep: usize,
    /// The entries that follow them.
    pub entries: Vec<TranscriptEntry>,
}

impl<X: Executor> LiveTranscript<X> {
    /// The index in `ids` (a list of chunk ids the page handed over whole) of its first chunk
    /// not pushed yet, or `None` when the list does not go on from the chunks pushed with ids.
    pub fn follow_from(&self, ids: &[u64]) -> Option<usize> {
        self.trail.new_from(ids)
    }

    /// Takes `ids` as the list now followed, its new chunks pushed: where it begins, and the
    /// chunks before its first line let go when they are half of those held. Returns whether
    /// the list begins at another chunk than the last one, and what letting chunks go changed.
    ///
    /// # Errors
    /// [`TranscriptError::Chunk`] when the list does not go on from the chunks pushed.
    pub fn follow_settle(
        &mut self,
        ids: &[u64],
    ) -> Result<(bool, Option<Update<'_>>), TranscriptError> {
        let settled = self.trail.settle(ids).ok_or_else(|| {
            TranscriptError::Chunk("the chunks do not go on from those pushed".to_owned())
        })?;
        if settled.cut == 0 {
            return Ok((settled.moved, None));
        }
        let cut = self.trail.cut();
        let change = self.inner.drop_chunks_before(self.retained(cut));
        Ok((settled.moved, Some(self.changed(change, false, false).1)))
    }

    /// The followed window ([`FollowedWindow`]). A fresh run of the type parses the pending
    /// line again from where the followed list's first line starts, or, when the run's lines
    /// are answered late, from where the pending line starts.
    ///
    /// # Errors
    /// [`TranscriptError::Disposed`]; [`TranscriptError::Reentered`] from inside a call.
    pub fn follow_window(&mut self) -> Result<FollowedWindow, TranscriptError> {
        let first = self.first_followed_entry();
        if !self.inner.has_pending_line() {
            return Ok(FollowedWindow {
                first,
                pending: None,
            });
        }
        // The replay is a call of the page of its own: its parser time is summed against
        // `callBudgetMs` from here, as a push's is.
        self.begin_call();
        let run = self.run();
        let core = Rc::clone(self.inner.parser().core());
        let (later, tail_run) = {
            let mut s = core.enter()?;
            let later = s.host().answers_later(run);
            let adapter_type = s
                .host()
                .run_type(run)
                .map(str::to_owned)
                .ok_or(TranscriptError::Disposed)?;
            let tail_run = s
                .create_run(&adapter_type, self.style, false)
                .map_err(|_| TranscriptError::Disposed)?;
            (later, tail_run)
        };
        let from = self.retained(self.trail.cut() + self.trail.replay_from(later));
        // The tail's run ends with its parser, when `finished_tail` returns.
        let tail = self.inner.finished_tail(
            from,
            HostRunParser::with_ledger(core, tail_run, Rc::clone(&self.ledger)),
        );
        let window = self.inner.len().saturating_sub(first);
        Ok(FollowedWindow {
            first,
            pending: Some(PendingTail {
                keep: window - tail.replaced.min(window),
                entries: tail.entries,
            }),
        })
    }

    /// Re-parses every chunk when the run's parser is another than at the last call or when
    /// the transcript was made: then [`rebuild`](Self::rebuild)`(false)`'s result. A follower
    /// calls it on each render.
    ///
    /// # Errors
    /// [`TranscriptError::Reentered`] from inside a call.
    pub fn follow_parser(&mut self) -> Result<Option<Changes<'_>>, TranscriptError> {
        let run = self.run();
        let now = self.inner.parser().core().enter()?.host().parser_of(run);
        if now == self.parser_seen {
            return Ok(None);
        }
        self.parser_seen = now;
        Ok(Some(self.rebuild(false)))
    }

    /// The index of the first entry of the followed list.
    fn first_followed_entry(&self) -> usize {
        let first = self.trail.cut() + self.trail.start();
        if first == 0 {
            0
        } else {
            self.inner.first_entry_of_chunk(self.retained(first))
        }
    }

    /// The index among the retained chunks of the chunk given with `n` before it (the builder
    /// may have let go of fewer chunks than the trail: it keeps whole entries).
    fn retained(&self, n: usize) -> usize {
        let dropped = usize::try_from(self.inner.counts().dropped_chunks).unwrap_or(usize::MAX);
        n.saturating_sub(dropped)
    }
}
