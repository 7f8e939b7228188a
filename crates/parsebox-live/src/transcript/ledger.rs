//! What a transcript holds, in real bytes ([`Ledger`]): each call into it is measured at the
//! allocator, from its start to its end, less what the call left waiting for the page (ops
//! frames, late answers: the live core's [`pending_bytes`](crate::LiveCore::pending_bytes)),
//! which is charged when the transcript takes it. Its line parser reads it to say whether a
//! line's entries fit ([`LineParser::has_room`](parsebox_transcript::LineParser::has_room)).

use std::cell::Cell;

use parsebox_meter::Meter;

use crate::memory::{chunk_bound, core_room, CALL_SLACK_BYTES};

/// See the module's doc. Shared by a [`LiveTranscript`](super::LiveTranscript) and its line
/// parser.
#[derive(Debug)]
pub(crate) struct Ledger {
    /// What the transcript held at the end of its last call.
    held: Cell<isize>,
    /// The call under way.
    open: Cell<Option<Open>>,
    /// The most the transcript may hold during the call under way.
    room: Cell<usize>,
    /// Kept free during a push for the chunk's lines not parsed yet, each as its generic entry:
    /// a line's own entries may use the room only when those still fit.
    reserve: Cell<usize>,
    /// Whether the transcript keeps a timeline, which copies what each line's entries show
    /// when it is brought up to date at the end of the call.
    timeline: Cell<bool>,
    /// What the timeline will copy at the end of the call under way: the bytes the lines
    /// parsed so far hold (kept free for it until then).
    timeline_debt: Cell<usize>,
    /// What the frozen prefix's entries would hold again as live ones
    /// ([`LiveTranscript::frozen_live_bytes`](super::LiveTranscript)). Counted beside `held`
    /// by the budget.
    saved: Cell<usize>,
}

impl Drop for Ledger {
    fn drop(&mut self) {
        crate::memory::sub_frozen_saved(self.saved.get());
    }
}

/// Which room did not have enough ([`Ledger::short_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Short {
    /// The transcript's own (its budget, or what the registry's total leaves it).
    Transcript,
    /// The core's, which every transcript of the page shares.
    Core,
}

/// A call under way: where its measure started, and what was waiting for the page then.
#[derive(Clone, Copy, Debug)]
struct Open {
    meter: Meter,
    pending: isize,
}

impl Ledger {
    /// A ledger with nothing held and no room set yet (none: set it before a call).
    pub(crate) fn new() -> Self {
        Self {
            held: Cell::new(0),
            open: Cell::new(None),
            room: Cell::new(0),
            reserve: Cell::new(0),
            timeline: Cell::new(false),
            timeline_debt: Cell::new(0),
            saved: Cell::new(0),
        }
    }

    /// The frozen prefix's entries would hold `bytes` more as live ones (a rebuild parses
    /// them into the live form): the budget counts them beside what is held.
    pub(crate) fn set_saved(&self, bytes: usize) {
        let old = self.saved.replace(bytes);
        if bytes >= old {
            crate::memory::add_frozen_saved(bytes - old);
        } else {
            crate::memory::sub_frozen_saved(old - bytes);
        }
    }

    /// What the frozen prefix's entries would hold again as live ones.
    pub(crate) fn saved(&self) -> usize {
        self.saved.get()
    }

    /// A ledger whose transcript has no budget of its own (the core's still holds).
    pub(crate) fn unbounded() -> Self {
        let ledger = Self::new();
        ledger.room.set(usize::MAX);
        ledger
    }

    /// Starts measuring a call, with `pending` waiting for the page; false (and nothing done)
    /// when a call is measured already (this one is part of it).
    pub(crate) fn open(&self, pending: isize) -> bool {
        if self.open.get().is_some() {
            return false;
        }
        self.open.set(Some(Open {
            meter: Meter::start(),
            pending,
        }));
        true
    }

    /// What the transcript holds now, with `pending` waiting for the page.
    pub(crate) fn held(&self, pending: isize) -> isize {
        let call = self
            .open
            .get()
            .map_or(0, |o| o.meter.held() - (pending - o.pending));
        self.held.get() + call
    }

    /// Ends the call under way: what it kept is the transcript's from now on.
    pub(crate) fn close(&self, pending: isize) {
        self.held.set(self.held(pending));
        self.open.set(None);
        self.timeline_debt.set(0);
    }

    /// Says whether the transcript keeps a timeline.
    pub(crate) fn set_timeline(&self, keeps: bool) {
        self.timeline.set(keeps);
    }

    /// A line's answer (or a late answer) holds `bytes`: its timeline will copy about as much.
    pub(crate) fn owe_timeline(&self, bytes: isize) {
        if self.timeline.get() {
            let bytes = usize::try_from(bytes).unwrap_or(0);
            self.timeline_debt
                .set(self.timeline_debt.get().saturating_add(bytes));
        }
    }

    /// Sets the most the transcript may hold during the call under way.
    pub(crate) fn set_room(&self, room: usize) {
        self.room.set(room);
    }

    /// The most the transcript may hold during the call under way.
    pub(crate) fn room(&self) -> usize {
        self.room.get()
    }

    /// Keeps `bytes` free for the lines of a chunk (none: 0).
    pub(crate) fn set_reserve(&self, bytes: usize) {
        self.reserve.set(bytes);
    }

    /// A line of `line_bytes` bytes was parsed, and its answer holds `held` bytes: its share
    /// of the reserve is its own now, and its timeline item is still to be made (at the end of
    /// the call), at about what the line holds, or its share when that is more.
    pub(crate) fn line_taken(&self, line_bytes: usize, held: isize) {
        let share = chunk_bound(line_bytes, 1);
        self.reserve.set(self.reserve.get().saturating_sub(share));
        let held = usize::try_from(held).unwrap_or(0);
        self.owe_timeline(isize::try_from(held.max(share)).unwrap_or(isize::MAX));
    }

    /// Whether `more` bytes fit besides the reserve: within the transcript's room, with
    /// `pending` waiting for the page and `waiting` of it for this transcript, and within the
    /// core's.
    pub(crate) fn fits(&self, more: usize, pending: isize, waiting: isize) -> bool {
        self.short_of(more, pending, waiting).is_none()
    }

    /// Which room `more` bytes do not fit ([`fits`](Self::fits)): `None` when they fit.
    pub(crate) fn short_of(&self, more: usize, pending: isize, waiting: isize) -> Option<Short> {
        let held = usize::try_from(self.held(pending) + waiting)
            .unwrap_or(0)
            .saturating_add(self.saved.get());
        let more = more
            .saturating_add(self.reserve.get())
            .saturating_add(self.timeline_debt.get())
            .saturating_add(CALL_SLACK_BYTES);
        if more > core_room() {
            Some(Short::Core)
        } else if held.saturating_add(more) > self.room.get() {
            Some(Short::Transcript)
        } else {
            None
        }
    }
}
