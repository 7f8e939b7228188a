//! What waits for the page's next frame: late answers for transcript builders (folded in at
//! once per frame), the builders to call back, and the late line updates of runs no builder
//! owns (`onChange` hears them once per frame, grouped by type). The JS side is asked for a
//! frame once, when the first of them comes; at the frame it takes them all
//! ([`FrameQueue::take`]). Each answer and update waits with the real bytes it holds (measured
//! as it was read: [`LiveCore::worker_answered`](crate::LiveCore::worker_answered)), so what
//! waits is counted until a transcript takes it.

use std::collections::{BTreeSet, HashMap, VecDeque};

use parsebox_host::{RunId, Seq};
use parsebox_transcript::{DroppedEntry, LineFailure, TranscriptEntry};
use serde::Serialize;

/// A line of a run no builder owns, answered late: what `onChange` listeners get.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LineUpdate {
    /// The line.
    pub line: String,
    /// Its timestamp.
    pub ts: String,
    /// What the transcript shows for it now.
    pub entries: Vec<TranscriptEntry>,
    /// Why it fell back to the generic entry, when it did (absent when the parser's answer
    /// stands): the line's own reason, where `diagnostics()` counts a type's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<LineFailure>,
    /// The entries the parser returned that validation dropped (absent when none was): why,
    /// and with `droppedPreviewChars` what each was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<DroppedEntry>,
}

/// The most entries of late answers one builder folds in at a frame (at least one answer, however
/// large): a parser that gives its lines a thousand entries each answers a frame's worth of lines
/// with tens of thousands, and folding them in one task held the page for ~100 ms. The rest waits
/// for the next frame. Lines of a few entries each stay a frame's worth at a time.
pub const LATE_ENTRIES_PER_FRAME: usize = 1000;

/// The most bytes of late answers (what they hold in the core, measured as they were read) one
/// builder folds in at a frame, one answer at least: folding costs about what the answers
/// hold, so a frame's task stays short however the answers are shaped (many small objects in
/// a tool input, long strings). The rest waits for the next frame.
pub const LATE_BYTES_PER_FRAME: usize = 1 << 20;

/// What the JS side does at a frame: call these builders back (`applyLate`), in order, then
/// tell `onChange` listeners of each type's line updates.
#[derive(Serialize, Debug, Default, PartialEq)]
pub struct Frame {
    /// The runs whose builders to call back, in order.
    pub builders: Vec<u64>,
    /// Each type's line updates, types in the order their first update came.
    pub lines: Vec<(String, Vec<LineUpdate>)>,
}

/// See the module's doc.
#[derive(Debug, Default)]
pub(crate) struct FrameQueue {
    /// Late answers of builder-owned runs, not folded in yet, each with the bytes it holds.
    answers: HashMap<RunId, RunAnswers>,
    /// Builders to call back at the frame.
    builders: BTreeSet<RunId>,
    /// Line updates by type, types in the order their first update came.
    lines: Vec<(String, Vec<LineUpdate>)>,
    /// The bytes the line updates hold.
    lines_bytes: isize,
    /// The bytes everything waiting holds: the answers' and the line updates'.
    bytes: isize,
    /// A frame was asked for and has not come yet.
    asked: bool,
}

/// The late answers waiting for one builder, in the order they came, and the bytes they hold
/// together: asked for at every answer while tens of thousands may wait (a finished run
/// opened at once), so kept as a sum rather than summed.
#[derive(Debug, Default)]
struct RunAnswers {
    waiting: VecDeque<Waiting>,
    bytes: isize,
}

/// A late answer waiting for its builder.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub(crate) seq: Seq,
    pub(crate) entries: Vec<TranscriptEntry>,
    /// The real bytes it holds (0 when they were counted where it was made: in the call of
    /// the page that ran the line).
    pub(crate) bytes: isize,
}

impl FrameQueue {
    /// Whether the JS side is to be asked for a frame now: something waits, and it has not
    /// been asked since the last frame.
    fn ask(&mut self) -> bool {
        !std::mem::replace(&mut self.asked, true)
    }

    /// Calls the builder of `run` back at the next frame. Returns whether to ask for a frame.
    pub(crate) fn call_back(&mut self, run: RunId) -> bool {
        self.builders.insert(run);
        self.ask()
    }

    /// A late answer for the builder of `run`, folded in at its call back. Returns whether to
    /// ask for a frame.
    pub(crate) fn builder_answer(
        &mut self,
        run: RunId,
        seq: Seq,
        entries: Vec<TranscriptEntry>,
    ) -> bool {
        self.answers
            .entry(run)
            .or_default()
            .waiting
            .push_back(Waiting {
                seq,
                entries,
                bytes: 0,
            });
        self.call_back(run)
    }

    /// Says that the answer to `seq` for `run`, the last one queued, holds `bytes` (measured
    /// after it was queued).
    pub(crate) fn charge_answer(&mut self, run: RunId, seq: Seq, bytes: isize) {
        let Some(answers) = self.answers.get_mut(&run) else {
            return;
        };
        if let Some(waiting) = answers.waiting.back_mut().filter(|w| w.seq == seq) {
            waiting.bytes += bytes;
            answers.bytes += bytes;
            self.bytes += bytes;
        }
    }

    /// Takes back the answer to `seq` for `run`, the last one queued (its builder has no room
    /// for it).
    pub(crate) fn drop_answer(&mut self, run: RunId, seq: Seq) -> Option<Vec<TranscriptEntry>> {
        let answers = self.answers.get_mut(&run)?;
        if answers.waiting.back().is_none_or(|w| w.seq != seq) {
            return None;
        }
        let waiting = answers.waiting.pop_back()?;
        answers.bytes -= waiting.bytes;
        self.bytes -= waiting.bytes;
        Some(waiting.entries)
    }

    /// Says that the line updates queued last hold `bytes` more.
    pub(crate) fn charge_lines(&mut self, bytes: isize) {
        self.lines_bytes += bytes;
        self.bytes += bytes;
    }

    /// The real bytes of everything waiting.
    pub(crate) fn bytes(&self) -> isize {
        self.bytes
    }

    /// The real bytes of the answers waiting for the builder of `run`.
    pub(crate) fn answers_bytes(&self, run: RunId) -> isize {
        self.answers.get(&run).map_or(0, |a| a.bytes)
    }

    /// A late line of a run no builder owns, for `onChange`. Returns whether to ask for a frame.
    pub(crate) fn late_line(&mut self, adapter_type: String, update: LineUpdate) -> bool {
        match self.lines.iter_mut().find(|(t, _)| *t == adapter_type) {
            Some((_, updates)) => updates.push(update),
            None => self.lines.push((adapter_type, vec![update])),
        }
        self.ask()
    }

    /// Whether a frame was asked for and has not come: work under way for `idle()`.
    pub(crate) fn waiting(&self) -> bool {
        self.asked
    }

    /// The late answers waiting for the builder of `run`, in the order they came, up to
    /// [`LATE_ENTRIES_PER_FRAME`] entries (always one answer at least), and whether more wait
    /// (the builder is then called back at the next frame).
    pub(crate) fn take_answers(&mut self, run: RunId) -> (Vec<(Seq, Vec<TranscriptEntry>)>, bool) {
        let Some(answers) = self.answers.get_mut(&run) else {
            return (Vec::new(), false);
        };
        let waiting = &mut answers.waiting;
        let (mut entries, mut bytes) = (0, 0);
        let fit = waiting
            .iter()
            .take_while(|w| {
                let first = entries == 0;
                entries += w.entries.len().max(1);
                bytes += usize::try_from(w.bytes).unwrap_or(0);
                first || (entries <= LATE_ENTRIES_PER_FRAME && bytes <= LATE_BYTES_PER_FRAME)
            })
            .count()
            .max(1);
        let mut taken = Vec::with_capacity(fit);
        for w in waiting.drain(..fit.min(waiting.len())) {
            answers.bytes -= w.bytes;
            self.bytes -= w.bytes;
            taken.push((w.seq, w.entries));
        }
        let more = !waiting.is_empty();
        if !more {
            self.answers.remove(&run);
        }
        (taken, more)
    }

    /// Forgets the builder of `run` (it is gone).
    pub(crate) fn forget(&mut self, run: RunId) {
        if let Some(answers) = self.answers.remove(&run) {
            self.bytes -= answers.bytes;
        }
        self.builders.remove(&run);
    }

    /// The frame has come: everything waiting for it. What comes after asks for the next one.
    pub(crate) fn take(&mut self) -> Frame {
        self.asked = false;
        self.bytes -= std::mem::take(&mut self.lines_bytes);
        Frame {
            builders: std::mem::take(&mut self.builders)
                .into_iter()
                .map(|r| r.0)
                .collect(),
            lines: std::mem::take(&mut self.lines),
        }
    }

    /// Forgets everything (the registry is disposed).
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn update(line: &str) -> LineUpdate {
        LineUpdate {
            line: line.into(),
            ts: "t".into(),
            entries: Vec::new(),
            failure: None,
            dropped: Vec::new(),
        }
    }

    #[test]
    fn a_frame_is_asked_for_once_until_it_comes() {
        let mut q = FrameQueue::default();
        assert!(!q.waiting());
        assert!(q.late_line("a".into(), update("1")), "the first thing asks");
        assert!(q.waiting(), "idle() waits for the frame");
        assert!(!q.call_back(RunId(7)), "asked already");
        assert!(!q.builder_answer(RunId(7), 1, Vec::new()));
        q.take();
        assert!(!q.waiting());
        assert!(
            q.call_back(RunId(7)),
            "after a frame, the next thing asks again"
        );
    }

    #[test]
    fn line_updates_are_grouped_by_type_in_the_order_types_came() {
        let mut q = FrameQueue::default();
        q.late_line("b".into(), update("1"));
        q.late_line("a".into(), update("2"));
        q.late_line("b".into(), update("3"));
        let frame = q.take();
        assert_eq!(
            frame.lines,
            vec![
                ("b".to_owned(), vec![update("1"), update("3")]),
                ("a".to_owned(), vec![update("2")]),
            ]
        );
        assert_eq!(q.take(), Frame::default(), "taken once");
    }

    #[test]
    fn a_builder_is_called_back_once_per_frame_with_all_its_answers() {
        let mut q = FrameQueue::default();
        q.builder_answer(RunId(3), 1, Vec::new());
        q.builder_answer(RunId(3), 2, Vec::new());
        q.call_back(RunId(1));
        assert_eq!(q.take().builders, [1, 3]);
        let (answers, more) = q.take_answers(RunId(3));
        assert_eq!(answers.into_iter().map(|a| a.0).collect::<Vec<_>>(), [1, 2]);
        assert!(!more);
        assert!(q.take_answers(RunId(3)).0.is_empty());
    }

    #[test]
    fn answers_with_many_entries_are_folded_in_a_frame_at_a_time() {
        let mut q = FrameQueue::default();
        let entries = |n: usize| vec![parsebox_transcript::generic_entry("x", "t"); n];
        q.builder_answer(RunId(3), 1, entries(600));
        q.builder_answer(RunId(3), 2, entries(600));
        q.builder_answer(RunId(3), 3, entries(5000));
        q.builder_answer(RunId(3), 4, entries(2));
        let seqs = |q: &mut FrameQueue| {
            let (a, more) = q.take_answers(RunId(3));
            (a.into_iter().map(|a| a.0).collect::<Vec<_>>(), more)
        };
        assert_eq!(
            seqs(&mut q),
            (vec![1], true),
            "600 + 600 is past the frame's 1,000"
        );
        assert_eq!(seqs(&mut q), (vec![2], true));
        assert_eq!(
            seqs(&mut q),
            (vec![3], true),
            "one answer at least, however large"
        );
        assert_eq!(seqs(&mut q), (vec![4], false));
        assert_eq!(seqs(&mut q), (vec![], false));
    }

    #[test]
    fn answers_that_hold_many_bytes_are_folded_in_a_megabyte_at_a_time() {
        let mut q = FrameQueue::default();
        for seq in 1..=6 {
            q.builder_answer(RunId(3), seq, Vec::new());
            q.charge_answer(RunId(3), seq, 400 << 10);
        }
        let mut frames = Vec::new();
        loop {
            let (taken, more) = q.take_answers(RunId(3));
            frames.push(taken.len());
            if !more {
                break;
            }
        }
        assert_eq!(frames, [2, 2, 2], "two answers of 400 KiB a frame");
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn a_builder_gone_is_not_called_back() {
        let mut q = FrameQueue::default();
        q.builder_answer(RunId(3), 1, Vec::new());
        q.forget(RunId(3));
        assert_eq!(q.take(), Frame::default());
        assert!(q.take_answers(RunId(3)).0.is_empty());
    }

    /// What waits for each builder is known at every answer as the sum of what each answer
    /// holds, through queueing, charging, taking back, folding in and forgetting.
    #[test]
    fn each_builders_waiting_bytes_are_the_sum_of_its_answers() {
        let mut q = FrameQueue::default();
        let mut held: HashMap<u64, Vec<isize>> = HashMap::new();
        let check = |q: &FrameQueue, held: &HashMap<u64, Vec<isize>>| {
            for run in 1..=3 {
                let want: isize = held.get(&run).map_or(0, |b| b.iter().sum());
                assert_eq!(q.answers_bytes(RunId(run)), want, "run {run}");
            }
            assert_eq!(q.bytes(), held.values().flatten().sum::<isize>());
        };
        for seq in 0..3_000u64 {
            let run = 1 + seq % 3;
            q.builder_answer(RunId(run), seq, Vec::new());
            let bytes = isize::try_from(seq % 1_000).unwrap_or(0) << 10;
            q.charge_answer(RunId(run), seq, bytes);
            held.entry(run).or_default().push(bytes);
            if seq % 7 == 0 {
                q.drop_answer(RunId(run), seq);
                held.entry(run).or_default().pop();
            }
            if seq % 500 == 499 {
                let (taken, _) = q.take_answers(RunId(run));
                held.entry(run).or_default().drain(..taken.len());
            }
            check(&q, &held);
        }
        q.forget(RunId(2));
        held.remove(&2);
        check(&q, &held);
    }
}
