//! The late answers of a type's default run, remembered by line and ts: a viewer that re-parses
//! the whole log on each render (Paperclip's `parseStdoutLine` per line) gets a Worker's answer
//! on its next render instead of the generic entry forever.

use std::collections::{HashMap, VecDeque};

use parsebox_transcript::TranscriptEntry;

/// Most answers remembered per type; the oldest go first.
pub(crate) const ANSWER_CACHE_LINES: usize = 10_000;

/// Answers by `(ts, line)`, valid for one parser generation.
#[derive(Debug, Default)]
pub(crate) struct AnswerCache {
    generation: u64,
    answers: HashMap<(String, String), Vec<TranscriptEntry>>,
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
        let key = (ts.to_owned(), line.to_owned());
        if self.answers.insert(key.clone(), entries.to_vec()).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > ANSWER_CACHE_LINES {
            if let Some(old) = self.order.pop_front() {
                self.answers.remove(&old);
            }
        }
    }

    /// The remembered answer of `line` at `ts`, if the parser of `generation` gave it.
    pub(crate) fn get(&self, generation: u64, line: &str, ts: &str) -> Option<&[TranscriptEntry]> {
        if generation != self.generation {
            return None;
        }
        self.answers
            .get(&(ts.to_owned(), line.to_owned()))
            .map(Vec::as_slice)
    }
}
