//! The late answers of a type's default run, remembered by line and ts: a viewer that re-parses
//! the whole log on each render (Paperclip's `parseStdoutLine` per line) gets a Worker's answer
//! on its next render instead of the generic entry forever.

use std::collections::{HashMap, VecDeque};

use parsebox_transcript::TranscriptEntry;

/// Most answers remembered per type; the oldest go first.
pub(crate) const ANSWER_CACHE_LINES: usize = 10_000;

/// Answers by ts, then line (so a lookup borrows both, allocating nothing: it runs for every
/// line a viewer re-parses), valid for one parser generation.
#[derive(Debug, Default)]
pub(crate) struct AnswerCache {
    generation: u64,
    answers: HashMap<String, HashMap<String, Vec<TranscriptEntry>>>,
    /// `(ts, line)` in insertion order, for evicting the oldest.
    order: VecDeque<(String, String)>,
}

impl AnswerCache {
    /// Remembers the answer of `line` at `ts` given by the parser of `generation`.
    pub(crate) fn insert(
        &mut self,
        generation: u64,
        line: &str,
        ts: &str,
        entries: &[TranscriptEntry],
    ) {
        if generation != self.generation {
            *self = Self {
                generation,
                ..Self::default()
            };
        }
        let at_ts = self.answers.entry(ts.to_owned()).or_default();
        if at_ts.insert(line.to_owned(), entries.to_vec()).is_none() {
            self.order.push_back((ts.to_owned(), line.to_owned()));
        }
        while self.order.len() > ANSWER_CACHE_LINES {
            let Some((ts, line)) = self.order.pop_front() else {
                break;
            };
            if let Some(at_ts) = self.answers.get_mut(&ts) {
                at_ts.remove(&line);
                if at_ts.is_empty() {
                    self.answers.remove(&ts);
                }
            }
        }
    }

    /// The remembered answer of `line` at `ts`, if the parser of `generation` gave it.
    pub(crate) fn get(&self, generation: u64, line: &str, ts: &str) -> Option<&[TranscriptEntry]> {
        if generation != self.generation {
            return None;
        }
        self.answers.get(ts)?.get(line).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_answers_go_first_and_a_new_parser_forgets_them() {
        let mut c = AnswerCache::default();
        let e = [parsebox_transcript::generic_entry("x", "t")];
        for i in 0..=ANSWER_CACHE_LINES {
            c.insert(1, &format!("line {i}"), "t", &e);
        }
        assert_eq!(c.get(1, "line 0", "t"), None, "evicted");
        assert!(c.get(1, "line 1", "t").is_some());
        assert!(c
            .get(1, &format!("line {ANSWER_CACHE_LINES}"), "t")
            .is_some());
        assert_eq!(c.get(1, "line 1", "other ts"), None);
        assert_eq!(c.get(2, "line 1", "t"), None, "another generation");
        c.insert(2, "y", "t", &e);
        assert_eq!(c.get(1, "line 1", "t"), None);
        assert_eq!(c.get(2, "y", "t").map(<[_]>::len), Some(1));
    }
}
