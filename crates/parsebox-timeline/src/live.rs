//! [`LiveTimeline`]: a transcript builder's timeline kept in step with it while some of its
//! lines wait for a late answer (a Worker engine's).

use std::borrow::Cow;
use std::ops::Range;

use parsebox_transcript::{EntryOrigin, LineParser, TranscriptBuilder, TranscriptEntry};

use crate::fold::new_item;
use crate::item::{TimelineItem, TimelineItemType};
use crate::item_id::ItemId;
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

    /// The timeline as far as it has placed the transcript, less the frozen prefix's items
    /// ([`items`](Self::items) gives them all).
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Lets go of what neither `builder` nor the timeline can change any more, for a builder
    /// made with [`compact_final`](parsebox_transcript::TranscriptOptions::compact_final) and
    /// no window: the builder freezes its final entries, as many as the timeline's items of
    /// them are each an entry's own and of a kind nothing joins
    /// ([`Timeline::inert_prefix`]), and the timeline lets go of those items, which
    /// [`items`](Self::items) makes again from the frozen entries. Call it where
    /// [`freeze_final`](TranscriptBuilder::freeze_final) would be called: at the start of a
    /// call. Returns how many entries froze.
    pub fn freeze<P: LineParser>(&mut self, builder: &mut TranscriptBuilder<P>) -> usize {
        let most = self.timeline.inert_prefix(builder.final_prefix_len());
        let moved = builder.freeze_final_within(most);
        self.timeline.freeze_front(moved);
        self.seen = self.seen.saturating_sub(moved);
        moved
    }

    /// Every item, in order: the frozen prefix's made again from `builder`'s frozen entries,
    /// as they were, then the timeline's own.
    pub fn items<'a, P: LineParser>(
        &'a self,
        builder: &'a TranscriptBuilder<P>,
    ) -> impl Iterator<Item = Cow<'a, TimelineItem>> + 'a {
        self.frozen_items(builder)
            .map(Cow::Owned)
            .chain(self.timeline.items().iter().map(Cow::Borrowed))
    }

    /// The items `ids` name (in timeline order, as a [`TimelineUpdate`]'s lists are), frozen
    /// ones included; ids of no item are left out. A frozen item other than the last is
    /// found by making the frozen prefix's items again (a change of redaction names them).
    pub fn items_named<'a, P: LineParser>(
        &'a self,
        builder: &'a TranscriptBuilder<P>,
        ids: &[String],
    ) -> Vec<Cow<'a, TimelineItem>> {
        let Some(last) = self.timeline.frozen_last() else {
            return self
                .timeline
                .items_named(ids)
                .into_iter()
                .map(Cow::Borrowed)
                .collect();
        };
        let frozen = |id: &String| ItemId::parse(id).is_some_and(|id| id <= last.id);
        let split = ids.iter().take_while(|id| frozen(id)).count();
        let (named_frozen, named_live) = ids.split_at(split);
        let mut found: Vec<Cow<'a, TimelineItem>> = Vec::new();
        match named_frozen {
            [] => {}
            [only] if ItemId::parse(only) == Some(last.id) => {
                found.extend(self.last_frozen_item(builder).map(Cow::Owned));
            }
            _ => {
                let wanted: Vec<ItemId> = named_frozen
                    .iter()
                    .filter_map(|id| ItemId::parse(id))
                    .collect();
                found.extend(
                    self.frozen_items(builder)
                        .filter(|item| wanted.binary_search(&item.id).is_ok())
                        .map(Cow::Owned),
                );
            }
        }
        found.extend(
            self.timeline
                .items_named(named_live)
                .into_iter()
                .map(Cow::Borrowed),
        );
        found
    }

    /// The frozen prefix's items, made again from `builder`'s frozen entries: each an entry's
    /// own, its flags from its neighbours (the last one's `isLast` as the timeline keeps it).
    fn frozen_items<'a, P: LineParser>(
        &'a self,
        builder: &'a TranscriptBuilder<P>,
    ) -> impl Iterator<Item = TimelineItem> + 'a {
        let finished = self.timeline.is_finished();
        let base = builder.window_base();
        let last_is_last = self.timeline.frozen_last().map(|f| f.is_last);
        let mut entries = builder.frozen_with_origins().enumerate().peekable();
        let mut after_user = true;
        std::iter::from_fn(move || {
            let (i, (origin, entry)) = entries.next()?;
            let next_user = entries
                .peek()
                .map(|(_, (_, next))| matches!(next, TranscriptEntry::User(_)));
            let item = made_again(origin, base + i, &entry, finished, after_user, next_user);
            after_user = item.item_type == TimelineItemType::User;
            Some(match next_user {
                Some(_) => item,
                None => flagged(item, last_is_last),
            })
        })
    }

    /// The frozen prefix's last item, made again. O(1).
    fn last_frozen_item<P: LineParser>(
        &self,
        builder: &TranscriptBuilder<P>,
    ) -> Option<TimelineItem> {
        let last = self.timeline.frozen_last()?;
        let (origin, entry) = builder.last_frozen()?;
        let index = builder.window_base() + builder.frozen_len() - 1;
        let finished = self.timeline.is_finished();
        // Its `isFirst` is what it was when it froze: what came before it is frozen too.
        let item = made_again(origin, index, &entry, finished, last.is_first, None);
        Some(flagged(item, Some(last.is_last)))
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

    /// Starts again from `builder`'s transcript as it is (after a rebuild: nothing frozen), every entry
    /// placed; with `finished`, as after [`Timeline::finish`].
    pub fn rebuilt<P: LineParser>(&mut self, builder: &TranscriptBuilder<P>, finished: bool) {
        let all = builder.entries();
        let origins = |i| builder.entry_origin(i);
        self.timeline = Timeline::from_window(all, builder.window_base(), finished, &origins);
        self.seen = all.len();
        self.frame_mark = builder.units();
    }
}

/// The item a frozen entry made (at run index `index`), with its flags: `after_user` whether
/// the item before it is a `user` one (or there is none), `next_user` whether the next is
/// (`None`: it is the frozen prefix's last, flagged by [`flagged`]).
fn made_again(
    origin: EntryOrigin,
    index: usize,
    entry: &TranscriptEntry,
    finished: bool,
    after_user: bool,
    next_user: Option<bool>,
) -> TimelineItem {
    let mut item = new_item(ItemId::of(origin), index, entry, finished);
    if item.item_type == TimelineItemType::User {
        (item.is_first, item.is_last) = (true, true);
    } else {
        (item.is_first, item.is_last) = (after_user, next_user.unwrap_or(false));
    }
    item
}

/// The frozen prefix's last item with the `isLast` the timeline keeps for it.
fn flagged(mut item: TimelineItem, is_last: Option<bool>) -> TimelineItem {
    if item.item_type != TimelineItemType::User {
        item.is_last = is_last.unwrap_or(true);
    }
    item
}
