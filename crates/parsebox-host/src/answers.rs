//! Answers: which ones are accepted (the head of the engine's queue, from a live engine, for a
//! live run), and the one path that settles, journals, counts and delivers a line.

use parsebox_transcript::{
    settle_failure, settle_line_previewing, EntryLimits, FailedLineEntry, FailureCode, LineFailure,
    LineOutcome, SettledLine,
};

use crate::diagnostics::{count_line, AnsweredBy};
use crate::engine_work_follows;
use crate::journal::Delivery;
use crate::{Answered, EngineId, Host, HostPlacement, Placement, RunId, Seq};

impl Host {
    /// The engine reports it is starting line `seq` (a non-replay line): the first live line
    /// of a batch, or one after realm work of its own
    /// ([`engine_work_follows`](crate::began::engine_work_follows)). For a Worker engine this
    /// arms the line's deadline, `hard_deadline_ms` from `now_ms`. Reports for anything but
    /// the engine's head line are ignored. Other lines need no report: the answer before
    /// them arms their deadline.
    pub fn handle_began(&mut self, now_ms: f64, engine: EngineId, seq: Seq) {
        let deadline = self.options.hard_deadline_ms;
        let Some(e) = self.engines.get_mut(&engine) else {
            return;
        };
        e.pace_began(now_ms);
        let done = e.skip_replays_before(seq);
        if e.sent_head().is_some_and(|head| head.seq == seq) {
            e.arm_head(now_ms, deadline);
        }
        if done > 0 {
            let adapter_type = e.adapter_type.clone();
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                a.diag.host.replayed_lines += done;
            }
        }
    }

    /// `engine` reports that its count of work moved on since it last said so, while it works
    /// on a line (a Worker engine says so every quarter of `hard_deadline_ms` of the clock at
    /// most): it is making progress, and the clock never decides for an engine making progress
    /// (SPEC §11). The line's deadline is `hard_deadline_ms` from `now_ms` again: only an
    /// engine whose work stopped (one native step that does not return) is ended by the clock.
    /// Such a line is still bounded: by its work budget, counted by the engine.
    pub fn handle_progress(&mut self, now_ms: f64, engine: EngineId) {
        let (deadline, recovery) = (
            self.options.hard_deadline_ms,
            self.options.start_deadline_ms,
        );
        if let Some(e) = self.engines.get_mut(&engine) {
            e.progressed(now_ms, deadline, recovery);
        }
    }

    /// Answers from `engine`, in the order it produced them. Each accepted answer is settled
    /// by the line rule with the configured entry limits, journaled, counted and delivered:
    /// returned here when the caller waits synchronously ([`LineStep::RunNow`](crate::LineStep::RunNow)),
    /// as a [`Command::LateAnswer`](crate::Command::LateAnswer) otherwise. Replayed lines are neither delivered nor
    /// counted. An answer is ignored (and counted as stale) when its engine was ended, its run
    /// dropped, or its `seq` is not the next one the engine owes (out of order, duplicate).
    /// Under `host: auto` an overrun in an inline engine moves the type to a Worker afterwards.
    pub fn handle_answers(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        answers: Vec<(Seq, LineOutcome)>,
    ) -> Vec<Answered> {
        let mut out = Vec::new();
        let mut overrun = false;
        let mut live_lines = 0;
        if let Some(e) = self.engines.get_mut(&engine) {
            // Read by the clock (handle_inline_answers) before it gets here.
            e.work_ms = 0.0;
        }
        for (seq, outcome) in answers {
            let Some(e) = self.engines.get_mut(&engine) else {
                self.count_stale(engine);
                continue;
            };
            if let Some(i) = e.replays_done_early.iter().position(|&s| s == seq) {
                // A replay answer its engine held past the `began` that settled it.
                e.replays_done_early.swap_remove(i);
                continue;
            }
            match e.sent_head() {
                Some(head) if head.seq == seq => {}
                _ => {
                    self.count_stale(engine);
                    continue;
                }
            }
            let Some(head) = e.pop_head() else { continue };
            // The engine goes straight on to its next line: that line's time starts now, or
            // at its `began` when the engine has realm work of its own first.
            e.arm_next(
                now_ms,
                self.options.hard_deadline_ms,
                self.options.start_deadline_ms,
                engine_work_follows(&outcome),
            );
            let placement = e.placement;
            let adapter_type = e.adapter_type.clone();
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                // Only a live line is progress: a replay may answer thousands of lines and
                // still die before the one that matters.
                if head.replay {
                    a.diag.host.replayed_lines += 1;
                } else {
                    a.starts_without_progress = 0;
                    a.replayed_after_oom = false;
                }
            }
            if head.replay {
                continue;
            }
            live_lines += 1;
            if let Some(orphan) = self.orphans.take(seq) {
                self.remember_orphan(head.run, seq, orphan, outcome);
                continue;
            }
            match self.settle(head.run, seq, outcome, &mut out) {
                Some(code) => {
                    overrun |=
                        code.is_some_and(FailureCode::is_overrun) && placement == Placement::Inline;
                }
                // Its run was dropped (or the line abandoned) while the engine worked on it.
                None => self.count_stale(engine),
            }
        }
        if overrun && self.options.host == HostPlacement::Auto {
            self.move_to_worker(now_ms, engine);
        }
        if let Some(e) = self.engines.get_mut(&engine) {
            let took = e.pace_answered(now_ms);
            if let (Some(ms), Some(a)) = (took, self.adapters.get_mut(&e.adapter_type)) {
                a.paced_lines += live_lines;
                a.paced_ms += ms;
            }
        }
        self.refill(now_ms, engine);
        // The engine may be idle now: room for an engine waiting to start.
        self.start_waiting(now_ms);
        out
    }

    /// `engine` reports that the parser of line `seq`'s run lost its state before answering
    /// it ([`EngineRuns::take_reports`](crate::EngineRuns::take_reports)): a line before
    /// it left the engine's realm unusable, and the engine could not replay the run's earlier
    /// lines into a fresh one within its budget. Counted as the type's `stateLost`, and the
    /// run's later answers are no longer remembered (they came from a parser that forgot the
    /// earlier lines). Call it before [`handle_answers`](Self::handle_answers) for the same
    /// batch, while the line is still owed; a report for any other line is ignored.
    pub fn handle_state_lost(&mut self, engine: EngineId, seq: Seq) {
        let Some(e) = self.engines.get(&engine) else {
            return;
        };
        let Some(line) = e.in_flight.iter().take(e.sent).find(|l| l.seq == seq) else {
            return;
        };
        let Some(r) = self.runs.get_mut(&line.run) else {
            return;
        };
        r.memo_ok = false;
        if let Some(a) = self.adapters.get_mut(&r.adapter_type) {
            a.diag.host.state_lost += 1;
        }
    }

    /// [`handle_answers`](Self::handle_answers) for one synchronous call into an inline engine
    /// that took `elapsed_ms` by the executor's clock. The clock decides, not the engine's own
    /// counters: a call with live lines and no replay whose time, less the realm work its
    /// answers reported (a new run's realm, a rebuild after a failed line: the engine's work,
    /// not the parser's, see [`EngineReports`](crate::EngineReports)), was longer than their
    /// line budgets together is an overrun whatever ran inside it (a getter, a Proxy trap, one
    /// long native step the in-engine budget cannot see), counted as `clockOverruns`; under
    /// `host: auto` the type then moves to a Worker, where a deadline can stop it. The answers
    /// are kept: they are right, only late. A call in which the engine stopped a line itself
    /// (`budget_exceeded`: it ran its whole budget, so about that long by design) is not timed.
    pub fn handle_inline_answers(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        answers: Vec<(Seq, LineOutcome)>,
        elapsed_ms: f64,
    ) -> Vec<Answered> {
        // Only live lines count, less the realm work the engine reported (a run start, a
        // rebuild): a replay is the engine's own work, under budgets of its own. Decided
        // before the answers are handled, which may end the engine.
        let budget_ms = self.options.line_budget_ms;
        // A line the engine itself stopped (its work budget, or its own clock backstop) has
        // been decided and failed already: the call lasted about its budget by design, so the
        // host's clock adds nothing to it.
        let stopped_in_engine = answers
            .iter()
            .any(|(_, outcome)| matches!(outcome, Err(f) if f.code.is_overrun()));
        let work_ms = self.engines.get(&engine).map_or(0.0, |e| e.work_ms);
        let elapsed_ms = (elapsed_ms - work_ms).max(0.0);
        let timed = self
            .engines
            .get(&engine)
            .filter(|e| e.placement == Placement::Inline)
            .and_then(|e| {
                let owed = || e.in_flight.iter().take(answers.len());
                let live = owed().count();
                #[allow(clippy::cast_precision_loss)]
                let over = elapsed_ms > budget_ms * live as f64;
                (live > 0 && !stopped_in_engine && !owed().any(|f| f.replay))
                    .then(|| (e.adapter_type.clone(), over))
            });
        let out = self.handle_answers(now_ms, engine, answers);
        let Some((adapter_type, line_over)) = timed else {
            return out;
        };
        let call_budget_ms = self.options.call_budget_ms;
        let Some(a) = self.adapters.get_mut(&adapter_type) else {
            return out;
        };
        // Over the lines' budget by the clock; or the page's call, summed, over its budget.
        a.call_ms += elapsed_ms;
        let call_over = !a.call_over && a.call_ms > call_budget_ms;
        if line_over {
            a.diag.host.clock_overruns += 1;
        }
        if call_over {
            a.call_over = true;
            a.diag.host.call_overruns += 1;
        }
        if self.options.host == HostPlacement::Auto {
            if line_over {
                self.move_to_worker(now_ms, engine);
            } else if call_over {
                self.move_to_worker_because(
                    now_ms,
                    engine,
                    "one call of the page spent more than callBudgetMs in its parser inline; in a Worker the rest of the work is off the page's thread",
                );
            }
        }
        out
    }

    /// The page begins a call (a push, a rebuild, a `parseLine`): the time each type's inline
    /// engine spends from here is summed against `callBudgetMs`.
    pub fn begin_call(&mut self) {
        for a in self.adapters.values_mut() {
            a.call_ms = 0.0;
            a.call_over = false;
        }
    }

    /// Settles line `seq` of `run` with `outcome`: the one path every answered line takes.
    /// Returns `None` when the line is gone (its run dropped), else the fallback code, if the
    /// line fell back.
    pub(crate) fn settle(
        &mut self,
        run: RunId,
        seq: Seq,
        outcome: LineOutcome,
        sink: &mut Vec<Answered>,
    ) -> Option<Option<FailureCode>> {
        let preview_chars = self.options.dropped_preview_chars;
        self.settle_with(run, seq, sink, |line, ts, limits, style| {
            settle_line_previewing(line, ts, outcome, limits, style, preview_chars)
        })
    }

    /// The answer to a line of a dropped run: no transcript waits for it, but the next
    /// render's fresh run will ask for the same line reached the same way, so a good answer is
    /// remembered, and the type's listeners hear of it (their cue to render again). Not
    /// counted as a parsed line: no transcript shows it.
    fn remember_orphan(
        &mut self,
        run: RunId,
        seq: Seq,
        orphan: crate::memo::Orphan,
        outcome: LineOutcome,
    ) {
        let Some(a) = self.adapters.get_mut(&orphan.adapter_type) else {
            return;
        };
        let l = orphan.line;
        let settled = settle_line_previewing(
            &l.line,
            &l.ts,
            outcome,
            &self.options.entry_limits,
            FailedLineEntry::Generic,
            self.options.dropped_preview_chars,
        );
        if settled.fallback.is_some() {
            return;
        }
        a.memo
            .insert(a.generation, l.memo_key, &l.line, &l.ts, &settled.entries);
        let answered = Answered {
            run,
            seq,
            line: l.line,
            ts: l.ts,
            entries: settled.entries,
            failure: None,
            dropped: settled.dropped,
        };
        self.deliver_late(orphan.adapter_type, answered);
    }

    /// Settles line `seq` of `run` as a fallback with `failure` (it never got an answer).
    pub(crate) fn settle_failed(
        &mut self,
        run: RunId,
        seq: Seq,
        failure: LineFailure,
        sink: &mut Vec<Answered>,
    ) {
        self.settle_with(run, seq, sink, |line, ts, _, style| {
            settle_failure(line, ts, failure, style)
        });
    }

    fn settle_with(
        &mut self,
        run: RunId,
        seq: Seq,
        sink: &mut Vec<Answered>,
        rule: impl FnOnce(&str, &str, &EntryLimits, FailedLineEntry) -> SettledLine,
    ) -> Option<Option<FailureCode>> {
        let r = self.runs.get_mut(&run)?;
        let index = r.journal.find_pending(seq)?;
        let l = r.journal.line(index)?;
        let settled = rule(
            &l.line,
            &l.ts,
            &self.options.entry_limits,
            r.failed_line_entry,
        );
        let (line, ts, memo_key) = (l.line.clone(), l.ts.clone(), l.memo_key);
        let delivery = r.journal.settle(index, settled.resets_parser())?;
        // A failed line of a stateful run ends remembering for it: a deadline or an engine
        // fault is not a function of the history, so later states may differ from a re-run's.
        let remember = settled.fallback.is_none() && r.memo_ok;
        if settled.fallback.is_some() && !r.stateless {
            r.memo_ok = false;
        }
        let a = self.adapters.get_mut(&r.adapter_type)?;
        count_line(&mut a.diag, &line, &ts, &settled, AnsweredBy::Parser);
        // Answers that arrive late are what a re-render would wait for again: remember them.
        if remember && delivery == Delivery::Late {
            a.memo
                .insert(a.generation, memo_key, &line, &ts, &settled.entries);
        }
        let code = settled.fallback.as_ref().map(|f| f.code);
        let answered = Answered {
            run,
            seq,
            line,
            ts,
            entries: settled.entries,
            failure: settled.fallback,
            dropped: settled.dropped,
        };
        match delivery {
            Delivery::Now => sink.push(answered),
            Delivery::Late => self.push_late(answered),
        }
        Some(code)
    }

    /// Counts an ignored answer against the engine's type.
    pub(crate) fn count_stale(&mut self, engine: EngineId) {
        let adapter_type = self
            .engines
            .get(&engine)
            .map(|e| &e.adapter_type)
            .or_else(|| self.retired.get(&engine));
        if let Some(a) = adapter_type.and_then(|t| self.adapters.get_mut(t)) {
            a.diag.host.stale_answers += 1;
        }
    }
}
