//! [`LiveTranscript`]: one transcript of one adapter type as a page builds it, chunk by chunk,
//! over its own run of the shared live core, with the run's timeline beside it fed by the same
//! change ranges. It decides what each call hands the page ([`Update`]): which entries changed,
//! which timeline items, and, at a frame, whether anything did at all. Late answers from a
//! Worker wait for the page's frame and are folded in once per frame; a rebuild runs in slices
//! of the registry's `rebuildSliceMs`; what the transcript holds is measured in real bytes
//! (`ledger.rs`) and its budget narrows to what the registry's shared one leaves it
//! (`budget.rs`). Following a chunk list handed over whole on every render (Paperclip's
//! `buildTranscript`) is `follow.rs`.

mod at_frame;
mod budget;
mod follow;
mod ledger;
mod settings;
mod sync;
mod update;

use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use parsebox_host::{AdapterState, RunId};
use parsebox_timeline::{LiveTimeline, Timeline, TimelineItem};
use parsebox_transcript::{
    Chunk, ChunkTrail, FailedLineEntry, PushChange, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};

use crate::executor::Executor;
use crate::host_run::HostRunParser;
use crate::live::LiveCore;
use crate::shared::SharedCore;

pub use at_frame::{FoldsLate, Transcripts};
pub use follow::{FollowedWindow, PendingTail};
pub use settings::{MemoryRefusal, TranscriptError, TranscriptSettings};
pub use update::{Changes, TimelineChanges, Update};

pub(crate) use ledger::Ledger;

use settings::count_option;

/// See the module's doc.
pub struct LiveTranscript<X: Executor> {
    inner: TranscriptBuilder<HostRunParser<X>>,
    /// The run's timeline, unless the settings turned it off. It waits (a frame at most) for
    /// lines a Worker answers late, so it places each line once.
    timeline: Option<LiveTimeline>,
    /// A rebuild in slices of a finished run is under way: the timeline ends when it does.
    finish_when_rebuilt: bool,
    /// The chunks given with an id, of the lists a follower handed over whole.
    trail: ChunkTrail,
    /// The run's parser at the last [`follow_parser`](Self::follow_parser) (or when made).
    parser_seen: Option<(u64, AdapterState)>,
    /// What the run's failed lines show (a finished tail's run shows the same).
    style: FailedLineEntry,
    /// This transcript's own budget (`maxTranscriptBytes`); the registry's shared one may
    /// leave it less (`budget.rs`).
    max_bytes: usize,
    /// What it holds, in real bytes, shared with its line parser.
    ledger: Rc<Ledger>,
    /// A call measured by itself ([`metered`](Self::metered) was not used) is under way.
    self_measured: bool,
    /// `counts().over_budget_lines` when the core was last told.
    over_budget_told: Cell<u64>,
    /// How many entries the page holds: the length in the last changes it was given. A late
    /// answer that takes the last line's entries away changes no entry that stays, and only
    /// this says the page must still hear of it.
    shown_len: usize,
    /// The last call changed every entry, the frozen prefix's too (redaction turned on or
    /// off): its changes begin at the first.
    all_changed: bool,
    /// The ids of the frozen timeline items the last call changed (redaction turned on or
    /// off), in order.
    frozen_changed: Vec<String>,
}

impl<X: Executor> LiveTranscript<X> {
    /// A transcript with its own run of `adapter_type` in `core`.
    ///
    /// # Errors
    /// [`TranscriptError::Options`] for a count out of range; [`TranscriptError::Disposed`];
    /// [`TranscriptError::Reentered`] from inside a call.
    pub fn new(
        core: &Rc<SharedCore<X>>,
        adapter_type: &str,
        settings: TranscriptSettings,
    ) -> Result<Self, TranscriptError> {
        let max_bytes = count_option("maxTranscriptBytes", settings.max_transcript_bytes)?
            .unwrap_or(parsebox_host::DEFAULT_TRANSCRIPT_BYTES);
        if max_bytes > crate::memory::MAX_TRANSCRIPT_BYTES {
            return Err(TranscriptError::Options(format!(
                "TranscriptBuilder option \"maxTranscriptBytes\" may be {} at most (512 MiB), got {max_bytes}",
                crate::memory::MAX_TRANSCRIPT_BYTES
            )));
        }
        let options = TranscriptOptions {
            redact_home_paths: settings.redact_home_paths.unwrap_or(false),
            retain_chunks: true,
            track_lines: true,
            // Unused: the host core settles every line (with the run's style) before the
            // builder sees it, so no line reaches the builder as a failure.
            failed_line_entry: FailedLineEntry::Generic,
            max_chunks: count_option("maxChunks", settings.max_chunks)?,
            max_retained_bytes: count_option("maxRetainedBytes", settings.max_retained_bytes)?,
            drop_duplicate_chunks: settings.drop_duplicate_chunks.unwrap_or(false),
            // Final entries leave the live vectors at the start of each call (`open_call`),
            // and the page's indices count them (`len`, `entries_from`); with a timeline, those
            // whose items nothing can change any more (`LiveTimeline::freeze`). A timeline
            // beside a window of chunks reads the window as the transcript: it keeps them.
            compact_final: settings.timeline == Some(false)
                || (settings.max_chunks.is_none() && settings.max_retained_bytes.is_none()),
        };
        let style = settings
            .failed_line_entry
            .unwrap_or(FailedLineEntry::ParseError);
        let (run, parser_seen) = {
            let mut s = core.enter()?;
            let run = s
                .create_run(adapter_type, style, true)
                .map_err(|_| TranscriptError::Disposed)?;
            (run, s.host().parser_of(run))
        };
        let ledger = Rc::new(Ledger::new());
        ledger.set_timeline(settings.timeline.unwrap_or(true));
        let parser = HostRunParser::with_ledger(Rc::clone(core), run, Rc::clone(&ledger));
        Ok(Self {
            inner: TranscriptBuilder::new(parser, options),
            timeline: settings.timeline.unwrap_or(true).then(LiveTimeline::new),
            finish_when_rebuilt: false,
            trail: ChunkTrail::default(),
            parser_seen,
            style,
            max_bytes,
            ledger,
            self_measured: false,
            over_budget_told: Cell::new(0),
            shown_len: 0,
            all_changed: false,
            frozen_changed: Vec::new(),
        })
    }

    /// The run's id in the core.
    pub fn run(&self) -> RunId {
        self.inner.parser().run()
    }

    /// Calls `f` with the core held, unless it is held already (re-entered).
    fn with_core<R>(&self, f: impl FnOnce(&mut LiveCore<X>) -> R) -> Option<R> {
        let mut s = self.inner.parser().core().enter().ok()?;
        Some(f(&mut s))
    }

    /// Appends `chunk`; `given`: its id in the list a follower hands over (`follow.rs`). The
    /// timeline stops before the first line a Worker has yet to answer, and goes on when the
    /// answer comes or at the next frame ([`LiveTimeline`]).
    ///
    /// # Errors
    /// [`TranscriptError::Memory`] when the chunk may not fit the budget (no line of it is
    /// parsed).
    pub fn push(
        &mut self,
        chunk: &Chunk,
        given: Option<u64>,
    ) -> Result<Update<'_>, TranscriptError> {
        self.begin_measured();
        let lines = bytecount_newlines(chunk.chunk.as_bytes()) + 1;
        if let Err(e) = self.make_room(chunk.chunk.len(), lines) {
            self.end_measured();
            return Err(e);
        }
        self.begin_call();
        let change = self.inner.push_change(chunk);
        if let Some(id) = given {
            self.trail
                .give(id, chunk.stream, chunk.chunk.contains('\n'));
        }
        Ok(self.going_on(change, false).1)
    }

    /// Appends a chunk whose text is not well-formed UTF-16 (it holds half a surrogate pair):
    /// `chunk` as for [`push`](Self::push) with an empty text, `units` its text's code units. A
    /// pair split between two stdout chunks is joined, a lone half becomes U+FFFD.
    ///
    /// # Errors
    /// As [`push`](Self::push).
    pub fn push_utf16(
        &mut self,
        chunk: &Chunk,
        units: &[u16],
        given: Option<u64>,
    ) -> Result<Update<'_>, TranscriptError> {
        self.begin_measured();
        let lines = units.iter().filter(|&&u| u == u16::from(b'\n')).count() + 1;
        // A unit is at most three bytes of UTF-8.
        if let Err(e) = self.make_room(units.len().saturating_mul(3), lines) {
            self.end_measured();
            return Err(e);
        }
        self.begin_call();
        let change = self
            .inner
            .push_utf16(&chunk.ts, chunk.stream, units, chunk.seq);
        if let Some(id) = given {
            self.trail
                .give(id, chunk.stream, units.contains(&u16::from(b'\n')));
        }
        Ok(self.going_on(change, false).1)
    }

    /// Flushes the pending partial line and ends the timeline's run (calls still pending
    /// become unanswered), completing a rebuild under way first.
    pub fn finish(&mut self) -> Update<'_> {
        self.begin_measured();
        self.begin_call();
        self.finish_when_rebuilt = false;
        let changed = self.inner.finish();
        self.changed(PushChange::from_range(changed), true, false).1
    }

    /// Re-parses every chunk from scratch (after the adapter's parser changed) and rebuilds the
    /// timeline from it; returns every entry (no timeline changes: [`timeline`](Self::timeline)
    /// gives the rebuilt one whole). `sliced`: for at most the registry's `rebuildSliceMs`
    /// (when it has one); the rest goes on at the page's next frames
    /// ([`apply_late`](Self::apply_late)).
    pub fn rebuild(&mut self, sliced: bool) -> Changes<'_> {
        self.begin_measured();
        self.begin_call();
        let finished = self
            .timeline
            .as_ref()
            .is_some_and(|live| live.timeline().is_finished());
        let slice = self.slice_ms().filter(|_| sliced);
        // The rebuild lets go of the frozen prefix and parses it into the live form, which the
        // ledger measures as it grows: the budget no longer counts it beside.
        self.ledger.set_saved(0);
        let mut go_on = self.slice_limit(slice);
        let complete = self.inner.rebuild_within(&mut go_on);
        self.finish_when_rebuilt = finished && !complete;
        if !complete {
            self.call_back();
        }
        self.shown_len = self.inner.len();
        if let Some(live) = self.timeline.as_mut() {
            live.rebuilt(&self.inner, finished && complete);
        }
        self.end_measured();
        // A rebuild lets go of the frozen prefix: every entry is in the window.
        let all = self.inner.entries_from(0);
        Changes {
            dropped: 0,
            from: 0,
            length: all.len(),
            entries: all,
        }
    }

    /// The page's frame: folds in the late answers the core holds for this run (one fold for
    /// all of them), goes on with a rebuild under way for one slice, and places in the
    /// timeline the lines that have waited across a frame. `None` when nothing changed (no
    /// listener needs to hear of it).
    ///
    /// # Errors
    /// [`TranscriptError::Reentered`] from inside a call.
    pub fn apply_late(&mut self) -> Result<Option<Update<'_>>, TranscriptError> {
        let run = self.run();
        self.begin_measured();
        let ledger = Rc::clone(&self.ledger);
        let taken = self.inner.parser().core().enter().map(|mut s| {
            // What the answers hold, the timeline copies as they are folded in.
            ledger.owe_timeline(s.answers_waiting_bytes(run));
            s.take_answers(run)
        });
        let (answers, more) = match taken {
            Ok(taken) => taken,
            Err(e) => {
                self.end_measured();
                return Err(e.into());
            }
        };
        if more {
            // The rest of a big frame's worth is folded in at the next frame.
            self.call_back();
        }
        let changed = self.inner.replace_answers(answers);
        let (quiet, update) = self.going_on(PushChange::from_range(changed), true);
        Ok((!quiet).then_some(update))
    }

    /// Turns redaction of home paths on or off without re-parsing (every entry changed when
    /// the setting did).
    pub fn set_redact_home_paths(&mut self, on: bool) -> Update<'_> {
        self.begin_measured();
        let was = self.inner.redacts_home_paths();
        // The frozen timeline items, as they were: those the new setting changes are named.
        let before: Vec<TimelineItem> = match &self.timeline {
            Some(live) if was != on && self.inner.frozen_len() > 0 => live
                .items(&self.inner)
                .take(self.inner.frozen_len())
                .map(Cow::into_owned)
                .collect(),
            _ => Vec::new(),
        };
        let changed = self.inner.set_redact_home_paths(on);
        self.all_changed = was != on;
        if let Some(live) = self.timeline.as_ref().filter(|_| !before.is_empty()) {
            self.frozen_changed = live
                .items(&self.inner)
                .zip(&before)
                .filter(|(now, old)| **now != **old)
                .map(|(now, _)| now.id.to_string())
                .collect();
        }
        self.changed(PushChange::from_range(changed), false, false)
            .1
    }

    /// The whole transcript (a copy once entries are frozen: a binding that writes it out
    /// whole pays for that anyway).
    pub fn entries(&self) -> Cow<'_, [TranscriptEntry]> {
        self.inner.entries_from(0)
    }

    /// How many entries the transcript has.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the transcript has no entry.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The transcript's entries from index `from` on.
    pub fn entries_from(&self, from: usize) -> Cow<'_, [TranscriptEntry]> {
        self.inner.entries_from(from)
    }

    /// The whole timeline, in order (the items of frozen entries made again from them).
    ///
    /// # Errors
    /// [`TranscriptError::Options`] when the transcript was made with `timeline: false`.
    pub fn timeline_items(&self) -> Result<Vec<Cow<'_, TimelineItem>>, TranscriptError> {
        Ok(self.live_timeline()?.items(&self.inner).collect())
    }

    /// The timeline as its builder keeps it: the items after the frozen prefix
    /// ([`timeline_items`](Self::timeline_items) gives them all).
    ///
    /// # Errors
    /// [`TranscriptError::Options`] when the transcript was made with `timeline: false`.
    pub fn timeline(&self) -> Result<&Timeline, TranscriptError> {
        self.live_timeline().map(LiveTimeline::timeline)
    }

    fn live_timeline(&self) -> Result<&LiveTimeline, TranscriptError> {
        match &self.timeline {
            Some(live) => Ok(live),
            None => Err(TranscriptError::Options(
                "this TranscriptBuilder keeps no timeline (it was made with timeline: false)"
                    .to_owned(),
            )),
        }
    }
}

impl<X: Executor> LiveTranscript<X> {
    /// Starts measuring a call by itself, unless [`metered`](Self::metered) measures it: it
    /// ends with [`end_measured`](Self::end_measured).
    fn begin_measured(&mut self) {
        if self.open_call() {
            self.self_measured = true;
        }
    }

    /// Ends a call measured by itself (before what it hands the page is made).
    fn end_measured(&mut self) {
        if std::mem::take(&mut self.self_measured) {
            self.close_call();
        }
    }
}

/// How many `\n` bytes `text` has.
fn bytecount_newlines(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b == b'\n').count()
}
