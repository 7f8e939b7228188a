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

use parsebox_meter::{buffer_bytes, Meter};
use parsebox_transcript::TranscriptEntry;

use crate::journal::JournalLine;
use crate::Seq;

/// Most answers remembered per type; the oldest go first.
pub(crate) const MEMO_LINES: usize = 20_000;

/// Most bytes of remembered answers per type, as the core's allocator counts them (each
/// answer's line, ts and entries, and the memo's tables); the oldest go first. Long Claude
/// lines reach it before the count. The memo is not a transcript's: it draws from the core's
/// room beside them, and is left out of what a transcript's calls are charged
/// ([`Host::memo_bytes`](crate::Host::memo_bytes)).
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
    /// What it holds (see [`Memo::bytes`]): a parser may answer a short line with megabytes.
    bytes: isize,
}

/// A type's remembered answers, by the key after their line, valid for one parser generation.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    generation: u64,
    answers: HashMap<u64, Remembered>,
    /// Keys in insertion order, for evicting the oldest.
    order: VecDeque<u64>,
    /// What the memo holds (see [`Memo::bytes`]).
    bytes: isize,
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
            // The old answers go with the old memo, and their bytes with them.
            *self = Self {
                generation,
                ..Self::default()
            };
        }
        let counted = parsebox_meter::installed();
        let meter = Meter::start();
        let mut remembered = Remembered {
            line: line.to_owned(),
            ts: ts.to_owned(),
            entries: entries.to_vec(),
            bytes: 0,
        };
        remembered.bytes = if counted {
            meter.held()
        } else {
            let json = parsebox_transcript::entries_json_bytes(entries);
            isize::try_from(line.len() + ts.len() + json).unwrap_or(isize::MAX)
        };
        let added = remembered.bytes;
        let replaced = self.answers.insert(key, remembered).map(|r| r.bytes);
        if replaced.is_none() {
            self.order.push_back(key);
        }
        // Counted: all the insertion left held (the answer, the tables' growth, less an
        // answer it replaced).
        self.bytes += if counted {
            meter.held()
        } else {
            added - replaced.unwrap_or(0)
        };
        while self.order.len() > MEMO_LINES || self.bytes() > MEMO_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            let meter = Meter::start();
            let gone = self.answers.remove(&old).map_or(0, |g| g.bytes);
            self.bytes += if counted { meter.held() } else { -gone };
        }
    }

    /// What the memo holds, in bytes: as the core's allocator counts them (the answers' lines,
    /// ts and entries, and the memo's tables), or where no counting allocator is installed (a
    /// native command, which never re-renders) the answers' lines, ts and entries' JSON.
    pub(crate) fn bytes(&self) -> usize {
        usize::try_from(self.bytes).unwrap_or(0)
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

/// Most bytes the lines of dropped runs kept waiting for their answer hold (a slow parser's
/// long lines: each may be `maxLineBytes`); past it the oldest are forgotten.
pub(crate) const ORPHAN_BYTES: usize = 16 << 20;

/// A line of a dropped run that its engine still owes.
#[derive(Debug)]
pub(crate) struct Orphan {
    pub(crate) adapter_type: String,
    pub(crate) line: JournalLine,
}

impl Orphan {
    /// The blocks it holds, as the allocator sizes them ([`buffer_bytes`]): its line, ts and
    /// type. It was moved here, not allocated, so there is no allocation to measure.
    fn bytes(&self) -> usize {
        buffer_bytes(self.line.line.capacity())
            + buffer_bytes(self.line.ts.capacity())
            + buffer_bytes(self.adapter_type.capacity())
    }
}

/// Lines of dropped runs by `seq`, waiting for their answers to be remembered.
#[derive(Debug, Default)]
pub(crate) struct Orphans {
    lines: HashMap<Seq, Orphan>,
    order: VecDeque<Seq>,
    /// What the lines hold ([`Orphan::bytes`]).
    bytes: usize,
}

impl Orphans {
    pub(crate) fn insert(&mut self, seq: Seq, adapter_type: &str, line: JournalLine) {
        let orphan = Orphan {
            adapter_type: adapter_type.to_owned(),
            line,
        };
        self.bytes += orphan.bytes();
        match self.lines.insert(seq, orphan) {
            Some(replaced) => self.bytes = self.bytes.saturating_sub(replaced.bytes()),
            None => self.order.push_back(seq),
        }
        while self.order.len() > MAX_ORPHANS || self.bytes > ORPHAN_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(gone) = self.lines.remove(&old) {
                self.bytes = self.bytes.saturating_sub(gone.bytes());
            }
        }
    }

    /// Takes the orphan `seq`, if it is one.
    pub(crate) fn take(&mut self, seq: Seq) -> Option<Orphan> {
        let orphan = self.lines.remove(&seq)?;
        self.bytes = self.bytes.saturating_sub(orphan.bytes());
        // Answers come in order: the taken one is almost always at the front.
        if self.order.front() == Some(&seq) {
            self.order.pop_front();
        } else {
            self.order.retain(|s| *s != seq);
        }
        Some(orphan)
    }

    /// What the lines waiting hold, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::indexing_slicing,
        clippy::cast_possible_wrap,
        clippy::unwrap_used
    )]
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
        assert!(m.bytes() <= MEMO_BYTES);
        assert_eq!(m.get(1, k(0), &long, "0"), None, "evicted");
        assert!(m.get(1, k(15), &long, "15").is_some());
    }

    /// The memo's bytes are what the allocator holds for it, through inserts, replacements,
    /// evictions and a new parser's reset, whatever the answers' shape.
    #[test]
    fn the_memo_counts_the_real_bytes_it_holds() {
        let shapes = [
            parsebox_transcript::generic_entry("x", "t"),
            parsebox_transcript::generic_entry(&"y".repeat(100_000), "t"),
        ];
        let meter = parsebox_meter::Meter::start();
        let mut m = Memo::default();
        for i in 0..3_000usize {
            let entries = vec![shapes[i % 2].clone(); 1 + i % 7];
            let line = "l".repeat(i % 50);
            // Every tenth key again: a replacement.
            let k = if i % 10 == 0 { 7 } else { i as u64 };
            m.insert(1, k, &line, "t", &entries);
            drop((entries, line));
            let real = meter.held();
            assert_eq!(m.bytes() as isize, real, "insert {i}");
            assert!(m.bytes() <= MEMO_BYTES + (1 << 20), "{}", m.bytes());
        }
        m.insert(2, 1, "l", "t", &shapes[..1]);
        assert_eq!(
            m.bytes() as isize,
            meter.held(),
            "after a new parser's reset"
        );
    }

    /// Lines of dropped runs are bounded in bytes as well as in number, and say what they hold
    /// as the allocator counts it.
    #[test]
    fn orphans_are_bounded_in_real_bytes() {
        let mut o = Orphans::default();
        let meter = parsebox_meter::Meter::start();
        for seq in 0..40u64 {
            let line = JournalLine {
                seq,
                line: "x".repeat(1 << 20),
                ts: "t".to_owned(),
                pending: None,
                memo_key: 0,
                killed_once: false,
            };
            o.insert(seq, "type", line);
            assert!(o.bytes() <= ORPHAN_BYTES, "{}", o.bytes());
        }
        assert!(o.take(0).is_none(), "the oldest went first");
        assert!(o.take(39).is_some());
        // The lines' blocks: the tables themselves are a few hundred bytes besides.
        let real = usize::try_from(meter.held()).unwrap();
        assert!(
            real.abs_diff(o.bytes()) < 4 << 10,
            "{real} real, {} counted",
            o.bytes()
        );
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
        assert!(m.bytes() <= MEMO_BYTES, "{}", m.bytes());
        assert!(m.order.len() < 17, "{}", m.order.len());
    }
}
