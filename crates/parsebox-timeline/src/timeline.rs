//! [`Timeline`]: the incremental builder that keeps a transcript's timeline up to date from the
//! transcript builder's change ranges, and [`TimelineUpdate`], what each step changed.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

use parsebox_transcript::{EntryOrigin, TranscriptEntry};
use serde::{Deserialize, Serialize};

use crate::fold::{join, new_item};
use crate::item::{TimelineItem, TimelineItemType, ToolStatus};
use crate::item_id::ItemId;
use crate::pairing::{PairKey, Pairing};
use crate::positions::position;

/// Where the entries of the transcript window a timeline follows came from: the origin of the
/// window's entry `i` (a transcript builder's
/// [`entry_origin`](parsebox_transcript::TranscriptBuilder::entry_origin)). Item ids are the
/// text form of their first entries' origins.
pub type Origins<'a> = &'a dyn Fn(usize) -> EntryOrigin;

/// Which items one [`Timeline::update`] or [`Timeline::finish`] touched, by id, each list in
/// timeline order. A renderer re-renders `changed`, mounts `added` and unmounts `removed`; every
/// other item is exactly as it was.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineUpdate {
    /// Items that were there before and differ now (a result arrived, a delta merged, a
    /// neighbour changed `isLast`, …).
    pub changed: Vec<String>,
    /// Items that are new.
    pub added: Vec<String>,
    /// Items that are gone: the transcript was replaced from an earlier entry, or shrank.
    pub removed: Vec<String>,
    /// Entry indices that moved, in order: in every item the other lists do not name, each
    /// entry index at or past a move's `at` is now `by` more, and nothing else about the item
    /// changed. A late answer that gives a line another number of entries than its generic
    /// one moves the entries of the lines still waiting after it; their items are not sent
    /// again. The items that move are the timeline's last ones: every item before them has all
    /// its entries before `at`. Apply the moves before taking `changed` and `added`, whose
    /// items are current.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<EntriesMoved>>", optional))]
    pub moved: Vec<EntriesMoved>,
}

/// One move of [`TimelineUpdate::moved`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntriesMoved {
    /// The first entry index that moved (as it was before the move); every later one moved too.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub at: u64,
    /// What was added to those indices (less than 0 when the line gave fewer entries).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub by: i64,
}

impl EntriesMoved {
    /// Where entry index `index` is after this move.
    pub fn apply(&self, index: usize) -> usize {
        if (index as u64) < self.at {
            return index;
        }
        usize::try_from(index as i64 + self.by).unwrap_or(index)
    }
}

impl TimelineUpdate {
    /// `true` when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.moved.is_empty()
    }

    /// This update followed by `later`, as one: what either touched, each id once, in
    /// timeline order (the order of ids).
    #[must_use]
    pub fn followed_by(mut self, later: TimelineUpdate) -> TimelineUpdate {
        // The usual case, every push: one of the two is empty (nothing left the window, or the
        // run did not finish), and the other's lists are already in order.
        if self.is_empty() {
            return later;
        }
        if later.is_empty() {
            return self;
        }
        let gone = |id: &String| later.removed.contains(id) || later.added.contains(id);
        let new_then_gone: Vec<String> = self
            .added
            .iter()
            .filter(|id| later.removed.contains(id))
            .cloned()
            .collect();
        self.changed.retain(|id| !gone(id));
        self.added.retain(|id| !later.removed.contains(id));
        for id in later.changed {
            if !self.changed.contains(&id) && !self.added.contains(&id) {
                self.changed.push(id);
            }
        }
        for id in later.added {
            if self.removed.contains(&id) {
                self.removed.retain(|r| *r != id);
                self.changed.push(id);
            } else {
                self.added.push(id);
            }
        }
        for id in later.removed {
            if !self.removed.contains(&id) && !new_then_gone.contains(&id) {
                self.removed.push(id);
            }
        }
        self.moved.extend(later.moved);
        for list in [&mut self.changed, &mut self.added, &mut self.removed] {
            list.sort_by_cached_key(|id| EntryOrigin::parse(id));
        }
        self
    }
}

/// A transcript's render-ready timeline (SPEC §9), kept up to date as the transcript grows.
///
/// Feed it the transcript after each change with the range the
/// [`TranscriptBuilder`](parsebox_transcript::TranscriptBuilder) returned; it does work
/// proportional to the entries from `changed.start` on (plus the items those entries touch), and
/// says which items changed.
///
/// # Rules
///
/// - **One item per entry, except tool cards and diff blocks.** `user`, `assistant`,
///   `thinking`, `init`, `result`, `system`, `stderr` and `stdout` entries are one item each, of
///   the same type.
/// - **Pairing.** A `tool_call` starts a `tool_call` item, status `pending`. A `tool_result`
///   joins, in this order of preference: the oldest unanswered call with its `toolUseId`; the
///   latest call with that id (a duplicate result); the oldest unanswered call with the
///   result's `toolName` (case-insensitive; any call when the result's id is empty, only calls
///   without an id otherwise); when the result has no `toolName`, the oldest unanswered call
///   without an id. An empty `toolUseId` counts as none.
/// - **Status.** A result appends `{ type: "content", text, isError }` to the card and sets its
///   status from *that* result: `failed` when `isError`, else `completed`. Duplicate results all
///   stay in the card, in order; the latest decides the status.
/// - **Orphan results.** A result that joins nothing is its own `tool_result` item with the
///   same card (`completed` or `failed`, title its `toolName` or `""`). Later results with its
///   id join it. A result that came before its call (out of order) is such an orphan until a
///   `tool_call` with the same id arrives: that call joins the orphan's item, which becomes a
///   `tool_call` item at the orphan's place, with the call's name and input and the result's
///   status. Its id does not change and nothing is dropped.
/// - **Never answered.** [`finish`](Self::finish) turns every call still `pending` into
///   `unanswered`. A result that arrives after that (a late answer) still pairs with it.
/// - **Diffs.** A `diff` line joins the tool card of the latest `tool_call` or `tool_result`
///   entry before it (its results and diffs stay together), as long as only `diff`, `system`,
///   `stderr` or `stdout` entries came in between; any other entry ends that. A diff line with
///   no such card starts a `diff` item, which the following diff lines join on the same terms.
/// - **Positions.** `isFirst` / `isLast` as the seed computes them from the neighbours: a `user`
///   item breaks the sequence (and is itself `true`/`true`); every other type takes part.
/// - **Ids.** The [`EntryOrigin`] of the item's first entry in its text form: `"e<unit>"`, or
///   `"e<unit>.<nth>"` for a line's later entries. Fed by a transcript builder's origins
///   ([`update_with`](Self::update_with)) an id holds while earlier lines' entries change (a
///   late answer that gives a line more entries moves every later entry, not its item's id);
///   [`update`](Self::update) counts each entry as its own unit, `"e<index>"`. When entries
///   from some index on are replaced, the items they started are rebuilt; an id that comes
///   back shows in `changed` (or nowhere, if the item is the same), one that does not in
///   `removed`.
///
/// ```
/// use parsebox_timeline::{Timeline, TimelineItemType, ToolStatus};
/// use parsebox_transcript::TranscriptEntry;
/// use serde_json::json;
///
/// let entry = |v| serde_json::from_value::<TranscriptEntry>(v).unwrap();
/// let mut entries = vec![
///     entry(json!({"kind": "user", "ts": "t0", "text": "fix the test"})),
///     entry(json!({"kind": "tool_call", "ts": "t1", "name": "Bash",
///                  "input": {"command": "pytest"}, "toolUseId": "c1"})),
/// ];
/// let mut timeline = Timeline::new();
/// let up = timeline.update(&entries, 0..2);
/// assert_eq!(up.added, ["e0", "e1"]);
/// assert_eq!(timeline.items()[1].tool_call.as_ref().unwrap().status, ToolStatus::Pending);
///
/// entries.push(entry(json!({"kind": "tool_result", "ts": "t2", "toolUseId": "c1",
///                           "content": "1 passed", "isError": false})));
/// let up = timeline.update(&entries, 2..3);
/// assert_eq!(up.changed, ["e1"]); // the card, not a new item
/// let card = timeline.items()[1].tool_call.as_ref().unwrap();
/// assert_eq!(card.status, ToolStatus::Completed);
/// assert_eq!(timeline.items()[1].entries, [1, 2]);
/// assert_eq!(timeline.items()[1].item_type, TimelineItemType::ToolCall);
/// ```
#[derive(Debug, Default)]
pub struct Timeline {
    /// The items; `items[dead]` is at position `pos_base` (positions count from the run's
    /// first item, so the pairing index and `item_of` stay valid when items leave the front).
    /// Items that left the front stay in place (the first `dead`) until they are half of the
    /// vector: moving every kept item down on each drop would cost the window's size per push.
    items: Vec<TimelineItem>,
    /// How many of `items` left the front ([`live`](Self::live) skips them).
    dead: usize,
    /// The position of `items[dead]`: how many items left the front ([`drop_front`](Self::drop_front)).
    pos_base: usize,
    /// Per transcript entry of the window: the position of the item that shows it.
    item_of: Vec<usize>,
    /// Per transcript entry of the window: the tool card or diff block that a diff line after
    /// it joins.
    diff_target: Vec<DiffTarget>,
    /// What `diff_target` said for the entry just before the window.
    diff_target_before: Option<usize>,
    /// Entries before the window that kept items still show (a call whose result is in the
    /// window), by run index: what rolling such an item back rebuilds it from.
    held: HashMap<usize, TranscriptEntry>,
    pairing: Pairing,
    finished: bool,
    /// The run index of the first entry of the transcript slice this timeline follows: entries
    /// before it left a window ([`rebase`](Self::rebase)). Ids and `entries` use run indices.
    base: usize,
    /// Reused between updates: the positions an update touched.
    touched: Vec<usize>,
    /// The last item of the frozen prefix ([`freeze_front`](Self::freeze_front)), when the
    /// items before the window are the run's (frozen, not dropped).
    frozen_last: Option<FrozenLast>,
    /// What the frozen items held as live ones ([`frozen_live_bytes`](Self::frozen_live_bytes)).
    frozen_bytes: usize,
}

/// What the timeline keeps of the frozen prefix: its last item's id and flags, which the
/// window's first item decides (`isLast`) and follows (`isFirst`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrozenLast {
    /// The item's id.
    pub id: ItemId,
    /// Whether it is a `user` item (it is `(true, true)` then).
    pub user: bool,
    /// Its `isFirst`, which nothing after it changes.
    pub is_first: bool,
    /// Its `isLast` as last reported.
    pub is_last: bool,
}

impl Timeline {
    /// An empty timeline for a run that has not finished.
    pub fn new() -> Self {
        Self::default()
    }

    /// The timeline of `entries` built in one go; with `finished`, as after
    /// [`finish`](Self::finish). Gives the same items as any sequence of
    /// [`update`](Self::update)s that ends with the same entries.
    pub fn from_entries(entries: &[TranscriptEntry], finished: bool) -> Self {
        Self::from_window(entries, 0, finished, &|i| EntryOrigin::of_index(i))
    }

    /// [`from_entries`](Self::from_entries) for a window of a run whose first entry is the
    /// run's entry `base`, with ids from `origins` (window index → origin, as
    /// [`update_with`](Self::update_with) takes them): entry indices count from the run's
    /// start, so they are the ones the whole run's timeline gives those entries. A result
    /// whose call is before the window is an orphan here.
    pub fn from_window(
        entries: &[TranscriptEntry],
        base: usize,
        finished: bool,
        origins: Origins<'_>,
    ) -> Self {
        let mut timeline = Self {
            base,
            ..Self::new()
        };
        timeline.apply(entries, 0, false, origins);
        if finished {
            timeline.finish();
        }
        timeline
    }

    /// Brings the timeline up to date with `entries`, the whole transcript, after a change
    /// that touched `changed` (the range a transcript builder's `push`, `finish`,
    /// `replace_lines` returned: entries before `changed.start` are as they were at the last
    /// update). After a rebuild from scratch pass `0..entries.len()`. The transcript may have
    /// grown, been replaced from an index, or shrunk.
    ///
    /// Costs work proportional to the entries from `changed.start` on, plus the size of the
    /// items that entries from there had joined.
    pub fn update(&mut self, entries: &[TranscriptEntry], changed: Range<usize>) -> TimelineUpdate {
        let base = self.base;
        self.apply(entries, changed.start, true, &|i| {
            EntryOrigin::of_index(base + i)
        })
    }

    /// [`update`](Self::update) with item ids from `origins`: the origin of the window's entry
    /// `i` (a transcript builder's [`entry_origin`]). The same builder's origins must feed
    /// every update of a timeline.
    ///
    /// [`entry_origin`]: parsebox_transcript::TranscriptBuilder::entry_origin
    pub fn update_with(
        &mut self,
        entries: &[TranscriptEntry],
        changed: Range<usize>,
        origins: Origins<'_>,
    ) -> TimelineUpdate {
        self.apply(entries, changed.start, true, origins)
    }

    /// [`update_with`](Self::update_with) after a change that left every entry after `changed.end` as it
    /// was: the transcript's last `entries.len() - changed.end` entries are the timeline's last
    /// ones (a transcript builder's late answers leave the lines still waiting after them so),
    /// possibly at other indices. When none of them joins an item or can be joined (no tool
    /// call, result or diff among them), their items stay as they are and the work is the
    /// changed entries' plus a move of the kept items' indices, which the update reports in
    /// [`moved`](TimelineUpdate::moved) instead of naming each; otherwise it is
    /// [`update_with`](Self::update_with).
    pub fn update_keeping_tail(
        &mut self,
        entries: &[TranscriptEntry],
        changed: Range<usize>,
        origins: Origins<'_>,
    ) -> TimelineUpdate {
        let end = changed.end;
        let kept = entries.len().saturating_sub(end);
        // Where the kept entries were before: the answers may have changed how many came
        // before them.
        let old_end = self.item_of.len().checked_sub(kept);
        let Some(old_end) = old_end.filter(|&old_end| {
            kept > 0
                && changed.start <= end.min(old_end)
                && self.tail_stands_alone(entries, end, old_end)
        }) else {
            return self.update_with(entries, changed, origins);
        };
        let tail = self.items.split_off(self.items.len() - kept);
        self.item_of.truncate(old_end);
        self.diff_target.truncate(old_end);
        let mut update = self.apply_parts(entries, end, changed.start, true, tail, origins);
        if end != old_end {
            update.moved.push(EntriesMoved {
                at: (self.base + old_end) as u64,
                by: end as i64 - old_end as i64,
            });
        }
        update
    }

    /// Whether the timeline's last entries, from `old_end` on, are `entries`' from `end` on,
    /// each its own item at the end of the timeline, and none a tool call, result or diff (the
    /// kinds that join items). Work proportional to those entries.
    fn tail_stands_alone(&self, entries: &[TranscriptEntry], end: usize, old_end: usize) -> bool {
        let live = self.live();
        let kept = entries.len().saturating_sub(end);
        if live.len() < kept {
            return false;
        }
        let items = live.get(live.len() - kept..).unwrap_or_default();
        entries
            .iter()
            .skip(end)
            .zip(items)
            .enumerate()
            .all(|(k, (entry, item))| {
                !joins_items(entry) && item.entries == [self.base + old_end + k]
            })
    }

    /// Follows the transcript's window after `dropped` (the run's entries from the window's
    /// old start on) left its front. Items whose entries have all left go, from the front,
    /// and leave the pairing index (a later result cannot join them); an item that still
    /// shows an entry in the window stays whole (a call whose result is in the window keeps
    /// its card), and so do the items after it. Ids do not change. Work proportional to what
    /// left. Call it before [`update`](Self::update) for the entries that came with the same
    /// push.
    pub fn drop_front(&mut self, dropped: &[TranscriptEntry]) -> TimelineUpdate {
        let mut update = TimelineUpdate::default();
        if dropped.is_empty() {
            return update;
        }
        // Entries the timeline had not placed yet (it waits for late answers: `LiveTimeline`)
        // may leave too; no item shows them.
        let n = dropped.len().min(self.item_of.len());
        let old_base = self.base;
        let new_base = old_base + dropped.len();
        self.diff_target_before = match n.checked_sub(1) {
            Some(last) if n == dropped.len() => self.diff_target.get(last).and_then(|t| t.get()),
            _ => None,
        };
        self.item_of.drain(..n);
        self.diff_target.drain(..n);
        self.base = new_base;
        // What left the window is gone, not frozen: the window's first item is the first.
        self.frozen_last = None;
        let live = self.items.get(self.dead..).unwrap_or_default();
        let gone = live
            .iter()
            .take_while(|item| item.entries.last().is_some_and(|&e| e < new_base))
            .count();
        for (k, item) in live.iter().take(gone).enumerate() {
            if let Some(key) = PairKey::of(item) {
                self.pairing.remove(self.pos_base + k, &key);
            }
            for e in &item.entries {
                self.held.remove(e);
            }
            update.removed.push(item.id.to_string());
        }
        self.retire_front(gone);
        let mut hold = Vec::new();
        for item in self.straddling() {
            for &e in item.entries.iter().take_while(|&&e| e < new_base) {
                if let Some(entry) = e.checked_sub(old_base).and_then(|k| dropped.get(k)) {
                    hold.push((e, entry.clone()));
                }
            }
        }
        self.held.extend(hold);
        let (first, last) = self.position_of(self.pos_base);
        if let Some(item) = live_mut(&mut self.items, self.dead).first_mut() {
            if (item.is_first, item.is_last) != (first, last) {
                item.is_first = first;
                item.is_last = last;
                update.changed.push(item.id.to_string());
            }
        }
        update
    }

    /// Ends the run: every call no result has answered becomes
    /// [`ToolStatus::Unanswered`]. Calls that arrive in later updates (late answers replacing
    /// entries) start out unanswered. Calling it again changes nothing.
    pub fn finish(&mut self) -> TimelineUpdate {
        self.finished = true;
        let mut update = TimelineUpdate::default();
        let open: Vec<usize> = self.pairing.open_calls().collect();
        for pos in open {
            let Some(item) = self.at_mut(pos) else {
                continue;
            };
            if let Some(call) = item.tool_call.as_mut() {
                if call.status == ToolStatus::Pending {
                    call.status = ToolStatus::Unanswered;
                    update.changed.push(item.id.to_string());
                }
            }
        }
        update
    }

    /// How many entries of the window the timeline has placed: the transcript's first ones
    /// (all of them unless a [`LiveTimeline`](crate::LiveTimeline) waits for late answers).
    pub fn placed(&self) -> usize {
        self.item_of.len()
    }

    /// The items, in timeline order (the order of their first entries).
    pub fn items(&self) -> &[TimelineItem] {
        self.live()
    }

    /// The items that have not left the front.
    fn live(&self) -> &[TimelineItem] {
        self.items.get(self.dead..).unwrap_or_default()
    }

    /// The item that shows the run's entry `index`, if the timeline has seen that entry (and
    /// it is in the window).
    pub fn item_for_entry(&self, index: usize) -> Option<&TimelineItem> {
        match index.checked_sub(self.base) {
            Some(local) => self.item_of.get(local).and_then(|&pos| self.at(pos)),
            None => self
                .straddling()
                .find(|item| item.entries.binary_search(&index).is_ok()),
        }
    }

    /// The kept items that still show entries from before the window. Items are in order of
    /// their first entries, so these are a prefix.
    fn straddling(&self) -> impl Iterator<Item = &TimelineItem> {
        self.live()
            .iter()
            .take_while(|item| item.entries.first().is_some_and(|&e| e < self.base))
    }

    /// The item at position `pos`, unless it left the front.
    fn at(&self, pos: usize) -> Option<&TimelineItem> {
        self.live().get(pos.checked_sub(self.pos_base)?)
    }

    fn at_mut(&mut self, pos: usize) -> Option<&mut TimelineItem> {
        slot(live_mut(&mut self.items, self.dead), self.pos_base, pos)
    }

    /// The position the next new item takes.
    fn end(&self) -> usize {
        self.pos_base + self.live().len()
    }

    /// `(isFirst, isLast)` of the item at position `pos`. The window's first item follows the
    /// frozen prefix's last one, when there is one.
    fn position_of(&self, pos: usize) -> (bool, bool) {
        let Some(local) = pos.checked_sub(self.pos_base) else {
            return (false, false);
        };
        let (first, last) = position(self.live(), local);
        match self.frozen_last {
            Some(before) if local == 0 && first && !first_is_user(self.live()) => {
                (before.user, last)
            }
            _ => (first, last),
        }
    }

    /// How many of the window's first entries (at most `most`) are each an item of its own
    /// that nothing can change any more: placed, and of a kind no later entry joins (not a
    /// tool card or diff block). [`freeze_front`](Self::freeze_front) may let go of them.
    pub fn inert_prefix(&self, most: usize) -> usize {
        let live = self.live();
        let mut k = 0;
        while k < most.min(self.item_of.len()) {
            let own = self.item_of.get(k) == Some(&(self.pos_base + k))
                && live.get(k).is_some_and(|item| {
                    item.entries == [self.base + k] && !joinable(item.item_type)
                });
            if !own {
                break;
            }
            k += 1;
        }
        k
    }

    /// Lets go of the items of the window's first `n` entries, which the transcript builder
    /// froze (at most [`inert_prefix`](Self::inert_prefix) of them): they are made again from
    /// those entries when read, as they were, and the timeline keeps only what the last of
    /// them needs ([`frozen_last`](Self::frozen_last)). Nothing the page holds changes.
    pub fn freeze_front(&mut self, n: usize) -> usize {
        let n = n.min(self.inert_prefix(n));
        let Some(last) = n.checked_sub(1).and_then(|k| self.live().get(k)) else {
            return 0;
        };
        self.frozen_last = Some(FrozenLast {
            id: last.id,
            user: last.item_type == TimelineItemType::User,
            is_first: last.is_first,
            is_last: last.is_last,
        });
        self.diff_target_before = self.diff_target.get(n - 1).and_then(|t| t.get());
        let per_item = std::mem::size_of::<TimelineItem>()
            + std::mem::size_of::<usize>()
            + std::mem::size_of::<DiffTarget>();
        let copies: usize = self
            .live()
            .iter()
            .take(n)
            .filter_map(|item| item.content.as_ref().filter(|c| !c.is_shared()))
            .map(|c| c.len())
            .sum();
        self.frozen_bytes = self
            .frozen_bytes
            .saturating_add(n.saturating_mul(per_item))
            .saturating_add(copies);
        self.item_of.drain(..n);
        self.diff_target.drain(..n);
        self.base += n;
        self.retire_front(n);
        parsebox_meter::shrink_gently(&mut self.items);
        parsebox_meter::shrink_gently(&mut self.item_of);
        parsebox_meter::shrink_gently(&mut self.diff_target);
        n
    }

    /// The first `n` live items left the front (dropped or frozen): they stay in place until
    /// they are half of the vector, then go at once. Amortised: each item is moved down at
    /// most once per item that left before it.
    fn retire_front(&mut self, n: usize) {
        self.dead += n;
        self.pos_base += n;
        if self.dead * 2 >= self.items.len() {
            self.items.drain(..self.dead);
            self.dead = 0;
        }
    }

    /// What the items [`freeze_front`](Self::freeze_front) let go of held as live ones: each
    /// item, its two indexes, and a text it kept a copy of. Counted, not measured: a rebuild
    /// makes them again, and a budget must leave room for that.
    pub fn frozen_live_bytes(&self) -> usize {
        self.frozen_bytes
    }

    /// The frozen prefix's last item's id and flags, if the timeline froze any.
    pub fn frozen_last(&self) -> Option<FrozenLast> {
        self.frozen_last
    }

    /// Brings the frozen prefix's last item's `isLast` in step with the window's first item;
    /// when it changed, names the item in `update` (first: it comes before every other).
    fn refresh_frozen_last(&mut self, update: &mut TimelineUpdate) {
        let first_live = self.live().first().map(|i| i.item_type);
        let Some(f) = self.frozen_last.as_mut() else {
            return;
        };
        let is_last = f.user || first_live.is_none_or(|t| t == TimelineItemType::User);
        if is_last != f.is_last {
            f.is_last = is_last;
            update.changed.insert(0, f.id.to_string());
        }
    }

    /// The item with id `id` (as [`TimelineUpdate`] names it), if there is one now.
    pub fn item(&self, id: &str) -> Option<&TimelineItem> {
        self.live().get(self.position_of_id(ItemId::parse(id)?)?)
    }

    /// Where the item with id `id` is in [`live`](Self::live): a binary search over the items'
    /// origins, which are in timeline order.
    fn position_of_id(&self, id: ItemId) -> Option<usize> {
        let live = self.live();
        let at = live.partition_point(|item| item.id < id);
        live.get(at).filter(|item| item.id == id).map(|_| at)
    }

    /// The items `ids` name (as a [`TimelineUpdate`]'s lists do, in timeline order), in that
    /// order; ids of no item now are left out. Work proportional to the items from the first
    /// named one to the last, not a lookup each.
    pub fn items_named(&self, ids: &[String]) -> Vec<&TimelineItem> {
        let live = self.live();
        let mut found = Vec::with_capacity(ids.len());
        let mut at = 0;
        for id in ids.iter().filter_map(|id| ItemId::parse(id)) {
            // The next named item is usually a few places on, and a push's are among the last
            // few; else (an id out of order, or gone) one binary search.
            let within = |from: usize| {
                let mut near = live.get(from..).unwrap_or_default().iter().take(8);
                near.position(|item| item.id == id).map(|k| from + k)
            };
            let last_few = live.len().saturating_sub(8).max(at);
            let from_the_end = || {
                let mut last = live.get(last_few..).unwrap_or_default().iter();
                last.rposition(|item| item.id == id).map(|k| last_few + k)
            };
            let pos = if found.is_empty() {
                from_the_end().or_else(|| within(at))
            } else {
                within(at).or_else(from_the_end)
            }
            .or_else(|| self.position_of_id(id));
            if let Some(pos) = pos {
                found.extend(live.get(pos));
                at = pos + 1;
            }
        }
        found
    }

    /// Whether [`finish`](Self::finish) has been called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Rolls back to `start` (bounded by what has been seen and by `entries`), places every
    /// entry from there, and recomputes the positions that can have moved. With `report`, says
    /// what changed.
    fn apply(
        &mut self,
        entries: &[TranscriptEntry],
        start: usize,
        report: bool,
        origins: Origins<'_>,
    ) -> TimelineUpdate {
        self.apply_parts(entries, entries.len(), start, report, Vec::new(), origins)
    }

    /// [`apply`](Self::apply) for `entries[..end]`, then `tail` (the items of the entries from
    /// `end` on, taken off the timeline, each its own item: see
    /// [`update_keeping_tail`](Self::update_keeping_tail); empty when `end` is the length) put
    /// back after them as they were.
    fn apply_parts(
        &mut self,
        entries: &[TranscriptEntry],
        end: usize,
        start: usize,
        report: bool,
        tail: Vec<TimelineItem>,
        origins: Origins<'_>,
    ) -> TimelineUpdate {
        let placed = entries.get(..end).unwrap_or_default();
        let start = start.min(self.item_of.len()).min(placed.len());
        let mut before = Vec::new();
        if start < self.item_of.len() {
            self.roll_back(placed, start, report.then_some(&mut before));
        }
        let kept = self.end();
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        for (index, entry) in placed.iter().enumerate().skip(start) {
            let pos = self.place(index, entry, origins);
            if report {
                touched.push(pos);
            }
        }
        let boundary = self.end();
        let n = tail.len();
        // The kept items' entries are where the transcript has them now.
        let first_kept = self.base + end;
        self.items
            .extend(tail.into_iter().enumerate().map(|(k, mut item)| {
                if let Some(e) = item.entries.first_mut() {
                    *e = first_kept + k;
                }
                item
            }));
        parsebox_meter::reserve_gently(&mut self.item_of, n);
        self.item_of.extend(boundary..boundary + n);
        let mut carried = match self.diff_target.last() {
            Some(target) => target.get(),
            None => self.diff_target_before,
        };
        for (k, entry) in entries.iter().skip(end).enumerate() {
            carried = diff_target_after(entry, boundary + k, carried);
            parsebox_meter::reserve_gently(&mut self.diff_target, 1);
            self.diff_target.push(DiffTarget::of(carried));
        }
        // Flags from the item before the new ones to the first kept tail item (past it, they
        // follow from neighbours that did not change).
        for pos in kept.saturating_sub(1).max(self.pos_base)..(boundary + 1).min(self.end()) {
            let (first, last) = self.position_of(pos);
            if let Some(item) = self.at_mut(pos) {
                if (item.is_first, item.is_last) != (first, last) {
                    item.is_first = first;
                    item.is_last = last;
                    touched.push(pos);
                }
            }
        }
        let mut update = if report {
            self.report(&mut touched, &before, kept..boundary)
        } else {
            TimelineUpdate::default()
        };
        self.touched = touched;
        self.refresh_frozen_last(&mut update);
        update
    }

    /// Undoes everything entries from `start` on did: items they started go, items they joined
    /// are rebuilt from their earlier entries (keeping their positions). With `before`, keeps
    /// every item it replaces or removes, as it was, for the report (moved, not copied).
    fn roll_back(
        &mut self,
        entries: &[TranscriptEntry],
        start: usize,
        mut before: Option<&mut Vec<(usize, TimelineItem)>>,
    ) {
        let mut affected: Vec<usize> = self.item_of.get(start..).unwrap_or_default().to_vec();
        affected.sort_unstable();
        affected.dedup();
        // Items are in order of their first entries: those that start at `start` or later are
        // a suffix, and all of them are affected.
        let run_start = self.base + start;
        let cut = self.pos_base
            + self
                .live()
                .partition_point(|item| item.entries.first().is_some_and(|&e| e < run_start));
        for pos in affected {
            let (base, finished) = (self.base, self.finished);
            let held = &self.held;
            let Some(item) = slot(live_mut(&mut self.items, self.dead), self.pos_base, pos) else {
                continue;
            };
            if let Some(key) = PairKey::of(item) {
                self.pairing.remove(pos, &key);
            }
            if pos < cut {
                let keep = item.entries.partition_point(|&e| e < run_start);
                let members = item.entries.get(..keep).unwrap_or_default();
                let entry = |index: usize| match index.checked_sub(base) {
                    Some(local) => entries.get(local),
                    None => held.get(&index),
                };
                if let Some(mut rebuilt) = rebuild(entry, members, finished, item.id) {
                    rebuilt.is_first = item.is_first;
                    rebuilt.is_last = item.is_last;
                    let old = std::mem::replace(item, rebuilt);
                    if let Some(before) = before.as_deref_mut() {
                        before.push((pos, old));
                    }
                }
                if let Some(key) = PairKey::of(item) {
                    self.pairing.insert(pos, &key);
                }
            }
        }
        let gone = self
            .items
            .drain(self.dead + cut - self.pos_base..)
            .enumerate();
        if let Some(before) = before {
            before.extend(gone.map(|(k, item)| (cut + k, item)));
        }
        self.item_of.truncate(start);
        self.diff_target.truncate(start);
    }

    /// Places entry `index` of the window (the next one): starts an item or joins one.
    /// Returns the item's position.
    fn place(&mut self, index: usize, entry: &TranscriptEntry, origins: Origins<'_>) -> usize {
        let run_index = self.base + index;
        let carried = match index.checked_sub(1) {
            Some(p) => self.diff_target.get(p).and_then(|t| t.get()),
            None => self.diff_target_before,
        };
        let joins = match entry {
            TranscriptEntry::ToolCall(c) => self.pairing.call_target(c.tool_use_id.as_deref()),
            TranscriptEntry::ToolResult(r) => self
                .pairing
                .result_target(&r.tool_use_id, r.tool_name.as_deref()),
            TranscriptEntry::Diff(_) => carried,
            _ => None,
        };
        let pos = match joins.filter(|&pos| self.at(pos).is_some()) {
            Some(pos) => self.join_at(pos, run_index, entry),
            None => self.push_new(ItemId::of(origins(index)), run_index, entry),
        };
        parsebox_meter::reserve_gently(&mut self.item_of, 1);
        self.item_of.push(pos);
        parsebox_meter::reserve_gently(&mut self.diff_target, 1);
        self.diff_target
            .push(DiffTarget::of(diff_target_after(entry, pos, carried)));
        pos
    }

    /// Entry `index` joins the item at `pos` (which is there), re-registered for pairing.
    fn join_at(&mut self, pos: usize, index: usize, entry: &TranscriptEntry) -> usize {
        let Some(item) = slot(live_mut(&mut self.items, self.dead), self.pos_base, pos) else {
            return pos;
        };
        if let Some(key) = PairKey::of(item) {
            self.pairing.remove(pos, &key);
        }
        join(item, index, entry);
        if let Some(key) = PairKey::of(item) {
            self.pairing.insert(pos, &key);
        }
        pos
    }

    /// Entry `index` starts a new item with id `id` at the end.
    fn push_new(&mut self, id: ItemId, index: usize, entry: &TranscriptEntry) -> usize {
        let item = new_item(id, index, entry, self.finished);
        let pos = self.end();
        if let Some(key) = PairKey::of(&item) {
            self.pairing.insert(pos, &key);
        }
        parsebox_meter::reserve_gently(&mut self.items, 1);
        self.items.push(item);
        pos
    }

    /// What changed: `touched` positions and the items in `before` (as they were before a
    /// roll-back, in timeline order) against the items now; items at `new_items` positions are
    /// new unless an item with the same id (the same first entry's origin) was there before.
    fn report(
        &self,
        touched: &mut Vec<usize>,
        before: &[(usize, TimelineItem)],
        new_items: Range<usize>,
    ) -> TimelineUpdate {
        let mut update = TimelineUpdate::default();
        // Past the new items (a kept tail's), only items whose flags moved changed: a position
        // a rolled-back item held may hold a tail item now.
        let flagged: Vec<usize> = touched
            .iter()
            .copied()
            .filter(|&p| p >= new_items.end)
            .collect();
        touched.extend(before.iter().map(|(pos, _)| *pos));
        touched.sort_unstable();
        touched.dedup();
        let mut matched = vec![false; before.len()];
        // `before` is in timeline order, which is the order of the items' origins.
        let before_ids: Vec<ItemId> = before.iter().map(|(_, old)| old.id).collect();
        for &pos in touched.iter() {
            if pos >= new_items.end && !flagged.contains(&pos) {
                continue;
            }
            let Some(item) = self.at(pos) else {
                continue;
            };
            let same_id = before_ids.binary_search(&item.id);
            match same_id {
                Ok(k) => {
                    if let Some(seen) = matched.get_mut(k) {
                        *seen = true;
                    }
                    if before.get(k).is_some_and(|(_, old)| old != item) {
                        update.changed.push(item.id.to_string());
                    }
                }
                Err(_) if new_items.contains(&pos) => update.added.push(item.id.to_string()),
                Err(_) => update.changed.push(item.id.to_string()),
            }
        }
        update.removed = before
            .iter()
            .zip(&matched)
            .filter(|(_, seen)| !**seen)
            .map(|((_, old), _)| old.id.to_string())
            .collect();
        update
    }
}

/// A [`Timeline::diff_target`] entry: an item's position, or none, in four bytes (a plain run
/// has one a line). Positions past `u32::MAX - 1` cannot occur: a transcript's budget holds far
/// fewer items.
#[derive(Clone, Copy, Debug, Default)]
struct DiffTarget(u32);

impl DiffTarget {
    const NONE: u32 = u32::MAX;

    fn of(pos: Option<usize>) -> Self {
        Self(
            pos.and_then(|p| u32::try_from(p).ok())
                .filter(|&p| p != Self::NONE)
                .unwrap_or(Self::NONE),
        )
    }

    fn get(self) -> Option<usize> {
        (self.0 != Self::NONE).then_some(self.0 as usize)
    }
}

/// The tool card or diff block a diff line after `entry` joins: the item `entry` is in (at
/// `pos`) for a call, result or diff; the one a log line's predecessor carried (`carried`) for
/// a log line (system, stderr, stdout), which does not break the run; none after anything else.
fn diff_target_after(entry: &TranscriptEntry, pos: usize, carried: Option<usize>) -> Option<usize> {
    match entry {
        _ if joins_items(entry) => Some(pos),
        TranscriptEntry::System(_) | TranscriptEntry::Stderr(_) | TranscriptEntry::Stdout(_) => {
            carried
        }
        _ => None,
    }
}

/// Whether an item of type `t` may be joined by a later entry (a tool card, a diff block).
fn joinable(t: TimelineItemType) -> bool {
    matches!(
        t,
        TimelineItemType::ToolCall | TimelineItemType::ToolResult | TimelineItemType::Diff
    )
}

/// Whether the first of `items` is a `user` item (its flags are its own).
fn first_is_user(items: &[TimelineItem]) -> bool {
    items
        .first()
        .is_some_and(|i| i.item_type == TimelineItemType::User)
}

/// Whether `entry` is of a kind that joins an item or that later entries join: a tool call, a
/// result or a diff line. Every other entry is an item of its own.
fn joins_items(entry: &TranscriptEntry) -> bool {
    matches!(
        entry,
        TranscriptEntry::ToolCall(_) | TranscriptEntry::ToolResult(_) | TranscriptEntry::Diff(_)
    )
}

/// The items of `items` from `dead` on: those that have not left the front (a free function,
/// so the caller can still reach the timeline's other fields).
fn live_mut(items: &mut [TimelineItem], dead: usize) -> &mut [TimelineItem] {
    items.get_mut(dead..).unwrap_or_default()
}

/// The item at position `pos` of `items`, whose first is at position `pos_base` (a free
/// function, so the caller can still reach the timeline's other fields).
fn slot(items: &mut [TimelineItem], pos_base: usize, pos: usize) -> Option<&mut TimelineItem> {
    items.get_mut(pos.checked_sub(pos_base)?)
}

/// The item with id `id` that `members` (ascending run indices, all below the replaced range) make: the
/// first starts it, the others join it, exactly as they did when they arrived. `entry` gives
/// the run's entry at an index.
fn rebuild<'a>(
    entry: impl Fn(usize) -> Option<&'a TranscriptEntry>,
    members: &[usize],
    finished: bool,
    id: ItemId,
) -> Option<TimelineItem> {
    let (&first, rest) = members.split_first()?;
    let mut item = new_item(id, first, entry(first)?, finished);
    for &index in rest {
        if let Some(e) = entry(index) {
            join(&mut item, index, e);
        }
    }
    Some(item)
}
