//! [`LiveTimeline`]: a transcript builder's timeline kept in step with it while some of its
//! lines wait for a late answer (a Worker engine's).

use std::ops::Range;

use parsebox_transcript::{LineParser, TranscriptBuilder, TranscriptEntry};

use crate::timeline::{Timeline, TimelineUpdate};

/// The timeline of a [`TranscriptBuilder`] whose lines may be answered late
/// ([`LineAnswer::Later`](parsebox_transcript::LineAnswer::Later)), fed with every change the
/// builder returns.
///
/// A line answered late first shows its provisional (generic) entries, and its answer
/// replaces them a few milliseconds on. Placing the provisional entries in the timeline, then
/// taking them out and placing the answer, would do each such line's timeline work twice. So
/// the timeline places the transcript's entries up to the first line still waiting for its
/// answer, and waits for that line, but for one frame at most: at each frame of the page
/// ([`sync_at_frame`](Self::sync_at_frame)) a line that was already waiting at the frame before
/// is placed as it is, provisional entries and all, and its answer replaces them when it
/// comes. It never takes back what it has placed. [`finish`](TranscriptBuilder::finish)
/// (`finishing`) places everything.
///
/// Ids, pairing and positions are the [`Timeline`]'s: once nothing waits, the items are those
/// [`Timeline::from_window`] gives for the builder's entries.
#[derive(Debug, Default)]
pub struct LiveTimeline {
    timeline: Timeline,
    /// The window's length at the last sync: the kept tail of a late answer's change ends
    /// there.
    seen: usize,
    /// The builder's [`units`](TranscriptBuilder::units) at the last frame: a line from before
    /// it that still waits is placed with its provisional entries.
    frame_mark: u64,
}

impl LiveTimeline {
    /// The timeline of a builder that has taken in nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The timeline as far as it has placed the transcript.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Whether entries wait to be placed: the caller should call
    /// [`sync_at_frame`](Self::sync_at_frame) at the page's next frame.
    pub fn lags<P: LineParser>(&self, builder: &TranscriptBuilder<P>) -> bool {
        self.timeline.placed() < builder.entries().len()
    }

    /// Brings the timeline up to date after a change of `builder`: `dropped` the entries that
    /// left the window's front, `changed` the range the builder returned (its entries after
    /// `changed.end` are the ones from before, as late answers leave the lines still waiting);
    /// with `finishing`, places everything and ends the run ([`Timeline::finish`]).
    pub fn sync<P: LineParser>(
        &mut self,
        builder: &TranscriptBuilder<P>,
        dropped: &[TranscriptEntry],
        changed: Range<usize>,
        finishing: bool,
    ) -> TimelineUpdate {
        let all = builder.entries();
        let origins = |i| builder.entry_origin(i);
        let mut update = self.timeline.drop_front(dropped);
        let old_len = self.seen.saturating_sub(dropped.len());
        let placed = self.timeline.placed();
        let start = changed.start.min(all.len());
        let changed = start..changed.end.clamp(start, all.len());
        let kept = all.len() - changed.end;
        // Placed up to the first line still waiting that is not due yet, never taking back
        // what is shown: one update (two in a row could each name an item the other undid).
        let reach = if finishing {
            all.len()
        } else {
            builder.first_waiting_entry(self.frame_mark)
        };
        let to = |end: usize| all.get(..end).unwrap_or_default();
        let next = if kept > 0 && placed > old_len.saturating_sub(kept) {
            // Some of the kept tail is shown. When nothing more is due, its items stay and move.
            let shown = (placed + all.len()).saturating_sub(old_len).min(all.len());
            if reach > shown {
                self.timeline.update_with(to(reach), changed, &origins)
            } else {
                self.timeline
                    .update_keeping_tail(to(shown), changed, &origins)
            }
        } else if placed > changed.start {
            // Shown entries changed: every changed one is placed again.
            let end = reach.max(changed.end);
            self.timeline
                .update_with(to(end), changed.start..end, &origins)
        } else if reach > placed {
            self.timeline
                .update_with(to(reach), placed..reach, &origins)
        } else {
            TimelineUpdate::default()
        };
        update = update.followed_by(next);
        if finishing {
            update = update.followed_by(self.timeline.finish());
        }
        self.seen = all.len();
        update
    }

    /// [`sync`](Self::sync) at a frame of the page: lines that were already waiting at the last
    /// frame are placed now, as they are.
    pub fn sync_at_frame<P: LineParser>(
        &mut self,
        builder: &TranscriptBuilder<P>,
        changed: Range<usize>,
        finishing: bool,
    ) -> TimelineUpdate {
        let update = self.sync(builder, &[], changed, finishing);
        self.frame_mark = builder.units();
        update
    }

    /// Starts again from `builder`'s transcript as it is (after a rebuild), every entry
    /// placed; with `finished`, as after [`Timeline::finish`].
    pub fn rebuilt<P: LineParser>(&mut self, builder: &TranscriptBuilder<P>, finished: bool) {
        let all = builder.entries();
        let origins = |i| builder.entry_origin(i);
        self.timeline = Timeline::from_window(all, builder.window_base(), finished, &origins);
        self.seen = all.len();
        self.frame_mark = builder.units();
    }
}
