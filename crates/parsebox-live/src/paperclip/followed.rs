//! [`FollowedRun`]: a run whose chunk list the page hands over whole on every render
//! (Paperclip's `buildTranscript` and the React hook): chunk ids in, whether what a render shows
//! changed and that window out. A list that does not go on from the one before starts the run
//! anew.

use std::borrow::Cow;
use std::rc::Rc;

use parsebox_host::RunId;
use parsebox_transcript::{Chunk, TranscriptEntry};
use serde::Serialize;

use crate::executor::Executor;
use crate::shared::SharedCore;
use crate::transcript::{FollowedWindow, LiveTranscript, TranscriptError, TranscriptSettings};

/// A chunk of a followed list, as the page encodes it.
#[derive(Clone, Debug, PartialEq)]
pub enum ChunkIn {
    /// A chunk whose text is well-formed.
    Text(Chunk),
    /// A chunk whose text holds half a surrogate pair: the chunk with an empty text, and the
    /// text's UTF-16 code units.
    Utf16(Chunk, Vec<u16>),
}

/// See the module's doc.
pub struct FollowedRun<X: Executor> {
    core: Rc<SharedCore<X>>,
    adapter_type: String,
    transcript: LiveTranscript<X>,
    redact: bool,
    /// The window of the last list, until something changes (its pending line is replayed once).
    window: Option<FollowedWindow>,
    /// What the page's copy of the entries lacks since [`shown`](FollowedRun::shown) was last
    /// asked.
    unsent: Unsent,
}

/// Changes the page's copy of a run's entries has yet to take: entries dropped from its front,
/// then every entry from `from` on (`None`: nothing changed, not even the window).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Unsent {
    dropped: usize,
    from: Option<usize>,
}

impl Unsent {
    /// Adds a change that dropped `dropped` entries from the front, then changed entries from
    /// `from` on (counted after the drop).
    fn note(&mut self, dropped: usize, from: usize) {
        self.dropped += dropped;
        let earlier = self.from.map(|f| f.saturating_sub(dropped));
        self.from = Some(earlier.map_or(from, |f| f.min(from)));
    }

    /// Every entry changed (a run started anew): the page's copy is replaced whole.
    fn all() -> Self {
        Self {
            dropped: 0,
            from: Some(0),
        }
    }
}

/// What the page's copy of a followed run's entries takes, and then what a render shows: drop
/// `dropped` entries from the copy's front, cut it to `from` entries and append `entries` (the
/// changes a builder's update carries, with no entry kept after them); the
/// window is then the copy's entries from `first` on (its first `keep` of them, when the list
/// ends mid-line), then `tail` (the pending line, as Paperclip's finish would show it).
#[derive(Serialize, Debug)]
pub struct Shown<'a> {
    /// Entries that left the front of the run.
    pub dropped: usize,
    /// Where the entries that changed begin.
    pub from: usize,
    /// The run's length now (`from` and the entries' count: the page keeps none after them).
    pub length: usize,
    /// The entries from `from` on.
    pub entries: Cow<'a, [TranscriptEntry]>,
    /// The window's first entry.
    pub first: usize,
    /// How many of the window's entries show before `tail` (all of them when `None`).
    pub keep: Option<usize>,
    /// The pending line's entries, finished in a fresh run.
    pub tail: &'a [TranscriptEntry],
}

impl Shown<'_> {
    /// The window, from a copy of the run's entries that took this change.
    pub fn window<'c>(
        &'c self,
        copy: &'c [TranscriptEntry],
    ) -> impl Iterator<Item = &'c TranscriptEntry> {
        let shown = copy.get(self.first..).unwrap_or(&[]);
        let kept = match self.keep {
            Some(keep) => shown.get(..keep).unwrap_or(shown),
            None => shown,
        };
        kept.iter().chain(self.tail)
    }

    /// Applies the change to `copy` (what the page does).
    pub fn apply_to(&self, copy: &mut Vec<TranscriptEntry>) {
        copy.drain(..self.dropped.min(copy.len()));
        copy.truncate(self.from);
        copy.extend_from_slice(&self.entries);
    }
}

impl<X: Executor> FollowedRun<X> {
    /// A followed run of `adapter_type` in `core`, home paths redacted with `redact`. Paperclip's
    /// callers read entries only: it keeps no timeline.
    ///
    /// # Errors
    /// [`TranscriptError::Disposed`]; [`TranscriptError::Reentered`] from inside a call.
    pub fn new(
        core: &Rc<SharedCore<X>>,
        adapter_type: &str,
        redact: bool,
    ) -> Result<Self, TranscriptError> {
        Ok(Self {
            core: Rc::clone(core),
            adapter_type: adapter_type.to_owned(),
            transcript: Self::fresh(core, adapter_type, redact)?,
            redact,
            window: None,
            unsent: Unsent::all(),
        })
    }

    fn fresh(
        core: &Rc<SharedCore<X>>,
        adapter_type: &str,
        redact: bool,
    ) -> Result<LiveTranscript<X>, TranscriptError> {
        let settings = TranscriptSettings {
            redact_home_paths: Some(redact),
            timeline: Some(false),
            ..TranscriptSettings::default()
        };
        LiveTranscript::new(core, adapter_type, settings)
    }

    /// The run's id in the core (its late answers name it).
    pub fn run(&self) -> RunId {
        self.transcript.run()
    }

    /// The adapter type.
    pub fn adapter_type(&self) -> &str {
        &self.adapter_type
    }

    /// The run's entries (the page's copy equals them once it took [`shown`](Self::shown)).
    pub fn entries(&self) -> Cow<'_, [TranscriptEntry]> {
        self.transcript.entries()
    }

    /// Whether the list `ids` goes on from the chunks this run was given.
    pub fn continues(&self, ids: &[u64]) -> bool {
        self.transcript.follow_from(ids).is_some()
    }

    /// Takes the list `ids` (a list that does not go on from the last one starts the run
    /// anew): pushes its new chunks, `chunk_at(i)` encoding the list's chunk `i`, re-parsing
    /// the run first when the type's parser changed since, and switching redaction (without a
    /// re-parse) to `redact`. A chunk the transcript's budget cannot hold ends the pushes: the
    /// window shows what the run holds, and the chunks not taken are asked for again next time.
    /// Returns whether the window may have changed.
    ///
    /// # Errors
    /// What `chunk_at` returns for a chunk it cannot encode; [`TranscriptError::Chunk`] for a
    /// chunk the core refuses; [`TranscriptError::Reentered`], [`TranscriptError::Disposed`].
    pub fn follow<E: From<TranscriptError>>(
        &mut self,
        ids: &[u64],
        redact: bool,
        mut chunk_at: impl FnMut(usize) -> Result<ChunkIn, E>,
    ) -> Result<bool, E> {
        let mut changed = false;
        let from = match self.transcript.follow_from(ids) {
            Some(from) => from,
            None => {
                self.transcript = Self::fresh(&self.core, &self.adapter_type, redact)?;
                self.redact = redact;
                self.unsent = Unsent::all();
                changed = true;
                0
            }
        };
        changed |= from < ids.len();
        if redact != self.redact {
            self.redact = redact;
            let c = &self.transcript.set_redact_home_paths(redact).changes;
            self.unsent.note(c.dropped, c.from);
            changed = true;
        }
        // A new parser for the type (or one now ready) re-parses the run.
        if self.transcript.follow_parser()?.is_some() {
            self.unsent.note(0, 0);
            changed = true;
        }
        for (i, &id) in ids.iter().enumerate().skip(from) {
            let pushed = match chunk_at(i)? {
                ChunkIn::Text(chunk) => self.transcript.push(&chunk, Some(id)),
                ChunkIn::Utf16(chunk, units) => {
                    self.transcript.push_utf16(&chunk, &units, Some(id))
                }
            }
            .map(|u| (u.changes.dropped, u.changes.from));
            match pushed {
                Ok((dropped, from)) => self.unsent.note(dropped, from),
                Err(TranscriptError::Memory(_)) => {
                    self.window = None;
                    return Ok(true);
                }
                Err(e) => {
                    // The chunks before it were taken: the window shows them.
                    self.window = None;
                    return Err(e.into());
                }
            }
        }
        let (moved, settled) = self.transcript.follow_settle(ids)?;
        if let Some(u) = settled {
            self.unsent.note(u.changes.dropped, u.changes.from);
        }
        changed |= moved;
        if changed {
            self.window = None;
            let len = self.transcript.len();
            // The window moved, if nothing else: the page is to hear of it.
            self.unsent.note(0, len);
        }
        Ok(changed)
    }

    /// The page's frame: folds in this run's late answers. Returns whether the window changed.
    ///
    /// # Errors
    /// [`TranscriptError::Reentered`] from inside a call.
    pub fn apply_late(&mut self) -> Result<bool, TranscriptError> {
        let changed = self
            .transcript
            .apply_late()?
            .map(|u| (u.changes.dropped, u.changes.from));
        if let Some((dropped, from)) = changed {
            self.unsent.note(dropped, from);
            self.window = None;
        }
        Ok(changed.is_some())
    }

    /// What the page's copy of the entries is to take since it last asked, and the window a
    /// render then shows ([`Shown`]); `None` when nothing changed.
    ///
    /// # Errors
    /// [`TranscriptError::Disposed`]; [`TranscriptError::Reentered`] from inside a call.
    pub fn shown(&mut self) -> Result<Option<Shown<'_>>, TranscriptError> {
        let Some(from) = self.unsent.from else {
            return Ok(None);
        };
        let window = match self.window.take() {
            Some(w) => w,
            None => self.transcript.follow_window()?,
        };
        let dropped = std::mem::take(&mut self.unsent).dropped;
        let window = &*self.window.insert(window);
        let length = self.transcript.len();
        let from = from.min(length);
        Ok(Some(Shown {
            dropped,
            from,
            length,
            entries: self.transcript.entries_from(from),
            first: window.first,
            keep: window.pending.as_ref().map(|p| p.keep),
            tail: window.pending.as_ref().map_or(&[], |p| &p.entries),
        }))
    }
}
