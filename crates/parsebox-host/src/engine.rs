//! What the core knows about one engine: its phase, the ops waiting to be sent, the lines it
//! owes answers for (in order) and its armed deadlines.

use std::collections::VecDeque;

use crate::{EngineOp, Placement, RunId, Seq};

/// An engine's phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `StartEngine` was issued; no `started` report yet. Ops wait in the outbox.
    Starting,
    /// Started: ops are sent.
    Running,
}

/// A line the engine owes an answer for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InFlight {
    pub(crate) seq: Seq,
    pub(crate) run: RunId,
    pub(crate) replay: bool,
    /// A `NewRun` was queued between the line before and this one: the engine makes a fresh
    /// realm first ([`engine_work_follows`](crate::began::engine_work_follows)).
    pub(crate) after_new_run: bool,
}

/// Which deadline fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeadlineKind {
    /// The engine did not report `started` in time.
    Start,
    /// The head line ran past `hard_deadline_ms` after its `began`.
    Line,
    /// The replay as a whole ran past `replay_deadline_ms`.
    Replay,
    /// The engine's own work before the head line (a realm rebuilt after a failed line, or a
    /// new run's realm: the work of a start) ran past `start_deadline_ms` without the engine
    /// reporting `began`.
    Recovery,
}

#[derive(Debug)]
pub(crate) struct Engine {
    pub(crate) adapter_type: String,
    pub(crate) placement: Placement,
    pub(crate) phase: Phase,
    /// Ops queued since the last `Send`.
    pub(crate) outbox: Vec<EngineOp>,
    /// Lines owed, in the order the engine will answer them.
    pub(crate) in_flight: VecDeque<InFlight>,
    /// How many of `in_flight` (from the front) were actually sent.
    pub(crate) sent: usize,
    /// Replay lines not answered yet.
    pub(crate) replay_pending: usize,
    pub(crate) start_deadline: Option<f64>,
    pub(crate) line_deadline: Option<f64>,
    pub(crate) replay_deadline: Option<f64>,
    /// Armed instead of `line_deadline` while the engine works on its realm before the head
    /// line and has not reported `began` for it yet.
    pub(crate) recovery_deadline: Option<f64>,
    /// A `NewRun` was queued after the last line op.
    new_run_queued: bool,
    /// When `StartEngine` was issued (executor clock): the load time is measured from it.
    pub(crate) start_requested_ms: f64,
    /// Realm work of the engine's own (ms) that its answers reported and the clock has not
    /// discounted yet.
    pub(crate) work_ms: f64,
    /// The engine may hold answers it has and post them later, together
    /// (`answer_batch_ms` > 0): lines the core still counts as owed may be answered already.
    pub(crate) answers_batched: bool,
    /// Replay lines taken off the front at a `began` behind them (the engine had answered
    /// them, holding the answers): their answers, when they come, are expected, not stale.
    pub(crate) replays_done_early: Vec<Seq>,
    /// When it was last used, in line numbers: the seq of its last live line, or the next
    /// seq when it started. The least recently used idle engine is the one parked to make
    /// room ([`HostOptions::max_live_engines`](crate::HostOptions)).
    pub(crate) last_used: u64,
    /// Its start waits for room ([`HostOptions::max_live_engines`](crate::HostOptions)): it
    /// has no memory yet and does not count as live.
    pub(crate) awaiting_room: bool,
    /// Another engine of its type, started to spread a backlog of stateless lines
    /// ([`HostOptions::max_workers`](crate::HostOptions)): no run is bound to it, and it ends
    /// once it owes nothing.
    pub(crate) spread: bool,
    /// The runs a spread engine was sent a `NewRun` for.
    pub(crate) spread_runs: Vec<RunId>,
    /// When it last began a line or answered one while more were owed (`None`: idle since):
    /// its answers' time counts toward its type's pace from then ([`Engine::pace_answered`]).
    pub(crate) busy_since: Option<f64>,
}

impl Engine {
    pub(crate) fn new(adapter_type: &str, placement: Placement) -> Self {
        Self {
            adapter_type: adapter_type.to_owned(),
            placement,
            phase: Phase::Starting,
            outbox: Vec::new(),
            in_flight: VecDeque::new(),
            sent: 0,
            replay_pending: 0,
            start_deadline: None,
            line_deadline: None,
            replay_deadline: None,
            recovery_deadline: None,
            new_run_queued: false,
            start_requested_ms: 0.0,
            work_ms: 0.0,
            answers_batched: false,
            replays_done_early: Vec::new(),
            last_used: 0,
            awaiting_room: false,
            spread: false,
            spread_runs: Vec::new(),
            busy_since: None,
        }
    }

    /// Whether it could be ended now without losing anything but time: started, with no op
    /// waiting and no line owed.
    pub(crate) fn is_idle(&self) -> bool {
        self.phase == Phase::Running && self.in_flight.is_empty() && self.outbox.is_empty()
    }

    /// The engine began the live line `seq`: every replay line sent before it was answered,
    /// though a Worker may still hold those answers. They leave the front, so `seq` is the head
    /// its deadline is armed for; how many left.
    pub(crate) fn skip_replays_before(&mut self, seq: Seq) -> u64 {
        let behind = self
            .in_flight
            .iter()
            .take(self.sent)
            .any(|l| l.seq == seq && !l.replay);
        let mut done = 0;
        while behind && self.sent_head().is_some_and(|h| h.replay && h.seq != seq) {
            if let Some(h) = self.pop_head() {
                self.replays_done_early.push(h.seq);
                done += 1;
            }
        }
        done
    }

    /// Whether the head line is surely the one the engine is working on. Not so for an engine
    /// that batches its answers while it has more than one live line: it may have answered
    /// the head (and more) and still hold those answers.
    pub(crate) fn head_is_certain(&self) -> bool {
        !self.answers_batched
            || self
                .in_flight
                .iter()
                .take(self.sent)
                .filter(|l| !l.replay)
                .nth(1)
                .is_none()
    }

    /// Queues one op; a line also becomes owed.
    pub(crate) fn queue(&mut self, op: EngineOp) {
        if let EngineOp::Line(l) = &op {
            self.in_flight.push_back(InFlight {
                seq: l.seq,
                run: l.run,
                replay: l.replay,
                after_new_run: std::mem::take(&mut self.new_run_queued),
            });
            if l.replay {
                self.replay_pending += 1;
            } else {
                self.last_used = l.seq;
            }
        } else if matches!(op, EngineOp::NewRun { .. }) {
            self.new_run_queued = true;
        }
        self.outbox.push(op);
    }

    /// Takes the outbox for sending: everything owed so far has now been sent.
    pub(crate) fn take_outbox(&mut self) -> Vec<EngineOp> {
        self.sent = self.in_flight.len();
        std::mem::take(&mut self.outbox)
    }

    /// Removes the head line after its answer (or its fallback).
    pub(crate) fn pop_head(&mut self) -> Option<InFlight> {
        let head = self.in_flight.pop_front()?;
        self.sent = self.sent.saturating_sub(1);
        self.line_deadline = None;
        self.recovery_deadline = None;
        if head.replay {
            self.replay_pending = self.replay_pending.saturating_sub(1);
            if self.replay_pending == 0 {
                self.replay_deadline = None;
            }
        }
        Some(head)
    }

    /// The head line, if the engine has it (it was sent).
    pub(crate) fn sent_head(&self) -> Option<InFlight> {
        if self.sent == 0 || self.phase != Phase::Running {
            return None;
        }
        self.in_flight.front().copied()
    }

    /// The engine reported `began` for the head line: its deadline is `deadline_ms` from
    /// `now_ms`, when it is a live line (a replay runs under the replay budget) and the engine
    /// can be ended from outside.
    pub(crate) fn arm_head(&mut self, now_ms: f64, deadline_ms: f64) {
        if let Some(head) = self.sent_head() {
            if !head.replay && self.killable() {
                self.line_deadline = Some(now_ms + deadline_ms);
                self.recovery_deadline = None;
            }
        }
    }

    /// The line before the head was answered at `now_ms`, and the engine goes straight on to
    /// the head, so a Worker need not report every line it begins: its deadline is armed from
    /// now. Unless the engine has realm work of its own first (`engine_work`: the answer
    /// failed, or a `NewRun` came between): then it reports `began` once that is done, and
    /// until then only `recovery_ms` bounds it.
    pub(crate) fn arm_next(
        &mut self,
        now_ms: f64,
        deadline_ms: f64,
        recovery_ms: f64,
        engine_work: bool,
    ) {
        let Some(head) = self.sent_head() else { return };
        if head.replay || !self.killable() {
            return;
        }
        if engine_work || head.after_new_run {
            self.recovery_deadline = Some(now_ms + recovery_ms);
        } else {
            self.line_deadline = Some(now_ms + deadline_ms);
        }
    }

    /// The engine's count of work moved on (it is not stuck in one native step): the clock
    /// does not decide for an engine making progress, so the deadline of the line it works on
    /// (or of its realm work before the line) is `deadline_ms` (`recovery_ms`) from `now_ms`
    /// again.
    pub(crate) fn progressed(&mut self, now_ms: f64, deadline_ms: f64, recovery_ms: f64) {
        if self.line_deadline.is_some() {
            self.line_deadline = Some(now_ms + deadline_ms);
        }
        if self.recovery_deadline.is_some() {
            self.recovery_deadline = Some(now_ms + recovery_ms);
        }
    }

    /// The engine began a line at `now_ms` ([`Host::handle_began`](crate::Host)): it is busy
    /// from then, unless it was already.
    pub(crate) fn pace_began(&mut self, now_ms: f64) {
        self.busy_since.get_or_insert(now_ms);
    }

    /// The engine answered live lines at `now_ms`: the time they took (since it began or last
    /// answered), when it was busy; it stays busy while it owes more.
    pub(crate) fn pace_answered(&mut self, now_ms: f64) -> Option<f64> {
        let took = self.busy_since.map(|since| (now_ms - since).max(0.0));
        self.busy_since = (!self.in_flight.is_empty()).then_some(now_ms);
        took
    }

    /// `StartEngine` goes to the executor now: the load time counts from `now_ms`, and a
    /// Worker engine must report within `start_budget_ms`.
    pub(crate) fn start_requested(&mut self, now_ms: f64, start_budget_ms: f64) {
        self.start_requested_ms = now_ms;
        if self.killable() {
            self.start_deadline = Some(now_ms + start_budget_ms);
        }
    }

    /// Whether the host can end this engine at a deadline.
    pub(crate) fn killable(&self) -> bool {
        self.placement == Placement::Worker
    }

    /// The earliest armed deadline.
    pub(crate) fn deadline(&self) -> Option<(f64, DeadlineKind)> {
        [
            (self.start_deadline, DeadlineKind::Start),
            (self.line_deadline, DeadlineKind::Line),
            (self.replay_deadline, DeadlineKind::Replay),
            (self.recovery_deadline, DeadlineKind::Recovery),
        ]
        .into_iter()
        .filter_map(|(at, kind)| at.map(|at| (at, kind)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
    }
}
