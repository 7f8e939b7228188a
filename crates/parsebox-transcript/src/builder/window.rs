//! The window: letting go of the chunks before a point, and the entries they made.

use crate::entry::TranscriptEntry;

use super::intake::chunk_hash;
use super::{Item, LineParser, PushChange, TranscriptBuilder};

impl<P: LineParser> TranscriptBuilder<P> {
    /// Drops the oldest chunks past `max_chunks` / `max_retained_bytes`, with the entries only
    /// they produced. The window only starts where an entry starts: while the oldest kept
    /// entry is a streamed message still built from older chunks' deltas, those chunks stay,
    /// so no entry is ever cut. Returns the entries that left the front.
    pub(super) fn keep_window(&mut self) -> Vec<TranscriptEntry> {
        if !self.options.retain_chunks || !self.options.track_lines {
            return Vec::new();
        }
        let mut over = self
            .options
            .max_chunks
            .map_or(0, |max| self.chunks.len().saturating_sub(max.max(1)));
        if let Some(max_bytes) = self.options.max_retained_bytes {
            let mut bytes = self.counts.retained_bytes;
            let mut k = 0;
            while bytes > max_bytes && k + 1 < self.chunks.len() {
                bytes -= self.chunks.get(k).map_or(0, |c| c.text.len());
                k += 1;
            }
            over = over.max(k);
        }
        self.drop_before_fresh(over)
    }

    /// Lets go of the retained chunks before retained chunk `k` (counted from 0 at the oldest
    /// retained chunk), with the entries only they produced, as the window of
    /// [`TranscriptOptions::max_chunks`] does, for a caller whose window is not a fixed size
    /// (a viewer handed a list that dropped chunks at its start). The line the dropped chunks
    /// began and the state they built stay; a later [`rebuild`](Self::rebuild) re-parses from
    /// the first chunk kept. Needs `retain_chunks` and `track_lines`; without them nothing is
    /// dropped. Returns the entries that left the front; no other entry changes.
    pub fn drop_chunks_before(&mut self, k: usize) -> PushChange {
        let dropped = if self.options.retain_chunks && self.options.track_lines {
            self.drop_before_fresh(k.min(self.chunks.len()))
        } else {
            Vec::new()
        };
        let end = self.entries.len();
        PushChange {
            dropped,
            changed: end..end,
        }
    }

    /// Drops the retained chunks before chunk `k`, backing off to a chunk that starts a fresh
    /// entry (its first unit does not merge into an older entry, or, with no unit yet, no entry
    /// is still open to a merge), so no entry is ever cut. Returns the entries dropped.
    /// While a rebuild is under way, only chunks it has re-ingested can go.
    pub(super) fn drop_before_fresh(&mut self, k: usize) -> Vec<TranscriptEntry> {
        let mut k = self.rebuilding.as_ref().map_or(k, |r| k.min(r.next_chunk));
        while k > 0 && !self.starts_fresh(k) {
            k -= 1;
        }
        if k == 0 {
            return Vec::new();
        }
        let dropped = self.drop_front(k);
        if let Some(r) = self.rebuilding.as_mut() {
            r.next_chunk -= k;
        }
        dropped
    }

    /// Whether a window that begins at retained chunk `k` cuts no entry.
    pub(super) fn starts_fresh(&self, k: usize) -> bool {
        let Some(&unit) = self.chunk_starts.get(k) else {
            return self.final_len() == self.entries.len();
        };
        match self.item_index(unit) {
            None => self.frozen.starts_fresh(unit),
            Some(i) => self
                .items
                .get(i..)
                .and_then(merges_nothing_back)
                .unwrap_or_else(|| {
                    // No unit from it on made an entry: fresh unless a later line's delta
                    // may still merge into the last entry.
                    let base = self
                        .items
                        .get(i)
                        .map_or(self.entries.len(), |u| u.len_before);
                    self.entries.len() > base || self.final_len() == self.entries.len()
                }),
        }
    }

    /// Drops the `k` oldest retained chunks and every unit and entry before the first unit
    /// chunk `k` completed (which starts a fresh entry), frozen ones first. Returns the
    /// entries dropped.
    pub(super) fn drop_front(&mut self, k: usize) -> Vec<TranscriptEntry> {
        let first_unit = self.chunk_starts.get(k).copied().unwrap_or(self.units());
        let first_item = self
            .item_index(first_unit)
            .unwrap_or(0)
            .min(self.items.len());
        let frozen_units = self.frozen.units();
        let mut dropped = self
            .frozen
            .drop_before(first_unit, self.options.redact_home_paths);
        self.dropped_units += frozen_units - self.frozen.units();
        let first_entry = self
            .items
            .get(first_item)
            .map_or(self.entries.len(), |i| i.len_before);
        for chunk in self.chunks.drain(..k.min(self.chunks.len())) {
            self.counts.retained_bytes -= chunk.text.len();
            if self.options.drop_duplicate_chunks {
                // The oldest chunk is the oldest of its hash's numbers.
                let hash = chunk_hash(&chunk.ts, chunk.stream, &chunk.text);
                if let Some(numbers) = self.chunk_hashes.get_mut(&hash) {
                    numbers.remove(0);
                    if numbers.is_empty() {
                        self.chunk_hashes.remove(&hash);
                    }
                }
            }
        }
        self.chunk_starts.drain(..k.min(self.chunk_starts.len()));
        self.items.drain(..first_item);
        self.dropped_units += first_item as u64;
        for item in &mut self.items {
            item.len_before -= first_entry;
        }
        // The lines still waiting that left with the dropped units wait no more.
        let first_kept = self.window_first_unit();
        self.later.retain(|_, unit| *unit >= first_kept);
        self.waiting = self.waiting.split_off(&first_kept);
        dropped.extend(self.entries.drain(..first_entry.min(self.entries.len())));
        self.counts.dropped_chunks += k as u64;
        self.counts.dropped_entries += dropped.len() as u64;
        dropped
    }
}

/// Whether a window beginning at `units[0]` cuts no entry: none of the units up to the first
/// that makes an entry of its own merged a delta into an entry before them (a unit that made
/// nothing does not end the question: the next line's delta merges past it). `None` when no
/// unit makes an entry, or there is none: the units after them decide.
pub(super) fn merges_nothing_back(units: &[Item]) -> Option<bool> {
    let base = units.first()?.len_before;
    for unit in units {
        if unit.len_before > base {
            return Some(true);
        }
        if unit.saved_last.is_some() {
            return Some(false);
        }
    }
    None
}
