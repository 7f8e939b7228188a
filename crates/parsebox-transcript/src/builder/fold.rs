//! Folding: how a unit's entries join the transcript (deltas merge into the entry before them),
//! and what each unit keeps to fold again from it.

use crate::entry::TranscriptEntry;
use crate::redact::redact_entry_paths;

use super::{Item, LineParser, Produced, TranscriptBuilder};

impl<P: LineParser> TranscriptBuilder<P> {
    /// `entry` as the transcript shows it: redacted when redaction is on. Each produced entry
    /// is redacted before it merges, as Paperclip redacts each parsed entry.
    pub(super) fn folded(&self, entry: TranscriptEntry) -> TranscriptEntry {
        shown(entry, self.options.redact_home_paths)
    }

    /// Gives `entries` whose timestamp is the last chunk's that chunk's one copy of it
    /// ([`TranscriptEntry::share_ts`]): once for each entry a unit produced, as it joins.
    fn share_last_ts(&self, entries: &mut [TranscriptEntry]) {
        if let Some(ts) = &self.last_ts {
            for entry in entries {
                entry.share_ts(ts);
            }
        }
    }

    /// Appends what one line or stderr/system chunk produced, remembering it (unredacted)
    /// when `track_lines` is on.
    pub(super) fn append_unit(
        &mut self,
        produced: Vec<TranscriptEntry>,
        first_changed: &mut usize,
    ) {
        if !self.options.track_lines {
            let mut produced = produced;
            self.share_last_ts(&mut produced);
            for entry in produced {
                let entry = self.folded(entry);
                self.append(entry, first_changed, None);
            }
            return;
        }
        let len_before = self.entries.len();
        let unit = self.items.len();
        let (produced, saved_last) = self.fold_unit(unit, produced, first_changed);
        parsebox_meter::reserve_gently(&mut self.items, 1);
        self.items.push(Item {
            len_before,
            saved_last,
            produced,
        });
    }

    /// Folds unit `unit`'s produced entries onto the transcript (with `track_lines`): as they
    /// are when they show unchanged ([`Produced::Shown`], no copy), else folded from a copy the
    /// unit keeps. Returns what the unit keeps, and the entry of an earlier unit as it was
    /// before this one merged a delta into it.
    pub(super) fn fold_unit(
        &mut self,
        unit: usize,
        produced: Vec<TranscriptEntry>,
        first_changed: &mut usize,
    ) -> (Produced, Option<Box<TranscriptEntry>>) {
        let mut produced = produced;
        self.share_last_ts(&mut produced);
        let merges_in = self
            .entries
            .last()
            .zip(produced.first())
            .is_some_and(|(last, first)| merges(last, first));
        let merges_within = produced
            .iter()
            .zip(produced.iter().skip(1))
            .any(|(a, b)| merges(a, b));
        if !self.options.redact_home_paths && !merges_in && !merges_within {
            let n = produced.len();
            parsebox_meter::reserve_gently(&mut self.entries, produced.len());
            self.entries.extend(produced);
            return (Produced::Shown(n), None);
        }
        let len_before = self.entries.len();
        let mut saved = None;
        for entry in &produced {
            let entry = self.folded(entry.clone());
            self.append(entry, first_changed, Some((unit, len_before, &mut saved)));
        }
        (Produced::Kept(Box::new(produced)), saved)
    }

    /// Before a delta merges into entry `index`, which an earlier unit than `unit` made: that
    /// unit keeps a copy of what it produced, if it relied on the transcript's ([`Produced::Shown`]).
    pub(super) fn keep_produced_of_entry(&mut self, unit: usize, index: usize) {
        let before = self.items.get(..unit).unwrap_or(&self.items);
        let Some(owner) = before
            .partition_point(|item| item.len_before <= index)
            .checked_sub(1)
        else {
            return;
        };
        let Some(item) = self.items.get(owner) else {
            return;
        };
        if let Produced::Shown(n) = item.produced {
            let start = item.len_before;
            let copy = self
                .entries
                .get(start..start + n)
                .unwrap_or_default()
                .to_vec();
            if let Some(item) = self.items.get_mut(owner) {
                item.produced = Produced::Kept(Box::new(copy));
            }
        }
    }

    /// Appends with Paperclip's delta merge rule: an assistant (or thinking) entry whose
    /// `delta` is truthy, following one of the same kind whose `delta` is truthy too, extends it
    /// ([`DeltaText::is_delta`](crate::entry::DeltaText::is_delta)): texts concatenate, the
    /// later ts wins, and everything else (extra fields such as `channel`, key order) stays the
    /// earlier entry's. Other fields, `channel` included, do not keep pieces apart.
    ///
    /// With `unit` (the unit's number and `len_before`, and where to save the pre-merge
    /// entry), a merge into an entry older than the unit saves that entry's previous state
    /// first, so the unit can be folded again, and the unit that made the entry keeps a copy
    /// of what it produced.
    pub(super) fn append(
        &mut self,
        entry: TranscriptEntry,
        first_changed: &mut usize,
        unit: Option<(usize, usize, &mut Option<Box<TranscriptEntry>>)>,
    ) {
        let last_index = self.entries.len().checked_sub(1);
        if let Some(i) = last_index {
            if let Some((unit, len_before, saved)) = unit {
                let older = self
                    .entries
                    .last()
                    .filter(|last| i < len_before && saved.is_none() && merges(last, &entry));
                if let Some(last) = older {
                    *saved = Some(Box::new(last.clone()));
                    self.keep_produced_of_entry(unit, i);
                }
            }
        }
        if let (Some(i), Some(last)) = (last_index, self.entries.last_mut()) {
            let mergeable = merges(last, &entry);
            match (last, &entry) {
                (TranscriptEntry::Assistant(a), TranscriptEntry::Assistant(b))
                | (TranscriptEntry::Thinking(a), TranscriptEntry::Thinking(b))
                    if mergeable =>
                {
                    a.text.push_str(&b.text);
                    a.ts.clone_from(&b.ts);
                    *first_changed = (*first_changed).min(i);
                    return;
                }
                _ => {}
            }
        }
        parsebox_meter::reserve_gently(&mut self.entries, 1);
        self.entries.push(entry);
    }
}

/// `entry` as the transcript shows it: with `redact` (the builder's option), redacted.
pub(super) fn shown(mut entry: TranscriptEntry, redact: bool) -> TranscriptEntry {
    if redact {
        redact_entry_paths(&mut entry);
    }
    entry
}

/// Whether `next` merges into `last` (SPEC §5, as Paperclip's `buildTranscript`): two
/// consecutive entries of the same kind that are both [`streamed`] deltas.
pub(super) fn merges(last: &TranscriptEntry, next: &TranscriptEntry) -> bool {
    std::mem::discriminant(last) == std::mem::discriminant(next) && streamed(last) && streamed(next)
}

/// An assistant (or thinking) entry that is a delta
/// ([`DeltaText::is_delta`](crate::entry::DeltaText::is_delta)): one a later delta of its kind
/// merges into.
pub(super) fn streamed(entry: &TranscriptEntry) -> bool {
    match entry {
        TranscriptEntry::Assistant(d) | TranscriptEntry::Thinking(d) => d.is_delta(),
        _ => false,
    }
}
