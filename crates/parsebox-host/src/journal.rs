//! A run's journal: the operations that brought its parser to its current state, so a fresh
//! engine can be brought to the same state by replaying them.
//!
//! It holds every line sent since the run was created, in order, and a `Reset` wherever the
//! parser was reset: by the host ([`Host::reset_run`](crate::Host::reset_run)), or by the engine
//! itself after a line whose outcome resets the parser. Such a line leaves the journal and a
//! `Reset` takes its place, so replay never runs a line that failed (a line that ran past its
//! deadline would otherwise be the next kill). The journal is not cut at resets: `reset()` keeps
//! module-level state, which only the earlier lines rebuild.
//!
//! Answered lines always precede unanswered ones (an engine answers a run's lines in order);
//! `first_pending` points at the first unanswered line so settling one is O(1).

use std::collections::VecDeque;

use crate::{EngineOp, LineOp, RunId, Seq};

/// How a line's settled answer reaches the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// The caller waits synchronously: returned from the `handle_*` call that settles it.
    Now,
    /// The line was shown provisionally: a `LateAnswer` command.
    Late,
}

/// One journaled line.
#[derive(Debug)]
pub(crate) struct JournalLine {
    pub(crate) seq: Seq,
    pub(crate) line: String,
    pub(crate) ts: String,
    /// `None` once answered; how to deliver the answer while pending.
    pub(crate) pending: Option<Delivery>,
    /// The run's history key after this line ([`crate::memo`]): where its answer is remembered.
    pub(crate) memo_key: u64,
    /// A Worker was ended once at its deadline while running this line: it runs once more,
    /// on a fresh engine, and fails if that one is ended on it too.
    pub(crate) killed_once: bool,
}

impl JournalLine {
    fn bytes(&self) -> usize {
        self.line.len() + self.ts.len()
    }

    /// The line as an op of `run` for an engine: a replay once answered.
    fn op(&self, run: RunId) -> LineOp {
        LineOp {
            seq: self.seq,
            run,
            line: self.line.clone(),
            ts: self.ts.clone(),
            replay: self.pending.is_none(),
        }
    }
}

#[derive(Debug)]
enum JournalOp {
    Line(JournalLine),
    /// A reset, with the seq of the line before it (or of the line whose outcome reset the
    /// parser, whose place it took): the ops stay in seq order, so a line is found by a binary
    /// search however many wait (answers from several engines come in any order).
    Reset(Seq),
}

impl JournalOp {
    /// Its place in seq order.
    fn seq(&self) -> Seq {
        match self {
            Self::Line(l) => l.seq,
            Self::Reset(after) => *after,
        }
    }
}

/// See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    ops: VecDeque<JournalOp>,
    /// Index of the first unanswered line in `ops` (`ops.len()` when none).
    first_pending: usize,
    bytes: usize,
    pending: usize,
}

impl Journal {
    /// Appends a line: unanswered (`delivery`: how its answer will reach the page), or already
    /// answered (`None`: from the memo, so the engine has yet to run it).
    pub(crate) fn push_line(
        &mut self,
        seq: Seq,
        line: &str,
        ts: &str,
        delivery: Option<Delivery>,
        memo_key: u64,
    ) {
        let l = JournalLine {
            seq,
            line: line.to_owned(),
            ts: ts.to_owned(),
            pending: delivery,
            memo_key,
            killed_once: false,
        };
        self.bytes += l.bytes();
        if delivery.is_some() {
            self.pending += 1;
            if self.pending == 1 {
                self.first_pending = self.ops.len();
            }
        } else if self.pending == 0 {
            self.first_pending = self.ops.len() + 1;
        }
        parsebox_meter::reserve_gently_deque(&mut self.ops, 1);
        self.ops.push_back(JournalOp::Line(l));
    }

    /// Appends a reset (consecutive resets are one); whether one was appended.
    pub(crate) fn push_reset(&mut self) -> bool {
        let after = match self.ops.back() {
            Some(JournalOp::Line(l)) => Some(l.seq),
            Some(JournalOp::Reset(_)) | None => None,
        };
        if let Some(after) = after {
            self.ops.push_back(JournalOp::Reset(after));
        }
        let pushed = after.is_some();
        if self.pending == 0 {
            self.first_pending = self.ops.len();
        }
        pushed
    }

    /// Ops journaled (lines and resets).
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// Bytes of line text and timestamps held.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Lines not answered yet.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Finds the unanswered line `seq` (normally the first one).
    pub(crate) fn find_pending(&self, seq: Seq) -> Option<usize> {
        let is_it = |op: &JournalOp| matches!(op, JournalOp::Line(l) if l.seq == seq && l.pending.is_some());
        if self.ops.get(self.first_pending).is_some_and(is_it) {
            return Some(self.first_pending);
        }
        let from = self.ops.partition_point(|op| op.seq() < seq);
        self.ops
            .iter()
            .enumerate()
            .skip(from)
            .take_while(|(_, op)| op.seq() == seq)
            .find_map(|(i, op)| is_it(op).then_some(i))
    }

    /// Marks the unanswered line `seq` as the one an engine was ended on at its deadline;
    /// whether that had happened to it before (then it is the parser's, and fails).
    pub(crate) fn mark_killed(&mut self, seq: Seq) -> bool {
        let Some(i) = self.find_pending(seq) else {
            return true;
        };
        match self.ops.get_mut(i) {
            Some(JournalOp::Line(l)) => std::mem::replace(&mut l.killed_once, true),
            _ => true,
        }
    }

    /// The unanswered line `seq` as an op of `run`, to send it to an engine again.
    pub(crate) fn pending_op(&self, run: RunId, seq: Seq) -> Option<LineOp> {
        Some(self.line(self.find_pending(seq)?)?.op(run))
    }

    /// The line at `index` (from [`Journal::find_pending`]).
    pub(crate) fn line(&self, index: usize) -> Option<&JournalLine> {
        match self.ops.get(index) {
            Some(JournalOp::Line(l)) => Some(l),
            _ => None,
        }
    }

    /// Marks the line at `index` answered. When its outcome reset the parser, the line leaves
    /// the journal and a `Reset` takes its place. Returns how it was to be delivered.
    pub(crate) fn settle(&mut self, index: usize, resets_parser: bool) -> Option<Delivery> {
        let op = self.ops.get_mut(index)?;
        let JournalOp::Line(l) = op else { return None };
        let delivery = l.pending.take()?;
        self.pending = self.pending.saturating_sub(1);
        if resets_parser {
            self.bytes = self.bytes.saturating_sub(l.bytes());
            *op = JournalOp::Reset(l.seq);
        }
        if index == self.first_pending {
            self.first_pending = self
                .ops
                .iter()
                .enumerate()
                .skip(index + 1)
                .find_map(|(i, op)| match op {
                    JournalOp::Line(l) if l.pending.is_some() => Some(i),
                    _ => None,
                })
                .unwrap_or(self.ops.len());
        }
        Some(delivery)
    }

    /// Lines in the answered history (what a replay re-runs).
    pub(crate) fn history_lines(&self) -> usize {
        self.ops
            .iter()
            .take(self.first_pending)
            .filter(|op| matches!(op, JournalOp::Line(_)))
            .count()
    }

    /// Drops the answered history (everything before the first unanswered line). Returns
    /// whether any line was dropped, i.e. whether parser state can no longer be rebuilt.
    pub(crate) fn drop_history(&mut self) -> bool {
        let cut = self.first_pending.min(self.ops.len());
        let mut lost = false;
        for op in self.ops.drain(..cut) {
            if let JournalOp::Line(l) = op {
                self.bytes = self.bytes.saturating_sub(l.bytes());
                lost = true;
            }
        }
        self.first_pending = 0;
        lost
    }

    /// Empties the journal, returning the unanswered lines.
    pub(crate) fn take_pending(&mut self) -> Vec<JournalLine> {
        let ops = std::mem::take(&mut self.ops);
        *self = Self::default();
        ops.into_iter()
            .filter_map(|op| match op {
                JournalOp::Line(l) if l.pending.is_some() => Some(l),
                _ => None,
            })
            .collect()
    }

    /// The ops that bring a fresh instance of `run` to this journal's state and then ask for
    /// every unanswered line: answered lines as `replay: true`, resets, unanswered lines as
    /// `replay: false`. Does not include the `NewRun`.
    pub(crate) fn replay_ops(&self, run: RunId) -> Vec<EngineOp> {
        self.tail_ops(run, self.ops.len())
    }

    /// [`Journal::replay_ops`] of the last `n` ops only: what an engine that has the rest
    /// still needs.
    pub(crate) fn tail_ops(&self, run: RunId, n: usize) -> Vec<EngineOp> {
        self.ops
            .iter()
            .skip(self.ops.len().saturating_sub(n))
            .map(|op| match op {
                JournalOp::Reset(_) => EngineOp::Reset { run },
                JournalOp::Line(l) => EngineOp::Line(l.op(run)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn kinds(j: &Journal) -> Vec<String> {
        j.replay_ops(RunId(1))
            .into_iter()
            .map(|op| match op {
                EngineOp::Line(l) => format!("{}{}", l.line, if l.replay { "*" } else { "" }),
                EngineOp::Reset { .. } => "reset".into(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// Answers from several engines come in any order: each finds its line, once, among
    /// thousands waiting, resets in between included.
    #[test]
    fn lines_settle_in_any_order() {
        let mut j = Journal::default();
        let mut seq = 0;
        for i in 0..3_000u64 {
            seq += 1 + i % 3; // seqs of other runs in between
            j.push_line(seq, &format!("l{i}"), "t", Some(Delivery::Late), 0);
            if i % 100 == 99 {
                j.push_reset();
            }
        }
        let seqs: Vec<Seq> = j
            .tail_ops(RunId(1), j.len())
            .into_iter()
            .filter_map(|op| match op {
                EngineOp::Line(l) => Some(l.seq),
                _ => None,
            })
            .collect();
        // Every other line first, from the end, then the rest; some reset the parser.
        let order = seqs
            .iter()
            .rev()
            .step_by(2)
            .chain(seqs.iter().rev().skip(1).step_by(2));
        for (k, &s) in order.enumerate() {
            let at = j.find_pending(s).unwrap();
            assert!(matches!(j.line(at), Some(l) if l.seq == s));
            assert_eq!(j.settle(at, k % 50 == 0), Some(Delivery::Late));
            assert_eq!(j.find_pending(s), None, "settled once");
        }
        assert_eq!(j.pending(), 0);
        assert_eq!(j.find_pending(seq + 1), None);
    }

    #[test]
    fn lines_settle_in_order_and_failures_become_resets() {
        let mut j = Journal::default();
        j.push_reset(); // nothing to reset yet: not journaled
        for (seq, l) in [(1, "a"), (2, "b"), (3, "c")] {
            j.push_line(seq, l, "t", Some(Delivery::Late), 0);
        }
        j.push_reset();
        j.push_line(4, "d", "t", Some(Delivery::Now), 0);
        assert_eq!(j.pending(), 4);
        assert_eq!(j.find_pending(1), Some(0));
        assert_eq!(j.settle(0, false), Some(Delivery::Late));
        let b = j.find_pending(2).unwrap();
        assert_eq!(j.settle(b, true), Some(Delivery::Late), "b failed");
        assert_eq!(j.settle(b, true), None, "settled once");
        assert_eq!(kinds(&j), ["a*", "reset", "c", "reset", "d"]);
        assert_eq!(j.bytes(), 6, "a, c, d with their ts");
        let c = j.find_pending(3).unwrap();
        j.settle(c, false);
        assert_eq!(j.find_pending(4), Some(4));
        assert!(j.drop_history());
        assert_eq!(kinds(&j), ["d"]);
        assert!(!j.drop_history(), "nothing answered left to lose");
        let pending = j.take_pending();
        assert_eq!(pending.len(), 1);
        assert_eq!((j.pending(), j.bytes()), (0, 0));
    }
}
