//! Recovery: an engine that died or missed a deadline is ended, its head line falls back, and
//! a fresh engine replays the journals — boundedly, so a parser cannot put the host into a
//! kill loop. Also the move of a type from an inline engine to a Worker.

use parsebox_transcript::{FailureCode, LineFailure};

/// Replay allowance of a type: history lines its recoveries may replay in all, per line its
/// parser answered, plus [`REPLAY_FLOOR`]. Past it a recovery starts the run afresh (its state
/// lost, and counted) instead of replaying it: a parser that overruns again and again keeps
/// the run's total work linear, where replaying the whole history each time made it quadratic.
pub const REPLAY_PER_LINE: u64 = 2;

/// Replay lines every type may spend whatever it answered (a recovery early in a run, or of a
/// short run, always keeps its state).
pub const REPLAY_FLOOR: u64 = 10_000;

use crate::engine::DeadlineKind;
use crate::{
    AdapterState, Answered, Command, EngineId, EngineOp, Host, HostPlacement, Placement, RunId,
};

/// Why an engine is being recovered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The executor reported it dead (trap, worker error).
    Died,
    /// The executor reported that its memory reached the maximum: an allocation of this many
    /// bytes did not fit.
    OutOfMemory(u64),
    /// One of its deadlines passed.
    Deadline(DeadlineKind),
}

/// How a deadline's message names where the engine ran.
fn host_word(placement: Placement) -> &'static str {
    match placement {
        Placement::Worker => "worker",
        Placement::Inline | Placement::Builtin => "inline",
    }
}

impl Host {
    /// The engine died on its own (a trap, out of memory, a Worker error): the line it was
    /// running falls back (`worker_fault` for a Worker, `engine_fault` otherwise), and the
    /// engine is replaced and its runs replayed — or the type is marked failed when its
    /// engines keep dying without answering. Returns the settled answers of lines whose caller
    /// waits synchronously (an inline [`LineStep::RunNow`](crate::LineStep::RunNow)). Reports
    /// for ended engines are ignored.
    pub fn handle_engine_died(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        reason: &str,
    ) -> Vec<Answered> {
        let mut out = Vec::new();
        self.recover(now_ms, engine, Cause::Died, reason, &mut out);
        self.start_waiting(now_ms);
        out
    }

    /// An engine of this thread stopped its line itself: the line ran past `hard_deadline_ms`
    /// with the engine's count of work not moving (one native step, such as a regex that
    /// backtracks without end), and the engine's loops threw out of the instance. As a Worker
    /// ended at that deadline: the line runs once more on a fresh engine, after the replay, and
    /// falls back with `deadline` when it is stopped again. Returns the settled answers of
    /// lines whose caller waits synchronously.
    pub fn handle_engine_stopped(&mut self, now_ms: f64, engine: EngineId) -> Vec<Answered> {
        let mut out = Vec::new();
        self.recover(
            now_ms,
            engine,
            Cause::Deadline(DeadlineKind::Line),
            "",
            &mut out,
        );
        self.start_waiting(now_ms);
        out
    }

    /// The engine's memory reached its maximum (`maxMemoryBytes`): an allocation of
    /// `requested_bytes` did not fit, and the instance trapped. As
    /// [`handle_engine_died`](Self::handle_engine_died), except that the line it was running
    /// falls back as `memory_exceeded` with the figures, and the history is replayed only
    /// once: when the engine runs out again before a live line is answered (or during the
    /// replay), the history's state is what fills it, and the next engine starts the runs
    /// without it (the state lost is counted), instead of replaying into the same fault.
    pub fn handle_engine_out_of_memory(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        requested_bytes: u64,
    ) -> Vec<Answered> {
        let mut out = Vec::new();
        self.recover(
            now_ms,
            engine,
            Cause::OutOfMemory(requested_bytes),
            "",
            &mut out,
        );
        self.start_waiting(now_ms);
        out
    }

    /// Call when [`Host::poll_timeout`]'s deadline has passed: every engine whose start, head
    /// line or replay is past its deadline is ended and recovered (the head line falls back
    /// with `deadline`; a replay past its budget is given up).
    pub fn handle_timeout(&mut self, now_ms: f64) {
        loop {
            let due = self
                .engines
                .iter()
                .filter_map(|(id, e)| e.deadline().map(|(at, kind)| (at, *id, kind)))
                .filter(|(at, _, _)| *at <= now_ms)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let Some((_, engine, kind)) = due else { break };
            let mut out = Vec::new();
            self.recover(now_ms, engine, Cause::Deadline(kind), "", &mut out);
            for a in out {
                self.push_late(a);
            }
        }
        self.start_waiting(now_ms);
    }

    /// Under `host: auto`, after an overrun in an inline engine: end it and start the type in
    /// a Worker, replaying every run's journal there.
    pub(crate) fn move_to_worker(&mut self, now_ms: f64, engine: EngineId) {
        self.move_to_worker_because(
            now_ms,
            engine,
            "it ran over its line budget inline; a Worker can be stopped where the in-engine budget cannot",
        );
    }

    /// [`move_to_worker`](Self::move_to_worker), with the reason `status.hostReason` gives.
    pub(crate) fn move_to_worker_because(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        because: &'static str,
    ) {
        let Some(e) = self.engines.get(&engine) else {
            return;
        };
        if e.placement != Placement::Inline {
            return;
        }
        let adapter_type = e.adapter_type.clone();
        if let Some(a) = self.adapters.get_mut(&adapter_type) {
            a.placement = Placement::Worker;
            a.moved_because = Some(because);
            a.diag.host.placement_moves += 1;
        }
        self.restart(now_ms, &adapter_type, engine, true);
        self.changed(&adapter_type);
    }

    fn recover(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        cause: Cause,
        message: &str,
        sink: &mut Vec<Answered>,
    ) {
        let Some(e) = self.engines.get_mut(&engine) else {
            return;
        };
        if e.spread {
            // Its lines go back to the type's engine, whose recovery this is not.
            self.spread_failed(now_ms, engine, Some(cause));
            return;
        }
        let adapter_type = e.adapter_type.clone();
        let placement = e.placement;
        // Only a line the engine actually had can be blamed. A Worker ended at a deadline
        // while it may have held answers (it batches them) may have been past the head line
        // already: nobody is blamed, and the next engine, which answers line by line, runs
        // the owed lines again, so the next deadline names the right one. A Worker that dies
        // on its own posts what it holds first: its head is known.
        let unsure = matches!(cause, Cause::Deadline(_)) && !e.head_is_certain();
        let head = e.sent_head().filter(|_| !unsure);
        // A live line the deadline caught for the first time is not failed: a stalled machine
        // or browser is not the parser's fault. It runs once more on a fresh engine, after the
        // replay, and fails only if that engine is ended on it too.
        let retry = match (cause, head) {
            (Cause::Deadline(DeadlineKind::Line), Some(h)) if !h.replay => self
                .runs
                .get_mut(&h.run)
                .is_some_and(|r| !r.journal.mark_killed(h.seq)),
            _ => false,
        };
        let head = head.filter(|_| !retry);
        if head.is_some_and(|h| !h.replay) {
            e.pop_head();
        }
        self.end_engine(engine);
        // Out of memory on a live line: the line alone may be what filled it (one huge
        // string), so the next engine replays the history once; out of memory again before
        // any live line is answered (or in the replay itself) means the history's state fills
        // it, and the next engine starts without it.
        let replay_after_oom = matches!(cause, Cause::OutOfMemory(_))
            && head.is_some_and(|h| !h.replay)
            && self
                .adapters
                .get(&adapter_type)
                .is_some_and(|a| !a.replayed_after_oom);
        let o = &self.options;
        let (code, reason) = match cause {
            Cause::Died if placement == Placement::Worker => (
                FailureCode::WorkerFault,
                format!("the worker running the parser failed: {message}"),
            ),
            Cause::Died => (
                FailureCode::EngineFault,
                format!("the engine running the parser failed: {message}"),
            ),
            Cause::OutOfMemory(requested) => (
                FailureCode::MemoryExceeded,
                format!(
                    "the parser's engine reached its memory maximum of {} (maxMemoryBytes): {} more did not fit; {}",
                    bytes_text(o.max_memory_bytes),
                    bytes_text(requested),
                    if replay_after_oom {
                        "it starts again from the run's earlier lines"
                    } else {
                        "it starts again without the lines before, whose state filled it"
                    }
                ),
            ),
            Cause::Deadline(DeadlineKind::Line) if retry => (
                FailureCode::Deadline,
                format!(
                    "a line ran past its {} ms deadline in the {} host; it runs once more on a fresh engine before it fails",
                    o.hard_deadline_ms,
                    host_word(placement)
                ),
            ),
            Cause::Deadline(DeadlineKind::Line) if unsure => (
                FailureCode::Deadline,
                format!(
                    "a line ran past its {} ms deadline in the worker host; its lines run again one at a time to find which",
                    o.hard_deadline_ms
                ),
            ),
            Cause::Deadline(DeadlineKind::Line) => (
                FailureCode::Deadline,
                format!(
                    "ran past its {} ms deadline in the {} host twice, the second time on a fresh engine",
                    o.hard_deadline_ms,
                    host_word(placement)
                ),
            ),
            Cause::Deadline(DeadlineKind::Start) => (
                FailureCode::Deadline,
                format!("the engine did not start within {} ms", o.start_deadline_ms),
            ),
            Cause::Deadline(DeadlineKind::Recovery) => (
                FailureCode::Deadline,
                format!(
                    "the engine did not make the parser's realm ready within {} ms",
                    o.start_deadline_ms
                ),
            ),
            Cause::Deadline(DeadlineKind::Replay) => (
                FailureCode::Deadline,
                format!(
                    "replaying the journal ran past its {} ms budget",
                    o.replay_deadline_ms
                ),
            ),
        };
        let max_starts = o.max_respawns_without_progress;
        let Some(a) = self.adapters.get_mut(&adapter_type) else {
            return;
        };
        match cause {
            Cause::Died | Cause::OutOfMemory(_) => a.diag.host.engine_faults += 1,
            Cause::Deadline(_) => a.diag.host.deadline_kills += 1,
        }
        if unsure {
            a.answers_each_line = true;
            a.diag.host.unattributed_kills += 1;
        }
        if retry {
            a.diag.host.deadline_retries += 1;
        }
        a.diag.last_error = Some(reason.clone());
        let first_start = a.state == AdapterState::Loading;
        // A line decided here (failed alone: it took its engine down, or a fresh engine's
        // deadline caught it again) is progress: one bad line after another never makes the
        // host give up on the honest lines after them. What counts is an engine ended with no
        // line to blame (dead while starting or replaying, a kill that cannot name its line).
        if head.is_some_and(|h| !h.replay) {
            a.starts_without_progress = 0;
        }
        let gave_up = a.starts_without_progress >= max_starts;
        // A replay that died or ran out of budget is not tried again, nor is a history whose
        // state filled the memory: the next engine starts from the unanswered lines alone.
        let keep_history = !head.is_some_and(|h| h.replay)
            && (!matches!(cause, Cause::OutOfMemory(_)) || replay_after_oom);
        if matches!(cause, Cause::OutOfMemory(_)) {
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                a.replayed_after_oom = replay_after_oom;
            }
        }
        if let Some(h) = head.filter(|h| !h.replay) {
            self.settle_failed(h.run, h.seq, LineFailure::new(code, reason.clone()), sink);
        }
        if first_start {
            let reason = format!("the parser's engine could not start: {reason}");
            self.fail_type_with(&adapter_type, &reason, code, Some(sink));
        } else if gave_up {
            let reason =
                format!("gave up after {max_starts} engine starts without progress: {reason}");
            self.fail_type_with(&adapter_type, &reason, code, Some(sink));
        } else {
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                a.diag.host.respawns += 1;
                if self.options.host == HostPlacement::Auto && a.placement == Placement::Inline {
                    // A parser that takes its engine down belongs where it can be stopped.
                    a.placement = Placement::Worker;
                    a.diag.host.placement_moves += 1;
                }
            }
            self.restart(now_ms, &adapter_type, engine, keep_history);
            self.changed(&adapter_type);
        }
    }

    /// Ends `old` and starts the type's engine again, rebinding every run `old` held: each
    /// gets a `NewRun`, its journal (history as replay lines, unless `keep_history` is false
    /// or the type's replay allowance is spent, in which case the history is dropped and
    /// counted as state lost) and its unanswered lines.
    pub(crate) fn restart(
        &mut self,
        now_ms: f64,
        adapter_type: &str,
        old: EngineId,
        keep_history: bool,
    ) {
        self.end_engine(old);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            // The journals' unanswered lines, the backlog's among them, go to the new engine.
            a.backlog.clear();
        }
        let Some(new) = self.start_engine(now_ms, adapter_type) else {
            return;
        };
        let bound: Vec<RunId> = self
            .runs
            .iter()
            .filter(|(_, r)| r.engine == Some(old))
            .map(|(id, _)| *id)
            .collect();
        let mut lost = 0;
        let (answered, mut replayed) = self
            .adapters
            .get(adapter_type)
            .map_or((0, 0), |a| (a.diag.lines_parsed, a.replay_sent));
        let allowance = REPLAY_PER_LINE * answered + REPLAY_FLOOR;
        for run in bound {
            let Some(r) = self.runs.get_mut(&run) else {
                continue;
            };
            let history = r.journal.history_lines() as u64;
            let replay = keep_history && replayed + history <= allowance;
            if replay {
                replayed += history;
            } else if r.journal.drop_history() {
                lost += 1;
                r.memo_ok = false;
            }
            r.engine = Some(new);
            // The replay below sends the whole journal, memo answers included.
            r.unsent = 0;
            let ops = r.journal.replay_ops(run);
            let stateless = r.stateless;
            if let Some(e) = self.engines.get_mut(&new) {
                e.queue(EngineOp::NewRun { run, stateless });
                for op in ops {
                    e.queue(op);
                }
            }
        }
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.diag.host.state_lost += lost;
            a.replay_sent = replayed;
        }
    }

    /// Delivers an answer whose caller no longer waits as a `LateAnswer`.
    pub(crate) fn push_late(&mut self, answered: Answered) {
        let Some(adapter_type) = self.runs.get(&answered.run).map(|r| r.adapter_type.clone())
        else {
            return;
        };
        self.deliver_late(adapter_type, answered);
    }

    /// The one path of every late answer: counted against its type and queued as a
    /// `LateAnswer` (for a dropped run's line, the type's listeners still hear of it).
    pub(crate) fn deliver_late(&mut self, adapter_type: String, answered: Answered) {
        if let Some(a) = self.adapters.get_mut(&adapter_type) {
            a.diag.host.late_answers += 1;
        }
        self.commands.push_back(Command::LateAnswer {
            adapter_type,
            run: answered.run,
            seq: answered.seq,
            line: answered.line,
            ts: answered.ts,
            entries: answered.entries,
            failure: answered.failure,
            dropped: answered.dropped,
        });
    }
}

/// `bytes` for a message: whole MiB or KiB when exact, else bytes.
fn bytes_text(bytes: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else if bytes == 1 {
        "1 byte".to_owned()
    } else {
        format!("{bytes} bytes")
    }
}
