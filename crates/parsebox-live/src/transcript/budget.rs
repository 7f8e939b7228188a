//! A transcript's memory, in real bytes, and its budget: its own `maxTranscriptBytes`, narrowed
//! to what the registry's shared `maxTranscriptBytesTotal` leaves it beside its other
//! transcripts, within what the core may hold at all ([`core_held_limit`]). Each call is
//! measured at the allocator ([`Ledger`]); a chunk that might not fit is refused before any
//! line of it is parsed ([`chunk_bound`]: every line of it shown generic), and a line whose
//! entries do not fit shows its generic entry ([`HostRunParser`]'s `has_room`).
//!
//! [`core_held_limit`]: crate::memory::core_held_limit
//! [`Ledger`]: super::Ledger
//! [`HostRunParser`]: crate::HostRunParser

use parsebox_transcript::BuilderCounts;

use super::ledger::Short;
use super::{LiveTranscript, MemoryRefusal, TranscriptError};
use crate::executor::Executor;
use crate::memory::{chunk_bound, core_held_limit, core_room};

impl<X: Executor> LiveTranscript<X> {
    /// Runs `call` as one call of the page into this transcript: what it keeps in the core,
    /// measured at the allocator from its start to its end, is the transcript's (less what it
    /// leaves waiting for the page). A binding wraps each call with it, the writing out of
    /// what the call returns included, so that what that writing takes and frees counts as
    /// nothing. A call made outside `metered` is measured by itself.
    pub fn metered<R>(&mut self, call: impl FnOnce(&mut Self) -> R) -> R {
        let opened = self.open_call();
        let out = call(self);
        if opened {
            self.close_call();
        }
        out
    }

    /// Starts measuring a call, unless one is measured already; narrows the budget. Returns
    /// whether it started one (the caller then closes it).
    pub(super) fn open_call(&mut self) -> bool {
        let opened = self.ledger.open(self.parser_pending().0);
        if opened {
            self.narrow();
            // What the last call left final leaves the live vectors, measured as this call's;
            // what it stood for the budget still counts (a rebuild would hold it again).
            match self.timeline.as_mut() {
                Some(live) => live.freeze(&mut self.inner),
                None => self.inner.freeze_final(),
            };
            self.ledger.set_saved(self.frozen_live_bytes());
        }
        opened
    }

    /// Ends the call measured: what it kept is the transcript's; the core is told.
    pub(super) fn close_call(&self) {
        self.ledger.set_saved(self.frozen_live_bytes());
        self.ledger.set_reserve(0);
        self.ledger.close(self.parser_pending().0);
        self.record();
    }

    /// What waits for the page in the core, and of it for this transcript.
    fn parser_pending(&self) -> (isize, isize) {
        self.inner.parser().pending()
    }

    /// Bytes the transcript holds now, the answers waiting for it included.
    pub fn held_bytes(&self) -> usize {
        let (pending, waiting) = self.parser_pending();
        usize::try_from(self.ledger.held(pending) + waiting).unwrap_or(0)
    }

    /// What the frozen entries and timeline items would hold again as live ones, with the
    /// live vectors' room to grow (an eighth): what a rebuild adds to what is held.
    fn frozen_live_bytes(&self) -> usize {
        let timeline = self
            .timeline
            .as_ref()
            .map_or(0, |live| live.timeline().frozen_live_bytes());
        let bytes = self.inner.frozen_live_bytes().saturating_add(timeline);
        bytes.saturating_add(bytes / 8)
    }

    /// What the budget counts: [`held_bytes`](Self::held_bytes), and what the frozen entries
    /// would hold again as live ones ([`BuilderCounts::budget_bytes`]).
    pub fn budget_bytes(&self) -> usize {
        self.held_bytes().saturating_add(self.ledger.saved())
    }

    /// What the transcript holds and has let go of.
    pub fn counts(&self) -> BuilderCounts {
        BuilderCounts {
            held_bytes: self.held_bytes(),
            budget_bytes: self.budget_bytes(),
            ..self.inner.counts()
        }
    }

    /// Narrows the transcript's budget to what it may hold now: its own, and what the
    /// registry leaves it ([`Host::transcript_room`](parsebox_host::Host::transcript_room)).
    /// Returns what the registry leaves it.
    pub(super) fn narrow(&mut self) -> usize {
        let run = self.run();
        let room = self
            .with_core(|s| s.host().transcript_room(run))
            .unwrap_or(self.max_bytes);
        self.ledger.set_room(self.max_bytes.min(room));
        room
    }

    /// Refuses a chunk of `bytes` bytes of text and `lines` lines that might not fit
    /// ([`chunk_bound`], and an eighth of what the transcript holds for its vectors to grow),
    /// counted in the type's `host.refusedChunks`; keeps the chunk's room free for its lines
    /// until they are parsed.
    pub(super) fn make_room(&mut self, bytes: usize, lines: usize) -> Result<(), TranscriptError> {
        let bound = chunk_bound(bytes, lines);
        let need = bound.saturating_add(self.budget_bytes() / 8);
        let (pending, waiting) = self.parser_pending();
        let Some(short) = self.ledger.short_of(need, pending, waiting) else {
            self.ledger.set_reserve(bound);
            return Ok(());
        };
        let run = self.run();
        self.with_core(|s| s.host_mut().record_refused_chunk(run));
        let held = self.budget_bytes();
        let room = self.ledger.room();
        Err(TranscriptError::Memory(if short == Short::Core {
            MemoryRefusal::Core {
                held: core_held_limit() - core_room(),
                limit: core_held_limit(),
                need,
            }
        } else {
            MemoryRefusal::Transcript {
                held,
                room,
                narrowed: room < self.max_bytes,
                need,
            }
        }))
    }

    /// Tells the core what the transcript holds now, and how many more lines its budget showed
    /// generic.
    pub(super) fn record(&self) {
        let run = self.run();
        // The registry's total counts what the budget counts.
        let held = self.budget_bytes();
        let over_budget = self.inner.counts().over_budget_lines;
        let over = over_budget.saturating_sub(self.over_budget_told.get());
        let room = self.ledger.room();
        let told = self.with_core(|s| {
            s.set_transcript_room(run, room);
            s.host_mut().record_transcript(run, held, over);
        });
        if told.is_some() {
            self.over_budget_told.set(over_budget);
        }
    }
}
