//! Answers remembered by the line's whole history: a viewer that re-parses the log on every
//! render (Paperclip's `buildTranscript` makes a fresh `createStdoutParser()` run each time, and
//! calls `parseStdoutLine` per line) gets a Worker's answers at once on its next render, instead
//! of the generic entry forever.
//!
//! Parsers are deterministic (Date, Math.random and module state are pinned per run), so a
//! line's answer is a function of the parser generation, the ops its run performed before it
//! and the line itself. Each run carries a [`key`] chained over those ops: two runs that reached
//! a line by the same history have the same key there, and the first run's answer is the second
//! run's. A run starts at [`FRESH_RUN`]; a type's stateless run (the module's own
//! `parseStdoutLine`) keys every line from [`STATELESS`]: its lines depend on nothing before
//! them.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use parsebox_transcript::TranscriptEntry;

use crate::journal::JournalLine;
use crate::Seq;

/// Most answers remembered per type; the oldest go first.
pub(crate) const MEMO_LINES: usize = 20_000;

/// Most bytes of remembered answers per type (each counted as its line and ts and the JSON of
/// its entries); the oldest go first. Long Claude lines reach it before the count.
pub(crate) const MEMO_BYTES: usize = 16 << 20;

/// The history key before every line of a stateless run (a type's stateless run, answered by
/// the module's own `parseStdoutLine`: Paperclip's `adapter.parseStdoutLine`).
pub(crate) const STATELESS: u64 = 0;

/// The history key of a stateful run before its first op: another function answers it
/// (`createStdoutParser().parseLine`), so its keys never meet the stateless ones.
pub(crate) const FRESH_RUN: u64 = 1;

/// What a history key chains over: a line (with its ts), or a `reset()`.
pub(crate) enum Step<'a> {
    Line { line: &'a str, ts: &'a str },
    Reset,
}

/// The history key after `step`, from the key before it. `DefaultHasher::new()` has fixed keys:
/// the same history gives the same key for the life of the page.
pub(crate) fn key(before: u64, step: &Step<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    before.hash(&mut h);
    match step {
        Step::Line { line, ts } => {
            0u8.hash(&mut h);
            ts.hash(&mut h);
            line.hash(&mut h);
        }
        Step::Reset => 1u8.hash(&mut h),
    }
    h.finish()
}

#[derive(Debug)]
struct Remembered {
    line: String,
    ts: String,
    entries: Vec<TranscriptEntry>,
    /// What it is counted as against [`MEMO_BYTES`]: the line, the ts and the entries' JSON
    /// (a parser may answer a short line with megabytes).
    bytes: usize,
}

impl Remembered {
    fn bytes(&self) -> usize {
        self.bytes
    }
}

/// A type's remembered answers, by the key after their line, valid for one parser generation.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    generation: u64,
    answers: HashMap<u64, Remembered>,
    /// Keys in insertion order, for evicting the oldest.
    order: VecDeque<u64>,
    bytes: usize,
}

impl Memo {
    /// Remembers the answer of `line` at `ts` whose history key (after the line) is `key`,
    /// given by the parser of `generation`.
    pub(crate) fn insert(
        &mut self,
        generation: u64,
        key: u64,
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
        let remembered = Remembered {
            line: line.to_owned(),
            ts: ts.to_owned(),
            entries: entries.to_vec(),
            bytes: line.len() + ts.len() + parsebox_transcript::entries_json_bytes(entries),
        };
        self.bytes += remembered.bytes();
        match self.answers.insert(key, remembered) {
            Some(replaced) => self.bytes = self.bytes.saturating_sub(replaced.bytes()),
            None => self.order.push_back(key),
        }
        while self.order.len() > MEMO_LINES || self.bytes > MEMO_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(gone) = self.answers.remove(&old) {
                self.bytes = self.bytes.saturating_sub(gone.bytes());
            }
        }
    }

    /// The remembered answer for history key `key` (after the line), if the parser of
    /// `generation` gave it for this very `line` and `ts` (the key alone is a hash).
    pub(crate) fn get(
        &self,
        generation: u64,
        key: u64,
        line: &str,
        ts: &str,
    ) -> Option<&[TranscriptEntry]> {
        if generation != self.generation {
            return None;
        }
        self.answers
            .get(&key)
            .filter(|r| r.line == line && r.ts == ts)
            .map(|r| r.entries.as_slice())
    }
}

/// Most lines of dropped runs kept waiting for their answer; past it the oldest are forgotten.
pub(crate) const MAX_ORPHANS: usize = 10_000;

/// A line of a dropped run that its engine still owes.
#[derive(Debug)]
pub(crate) struct Orphan {
    pub(crate) adapter_type: String,
    pub(crate) line: JournalLine,
}

/// Lines of dropped runs by `seq`, waiting for their answers to be remembered.
#[derive(Debug, Default)]
pub(crate) struct Orphans {
    lines: HashMap<Seq, Orphan>,
    order: VecDeque<Seq>,
}

impl Orphans {
    pub(crate) fn insert(&mut self, seq: Seq, adapter_type: &str, line: JournalLine) {
        let orphan = Orphan {
            adapter_type: adapter_type.to_owned(),
            line,
        };
        if self.lines.insert(seq, orphan).is_none() {
            self.order.push_back(seq);
        }
        while self.order.len() > MAX_ORPHANS {
            if let Some(old) = self.order.pop_front() {
                self.lines.remove(&old);
            }
        }
    }

    /// Takes the orphan `seq`, if it is one.
    pub(crate) fn take(&mut self, seq: Seq) -> Option<Orphan> {
        let orphan = self.lines.remove(&seq)?;
        // Answers come in order: the taken one is almost always at the front.
        if self.order.front() == Some(&seq) {
            self.order.pop_front();
        } else {
            self.order.retain(|s| *s != seq);
        }
        Some(orphan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_key(before: u64, line: &str) -> u64 {
        key(before, &Step::Line { line, ts: "t" })
    }

    #[test]
    fn the_same_history_gives_the_same_key_and_any_difference_another() {
        let a = line_key(line_key(STATELESS, "one"), "two");
        assert_eq!(a, line_key(line_key(STATELESS, "one"), "two"));
        assert_ne!(
            a,
            line_key(line_key(STATELESS, "uno"), "two"),
            "another line before"
        );
        assert_ne!(a, line_key(STATELESS, "two"), "no line before");
        let reset = key(line_key(STATELESS, "one"), &Step::Reset);
        assert_ne!(a, line_key(reset, "two"), "a reset before");
        assert_ne!(
            key(
                STATELESS,
                &Step::Line {
                    line: "ab",
                    ts: "c"
                }
            ),
            key(
                STATELESS,
                &Step::Line {
                    line: "b",
                    ts: "ac"
                }
            ),
            "line and ts are not run together"
        );
    }

    #[test]
    fn the_oldest_answers_go_first_and_a_new_parser_forgets_them() {
        let mut m = Memo::default();
        let e = [parsebox_transcript::generic_entry("x", "t")];
        let k = |i: usize| line_key(STATELESS, &format!("line {i}"));
        for i in 0..=MEMO_LINES {
            m.insert(1, k(i), &format!("line {i}"), "t", &e);
        }
        assert_eq!(m.get(1, k(0), "line 0", "t"), None, "evicted");
        assert!(m.get(1, k(1), "line 1", "t").is_some());
        assert_eq!(
            m.get(1, k(1), "line 2", "t"),
            None,
            "a key for another line"
        );
        assert_eq!(m.get(1, k(1), "line 1", "other ts"), None);
        assert_eq!(m.get(2, k(1), "line 1", "t"), None, "another generation");
        m.insert(2, k(7), "line 7", "t", &e);
        assert_eq!(m.get(1, k(1), "line 1", "t"), None);
        assert_eq!(m.get(2, k(7), "line 7", "t").map(<[_]>::len), Some(1));
    }

    #[test]
    fn long_lines_are_evicted_by_bytes_before_the_count() {
        let mut m = Memo::default();
        let e = [parsebox_transcript::generic_entry("x", "t")];
        let long = "x".repeat(1 << 20);
        let k = |i: usize| {
            key(
                STATELESS,
                &Step::Line {
                    line: &long,
                    ts: &i.to_string(),
                },
            )
        };
        for i in 0..16 {
            m.insert(1, k(i), &long, &i.to_string(), &e);
        }
        assert!(m.bytes <= MEMO_BYTES);
        assert_eq!(m.get(1, k(0), &long, "0"), None, "evicted");
        assert!(m.get(1, k(15), &long, "15").is_some());
    }

    /// A short line answered with megabytes counts its entries: the memo stays within its
    /// bytes whatever a parser returns.
    #[test]
    fn big_answers_to_short_lines_count_their_entries() {
        let mut m = Memo::default();
        let e = [parsebox_transcript::generic_entry(
            &"y".repeat(1 << 20),
            "t",
        )];
        for i in 0..64u64 {
            m.insert(1, i, "l", "t", &e);
        }
        assert!(m.bytes <= MEMO_BYTES, "{}", m.bytes);
        assert!(m.order.len() < 17, "{}", m.order.len());
    }
}
