//! Late answers: a line's entries replaced after the fact (a Worker's answer, redaction turned
//! on or off), and the transcript folded again from there, only as far as it changes.

use std::ops::Range;

use crate::entry::TranscriptEntry;

use super::fold::streamed;
use super::{LineParser, Produced, TranscriptBuilder};

impl<P: LineParser> TranscriptBuilder<P> {
    /// Replaces the provisional entries of lines answered [`LineAnswer::Later`] with their
    /// answers, by token, folding once (see [`replace_lines`](Self::replace_lines)). A token
    /// from before the last rebuild, or one already answered, changes nothing.
    pub fn replace_answers(&mut self, answers: Vec<(u64, Vec<TranscriptEntry>)>) -> Range<usize> {
        let mut by_item = Vec::with_capacity(answers.len());
        for (token, entries) in answers {
            let Some(unit) = self.later.remove(&token) else {
                continue;
            };
            self.waiting.remove(&unit);
            if let Some(item) = self.item_index(unit) {
                by_item.push((item, entries));
            }
        }
        self.replace_lines(by_item)
    }

    /// Replaces what line `item` produced with `entries` (its late answer) and folds the
    /// transcript again from there: delta merges with the neighbours are redone, the lines
    /// after it are not re-parsed. Returns the range of entries that changed; an unknown item
    /// (or `track_lines` off) changes nothing.
    pub fn replace_line(&mut self, item: usize, entries: Vec<TranscriptEntry>) -> Range<usize> {
        self.replace_lines(vec![(item, entries)])
    }

    /// [`replace_line`](Self::replace_line) for many answers at once, folding the transcript
    /// again only once, from the earliest of them to where the fold is back in step with the
    /// old one (past the last answered line, the first unit that follows an equal entry no
    /// delta can merge into): answers that arrive together (a frame's worth from a worker)
    /// cost one pass over the lines between them, not one each, and not the lines still
    /// waiting after them. The returned range is the entries that changed; the entries after
    /// its end are the old ones, unchanged (the last `entries().len() - range.end` of before).
    pub fn replace_lines(&mut self, answers: Vec<(usize, Vec<TranscriptEntry>)>) -> Range<usize> {
        let mut span: Option<(usize, usize)> = None;
        for (item, entries) in answers {
            if self.items.get(item).is_none() {
                continue;
            }
            if !self.parser.has_room() {
                // A late answer the budget has no room for: the line keeps what it shows (its
                // provisional generic entry).
                self.counts.over_budget_lines += 1;
                continue;
            }
            if let Some(unit) = self.items.get_mut(item) {
                unit.produced = Produced::Kept(Box::new(entries));
                span = Some(span.map_or((item, item), |(f, l)| (f.min(item), l.max(item))));
            }
        }
        match span {
            Some((first, last)) => self.refold(first, Some(last)),
            None => {
                let end = self.entries.len();
                end..end
            }
        }
    }

    /// Whether home paths are redacted now.
    pub fn redacts_home_paths(&self) -> bool {
        self.options.redact_home_paths
    }

    /// Turns redaction of home paths on or off for the whole transcript, without re-parsing:
    /// the entries are folded again from what each line produced (needs `track_lines`;
    /// without it, the retained chunks are re-parsed). Returns the entries that changed (all
    /// of them when the setting changed, none when it did not; the frozen prefix's too).
    pub fn set_redact_home_paths(&mut self, on: bool) -> Range<usize> {
        let end = self.entries.len();
        if self.options.redact_home_paths == on {
            return end..end;
        }
        self.options.redact_home_paths = on;
        if !self.options.track_lines {
            self.rebuild();
            return 0..self.entries.len();
        }
        self.refold_frozen();
        let changed = self.refold(0, None);
        0..changed.end
    }

    /// Folds the transcript again from unit `item` on, from what each unit produced: delta
    /// merges with the neighbours are redone, nothing is re-parsed. With `through` (the last
    /// unit whose output was replaced), the fold stops at the first later unit where it is in
    /// step with the old fold ([`in_step`]) and keeps the old entries from there; without it,
    /// it goes to the end. Returns the entries that changed.
    pub(super) fn refold(&mut self, item: usize, through: Option<usize>) -> Range<usize> {
        let Some(unit) = self.items.get_mut(item) else {
            let end = self.entries.len();
            return end..end;
        };
        let start = unit.len_before;
        let saved = unit.saved_last.take();
        // The old entries from the unit on: where a bounded fold finds its old tail.
        let mut old = self.entries.split_off(start);
        let mut first_changed = start;
        if let Some(saved) = saved {
            if let Some(last) = self.entries.last_mut() {
                *last = *saved;
                first_changed = start.saturating_sub(1);
            }
        }
        for k in item..self.items.len() {
            let len_before = self.entries.len();
            let Some(unit) = self.items.get_mut(k) else {
                break;
            };
            if through.is_some_and(|t| k > t)
                && in_step(&self.entries, &old, start, unit.len_before)
            {
                // From unit k on, both folds append the same entries onto the same last entry:
                // keep the old ones, shifted to where the new fold stands.
                let was = unit.len_before;
                let end = self.entries.len();
                self.entries
                    .extend(old.drain((was - start).min(old.len())..));
                for later in self.items.iter_mut().skip(k) {
                    later.len_before = later.len_before - was + end;
                }
                return first_changed..end;
            }
            let was = unit.len_before;
            unit.len_before = len_before;
            let produced = match std::mem::replace(&mut unit.produced, Produced::Shown(0)) {
                Produced::Kept(entries) => *entries,
                // Its entries are the old fold's, unchanged.
                Produced::Shown(n) => {
                    let from = was - start;
                    old.get(from..from + n).unwrap_or_default().to_vec()
                }
            };
            let (produced, saved) = self.fold_unit(k, produced, &mut first_changed);
            if let Some(unit) = self.items.get_mut(k) {
                unit.produced = produced;
                unit.saved_last = saved;
            }
        }
        first_changed..self.entries.len()
    }
}

/// Whether a bounded refold that stands at `entries.len()` is in step with the old fold at a
/// unit that began at `was` in it: `old` holds the old entries from `start` on. In step when
/// both have a last entry, equal, that no delta merges into (so the old one was final when
/// the unit began, and the unit and everything after it fold the same way onto either).
pub(super) fn in_step(
    entries: &[TranscriptEntry],
    old: &[TranscriptEntry],
    start: usize,
    was: usize,
) -> bool {
    let (Some(new_last), Some(old_last)) = (
        entries.last(),
        was.checked_sub(start + 1).and_then(|k| old.get(k)),
    ) else {
        return false;
    };
    !streamed(new_last) && new_last == old_last
}
