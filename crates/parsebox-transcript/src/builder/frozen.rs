//! The frozen prefix ([`TranscriptOptions::compact_final`](super::TranscriptOptions)): entries
//! no later line, late answer or merge can change leave the live vectors and are kept
//! compactly. A run of stdout lines each shown as its generic entry is kept as a span of the
//! retained chunk its lines are in (its text is there already: a line costs nothing more); any
//! other final unit keeps its entries and its fold record as the live window keeps them.
//! Reads make a plain line's entry again from the chunk, the same entry it was.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::entry::{Extra, Text, TranscriptEntry};
use crate::entry_text::EntryText;
use crate::origin::EntryOrigin;
use crate::Ts;

use super::fold::{shown, streamed};
use super::window::merges_nothing_back;
use super::{line_of, Item, LineParser, Produced, TranscriptBuilder};

/// The frozen prefix: pieces in the run's order.
#[derive(Default)]
pub(super) struct Frozen {
    pieces: VecDeque<Piece>,
    /// Entries the pieces hold (the window's first entry is the prefix's `entries`th).
    entries: usize,
    /// Units the pieces hold.
    units: u64,
    /// Lines the `Lines` pieces hold: each stands for an entry and a fold record it no longer
    /// keeps.
    plain: u64,
}

/// A stretch of frozen units.
enum Piece {
    Lines(Lines),
    Units(Units),
}

/// Consecutive stdout lines of one retained chunk, each shown as its generic entry (the line's
/// text, the chunk's ts), one unit each: `chunk[start..end]` from the first line's text to the
/// last's, read again with the rule that split them ([`line_of`]).
struct Lines {
    chunk: Arc<str>,
    start: u32,
    end: u32,
    ts: Ts,
    first_unit: u64,
    count: u32,
}

/// Units kept as the window keeps them: their entries, and each unit's fold record (its
/// `len_before` counted from the piece's first entry).
struct Units {
    first_unit: u64,
    items: Vec<Item>,
    entries: Vec<TranscriptEntry>,
}

impl Lines {
    /// The lines' texts, in order.
    fn texts(&self) -> impl Iterator<Item = &str> + '_ {
        let span = self
            .chunk
            .get(self.start as usize..self.end as usize)
            .unwrap_or("");
        span.split('\n').filter_map(line_of)
    }

    /// The entries, as they were when shown.
    fn entries(&self) -> impl Iterator<Item = TranscriptEntry> + '_ {
        self.texts()
            .map(|line| plain_entry(&self.chunk, line, &self.ts))
    }

    /// Leaves out the first `n` lines.
    fn skip(&mut self, n: u32) {
        let span = self
            .chunk
            .get(self.start as usize..self.end as usize)
            .unwrap_or("");
        if let Some(line) = span.split('\n').filter_map(line_of).nth(n as usize) {
            let at = line.as_ptr() as usize - self.chunk.as_ptr() as usize;
            self.start = u32::try_from(at).unwrap_or(self.end);
        }
        self.first_unit += u64::from(n);
        self.count -= n.min(self.count);
    }
}

/// The generic entry of `line`, a slice of `chunk`, dated `ts`: what a plain line showed.
fn plain_entry(chunk: &Arc<str>, line: &str, ts: &Ts) -> TranscriptEntry {
    let text = EntryText::slice_of(chunk, line).unwrap_or_else(|| EntryText::from(line));
    TranscriptEntry::Stdout(Text {
        ts: ts.clone(),
        text,
        extra: Extra::new(),
    })
}

impl Piece {
    fn first_unit(&self) -> u64 {
        match self {
            Self::Lines(l) => l.first_unit,
            Self::Units(u) => u.first_unit,
        }
    }
    fn units(&self) -> u64 {
        match self {
            Self::Lines(l) => u64::from(l.count),
            Self::Units(u) => u.items.len() as u64,
        }
    }
    fn len(&self) -> usize {
        match self {
            Self::Lines(l) => l.count as usize,
            Self::Units(u) => u.entries.len(),
        }
    }
}

/// What a unit leaving the window is, to [`Frozen::push_unit`].
pub(super) struct Leaving<'a> {
    /// The unit's run number.
    pub unit: u64,
    /// Its fold record (`len_before` counted from the window's front).
    pub item: Item,
    /// The entries it shows.
    pub shown: &'a [TranscriptEntry],
    /// Whether it shows exactly what it produced, as a plain line: one generic entry whose
    /// text is a slice of a retained chunk.
    pub plain: bool,
}

impl Frozen {
    /// Entries held.
    pub(super) fn len(&self) -> usize {
        self.entries
    }

    /// Units held.
    pub(super) fn units(&self) -> u64 {
        self.units
    }

    /// Lines kept as spans of their chunks.
    pub(super) fn plain_lines(&self) -> u64 {
        self.plain
    }

    /// Lets go of everything (a rebuild parses the run again).
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Appends a unit that left the window's front.
    pub(super) fn push_unit(&mut self, leaving: Leaving<'_>) {
        self.units += 1;
        self.entries += leaving.shown.len();
        if leaving.plain {
            if let Some(lines) = self.lines_of(leaving.shown) {
                self.plain += 1;
                if let Some(Piece::Lines(last)) = self.pieces.back_mut() {
                    if last.extends_to(&lines, leaving.unit) {
                        last.end = lines.end;
                        last.count += 1;
                        return;
                    }
                }
                self.pieces.push_back(Piece::Lines(Lines {
                    first_unit: leaving.unit,
                    ..lines
                }));
                return;
            }
        }
        let mut item = leaving.item;
        let units = match self.pieces.back_mut() {
            Some(Piece::Units(u)) if u.first_unit + u.items.len() as u64 == leaving.unit => u,
            _ => {
                self.pieces.push_back(Piece::Units(Units {
                    first_unit: leaving.unit,
                    items: Vec::new(),
                    entries: Vec::new(),
                }));
                match self.pieces.back_mut() {
                    Some(Piece::Units(u)) => u,
                    _ => return,
                }
            }
        };
        item.len_before = units.entries.len();
        parsebox_meter::reserve_gently(&mut units.items, 1);
        units.items.push(item);
        parsebox_meter::reserve_gently(&mut units.entries, leaving.shown.len());
        units.entries.extend_from_slice(leaving.shown);
    }

    /// A one-line [`Lines`] for `shown` when it is the generic entry of a slice of a chunk.
    fn lines_of(&self, shown: &[TranscriptEntry]) -> Option<Lines> {
        let [entry @ TranscriptEntry::Stdout(b)] = shown else {
            return None;
        };
        let (chunk, start, end) = b.text.chunk_slice()?;
        let lines = Lines {
            chunk: Arc::clone(chunk),
            start,
            end,
            ts: b.ts.clone(),
            first_unit: 0,
            count: 1,
        };
        // Read back as the frozen prefix will read it: the same entry, or not a plain line.
        let again = lines.entries().next()?;
        (lines.texts().count() == 1 && again == *entry).then_some(lines)
    }

    /// Every entry, in order, as the transcript shows it: with `redact`, a plain line's
    /// generic entry redacted.
    pub(super) fn entries(&self, redact: bool) -> impl Iterator<Item = TranscriptEntry> + '_ {
        self.pieces.iter().flat_map(
            move |piece| -> Box<dyn Iterator<Item = TranscriptEntry> + '_> {
                match piece {
                    Piece::Lines(l) => Box::new(l.entries().map(move |e| shown(e, redact))),
                    Piece::Units(u) => Box::new(u.entries.iter().cloned()),
                }
            },
        )
    }

    /// Every entry with its origin (the unit that started it, and which of that unit's entries
    /// it is), in order, as [`entries`](Self::entries) gives them.
    pub(super) fn entries_with_origins(
        &self,
        redact: bool,
    ) -> impl Iterator<Item = (EntryOrigin, TranscriptEntry)> + '_ {
        self.pieces.iter().flat_map(
            move |piece| -> Box<dyn Iterator<Item = (EntryOrigin, TranscriptEntry)> + '_> {
                match piece {
                    Piece::Lines(l) => Box::new(l.entries().enumerate().map(move |(k, e)| {
                        let unit = l.first_unit + k as u64;
                        (EntryOrigin { unit, nth: 0 }, shown(e, redact))
                    })),
                    Piece::Units(u) => Box::new(
                        u.entries
                            .iter()
                            .enumerate()
                            .map(move |(i, e)| (u.origin_of(i), e.clone())),
                    ),
                }
            },
        )
    }

    /// The last entry with its origin (a unit that made no entry may come after it).
    pub(super) fn last_with_origin(&self, redact: bool) -> Option<(EntryOrigin, TranscriptEntry)> {
        match self.pieces.iter().rev().find(|p| p.len() > 0)? {
            Piece::Lines(l) => {
                let span = l.chunk.get(l.start as usize..l.end as usize)?;
                let entry = plain_entry(&l.chunk, span.rsplit('\n').find_map(line_of)?, &l.ts);
                let unit = l.first_unit + u64::from(l.count.checked_sub(1)?);
                Some((EntryOrigin { unit, nth: 0 }, shown(entry, redact)))
            }
            Piece::Units(u) => {
                let i = u.entries.len().checked_sub(1)?;
                Some((u.origin_of(i), u.entries.get(i)?.clone()))
            }
        }
    }

    /// Whether a window beginning at unit `unit` (frozen) cuts no entry: no unit from it on
    /// merged into an entry before it ([`merges_nothing_back`]). A run of frozen units that
    /// made nothing ends where something was frozen after them, and that was only where the
    /// last entry was one no delta merges into.
    pub(super) fn starts_fresh(&self, unit: u64) -> bool {
        match self.piece_of(unit) {
            Some(Piece::Units(u)) => usize::try_from(unit - u.first_unit)
                .ok()
                .and_then(|k| u.items.get(k..))
                .and_then(merges_nothing_back)
                .unwrap_or(true),
            _ => true,
        }
    }

    /// The index in the prefix of the first entry unit `unit` made or changed (one frozen, or
    /// from before the prefix: 0). A walk over the pieces: the pieces before a window's
    /// first chunk are let go with it, so a follower's first chunk is near the front.
    pub(super) fn first_entry_of_unit(&self, unit: u64) -> usize {
        let mut before = 0;
        for piece in &self.pieces {
            let first = piece.first_unit();
            if unit < first + piece.units() {
                let k = unit.saturating_sub(first);
                return before
                    + match piece {
                        Piece::Lines(_) => usize::try_from(k).unwrap_or(usize::MAX),
                        Piece::Units(u) => usize::try_from(k)
                            .ok()
                            .and_then(|k| u.items.get(k))
                            .map_or(u.entries.len(), Item::first_entry),
                    };
            }
            before += piece.len();
        }
        before
    }

    fn piece_of(&self, unit: u64) -> Option<&Piece> {
        let k = self
            .pieces
            .partition_point(|p| p.first_unit() + p.units() <= unit);
        self.pieces.get(k).filter(|p| p.first_unit() <= unit)
    }

    /// Lets go of the units before `unit` (where an entry starts: no unit from it on merged
    /// into an earlier one), returning their entries as they were shown.
    pub(super) fn drop_before(&mut self, unit: u64, redact: bool) -> Vec<TranscriptEntry> {
        let mut dropped = Vec::new();
        while let Some(piece) = self.pieces.front_mut() {
            let first = piece.first_unit();
            if first >= unit {
                break;
            }
            let n = unit - first;
            if n >= piece.units() {
                let (len, units) = (piece.len(), piece.units());
                match self.pieces.pop_front() {
                    Some(Piece::Lines(l)) => {
                        self.plain -= u64::from(l.count);
                        dropped.extend(l.entries().map(|e| shown(e, redact)));
                    }
                    Some(Piece::Units(u)) => dropped.extend(u.entries),
                    None => {}
                }
                self.entries -= len;
                self.units -= units;
                continue;
            }
            match piece {
                Piece::Lines(l) => {
                    let k = u32::try_from(n).unwrap_or(u32::MAX);
                    dropped.extend(l.entries().take(k as usize).map(|e| shown(e, redact)));
                    self.plain -= u64::from(k.min(l.count));
                    l.skip(k);
                    self.entries -= k as usize;
                }
                Piece::Units(u) => {
                    let k = usize::try_from(n).unwrap_or(usize::MAX).min(u.items.len());
                    let first_entry = u.items.get(k).map_or(u.entries.len(), |i| i.len_before);
                    u.items.drain(..k);
                    for item in &mut u.items {
                        item.len_before -= first_entry;
                    }
                    dropped.extend(u.entries.drain(..first_entry));
                    u.first_unit += k as u64;
                    self.entries -= first_entry;
                }
            }
            self.units -= n;
            break;
        }
        dropped
    }

    /// The kept units' pieces, for a fold again of each (redaction turned on or off): their
    /// entries and fold records.
    pub(super) fn units_mut(
        &mut self,
    ) -> impl Iterator<Item = (&mut Vec<TranscriptEntry>, &mut Vec<Item>)> + '_ {
        self.pieces.iter_mut().filter_map(|p| match p {
            Piece::Units(u) => Some((&mut u.entries, &mut u.items)),
            Piece::Lines(_) => None,
        })
    }

    /// After a fold again of a kept piece: the entries the pieces hold.
    pub(super) fn recount(&mut self) {
        self.entries = self.pieces.iter().map(Piece::len).sum();
    }
}

impl Units {
    /// The origin of the piece's entry `i`: the last unit that began at or before it.
    fn origin_of(&self, i: usize) -> EntryOrigin {
        let k = self.items.partition_point(|item| item.len_before <= i);
        let item = k.checked_sub(1).and_then(|k| Some((k, self.items.get(k)?)));
        match item {
            Some((k, item)) => EntryOrigin {
                unit: self.first_unit + k as u64,
                nth: i - item.len_before,
            },
            None => EntryOrigin {
                unit: self.first_unit,
                nth: i,
            },
        }
    }
}

impl Lines {
    /// Whether `next` (one line, of unit `unit`) goes on from these lines: the next unit, in
    /// the same chunk, dated the same, with nothing but blank text between them.
    fn extends_to(&self, next: &Lines, unit: u64) -> bool {
        if self.first_unit + u64::from(self.count) != unit
            || !Arc::ptr_eq(&self.chunk, &next.chunk)
            || self.ts != next.ts
            || next.start < self.end
        {
            return false;
        }
        let gap = self
            .chunk
            .get(self.end as usize..next.start as usize)
            .unwrap_or("x");
        gap.contains('\n') && gap.split('\n').all(|s| line_of(s).is_none())
    }
}

impl<P: LineParser> TranscriptBuilder<P> {
    /// With [`TranscriptOptions::compact_final`](super::TranscriptOptions::compact_final):
    /// moves the units no later line, late answer or merge can change (those before the first
    /// line still waiting for its answer, up to an entry no delta merges into) from
    /// [`entries`](Self::entries) to the frozen prefix. The transcript does not change, nor
    /// does any entry's place in it: the window's front moves on. A caller that reads
    /// `entries()` by the indices a call returned calls it before its next call, not between
    /// the two. Not during a rebuild. Returns how many entries moved.
    pub fn freeze_final(&mut self) -> usize {
        self.freeze_final_within(usize::MAX)
    }

    /// [`freeze_final`](Self::freeze_final), moving at most the window's first `most` entries
    /// (a timeline beside the transcript lets go of only the items it no longer changes).
    pub fn freeze_final_within(&mut self, most: usize) -> usize {
        let b = self.freeze_point(most);
        if b == 0 {
            return 0;
        }
        let first_unit = self.window_first_unit();
        let moved = self
            .items
            .get(b)
            .map_or(self.entries.len(), |i| i.len_before);
        for i in 0..b {
            let start = self.items.get(i).map_or(moved, |item| item.len_before);
            let end = self.items.get(i + 1).map_or(moved, |item| item.len_before);
            let Some(item) = self.items.get_mut(i) else {
                break;
            };
            let item = std::mem::replace(
                item,
                Item {
                    len_before: 0,
                    saved_last: None,
                    produced: Produced::Shown(0),
                },
            );
            let shown = self.entries.get(start..end).unwrap_or_default();
            let plain = item.saved_last.is_none()
                && match &item.produced {
                    Produced::Shown(n) => *n == 1,
                    Produced::Kept(v) => v.len() == 1 && v.first() == shown.first(),
                };
            self.frozen.push_unit(Leaving {
                unit: first_unit + i as u64,
                item,
                shown,
                plain,
            });
        }
        self.items.drain(..b);
        self.entries.drain(..moved);
        for item in &mut self.items {
            item.len_before -= moved;
        }
        // The window is what is still open: it need not keep room for what left it.
        parsebox_meter::shrink_gently(&mut self.entries);
        parsebox_meter::shrink_gently(&mut self.items);
        // (`later` and `waiting` keep the run's unit numbers: nothing that waits was frozen.)
        self.origin_hint.set(0);
        moved
    }

    /// How many of the window's first entries [`freeze_final`](Self::freeze_final) would move
    /// now.
    pub fn final_prefix_len(&self) -> usize {
        let b = self.freeze_point(usize::MAX);
        if b == 0 {
            return 0;
        }
        self.items
            .get(b)
            .map_or(self.entries.len(), |i| i.len_before)
    }

    /// The first unit (of `items`) that stays in the window when the units before it are
    /// frozen, moving at most `most` entries: 0 when nothing can move.
    fn freeze_point(&self, most: usize) -> usize {
        let o = &self.options;
        if !o.compact_final || !o.retain_chunks || !o.track_lines || self.rebuilding.is_some() {
            return 0;
        }
        // The last unit that begins within `most` entries (a binary search: the units are in
        // order of their first entries).
        let within = if self.entries.len() <= most {
            self.items.len()
        } else {
            self.items
                .partition_point(|i| i.len_before <= most)
                .saturating_sub(1)
        };
        let mut b = self
            .waiting
            .first()
            // (A waiting unit is never before the window; were one, nothing would freeze.)
            .map_or(self.items.len(), |&u| self.item_index(u).unwrap_or(0))
            .min(within);
        while b > 0 && !self.final_before(b) {
            b -= 1;
        }
        b
    }

    /// Whether the units before `items[b]` are final: unit `b` (if any) merged nothing into
    /// them, and their last entry is one no delta merges into.
    fn final_before(&self, b: usize) -> bool {
        let next = self.items.get(b);
        let start = next.map_or(self.entries.len(), |i| i.len_before);
        next.is_none_or(|i| i.saved_last.is_none())
            && start
                .checked_sub(1)
                .and_then(|k| self.entries.get(k))
                .is_none_or(|e| !streamed(e))
    }

    /// Folds each kept piece of the frozen prefix again (redaction turned on or off), as the
    /// window is folded: a piece begins where an entry begins, so each folds alone.
    pub(super) fn refold_frozen(&mut self) {
        let mut frozen = std::mem::take(&mut self.frozen);
        for (entries, items) in frozen.units_mut() {
            std::mem::swap(&mut self.entries, entries);
            std::mem::swap(&mut self.items, items);
            self.refold(0, None);
            std::mem::swap(&mut self.entries, entries);
            std::mem::swap(&mut self.items, items);
        }
        frozen.recount();
        self.frozen = frozen;
    }
}
