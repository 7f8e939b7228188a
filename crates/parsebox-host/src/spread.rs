//! Lines over several Workers ([`HostOptions::max_workers`](crate::HostOptions)): while a type's
//! Worker engines are far behind (a finished run opened at once), lines of its stateless runs
//! go to more engines of the type, each in a Worker of its own, so the machine's other cores
//! parse too. This file has the rules: which lines may go to another engine, which engine
//! takes a line, when one more starts, where lines wait meanwhile, when one ends, and where its
//! lines go when it fails.
//!
//! Only a stateless run's lines move: each is parsed on its own (`parseStdoutLine` with no
//! instance), so any engine of the same parser gives the answer the type's engine would.
//! Answers are addressed by `(run, seq)`, so the page puts each in its place whatever engine
//! gave it, in whatever order. Lines are handed out as engines answer (each owes at most
//! [`SPREAD_OWED_MS`] of work; the rest wait in the type's backlog), so a fast engine takes more
//! and one still starting takes none meanwhile. One more engine starts only when the backlog
//! holds more than [`SPREAD_AFTER_MS`] of work at the pace the type's engines have answered,
//! one start at a time. No run is bound to a spread engine: restarts, replays and parking
//! stay the type's engine's, and a spread engine ends once it owes nothing and nothing waits.

use crate::adapter::Adapter;
use crate::engine::Phase;
use crate::recovery::Cause;
use crate::{EngineId, EngineOp, Host, LineOp, Placement, RunId};

/// Work an engine of a type may owe, at the pace it has answered, while more of the type's
/// stateless lines wait ([`HostOptions::max_workers`](crate::HostOptions) above 1): the rest
/// wait in the type's backlog, and an engine's answers hand it waiting lines up to this again
/// once it owes half as much, so one that answers faster takes more, and one still starting
/// takes none meanwhile. A quarter of a second: in batches of 2,048 short lines (a tenth of
/// that), a finished run of them took 7 % longer in one Worker than sent whole (630 vs 588 ms
/// for 20,000 lines, `tests/bench/replay.mjs`); in batches of 8,192 the same (611 vs 605 ms).
/// The pace is what the type's earlier lines showed, over all its engines: a page that opens a
/// run of a parser it has not run yet spreads only past [`SPREAD_OWED_LINES_FIRST`].
pub const SPREAD_OWED_MS: f64 = 250.0;

/// The lines an engine may owe before its pace is known (64 lines answered over 50 ms): as
/// many as a light parser answers in a quarter second. A first run opened at once reaches
/// the Worker while the page pushes it, and no answer is heard until the pushes end: with 1,024
/// lines the Worker sat idle meanwhile, and 20,000 short lines took 0.81× as long again.
pub const SPREAD_OWED_LINES_FIRST: usize = 8_192;

/// The fewest lines an engine may owe by [`SPREAD_OWED_MS`] once its pace is known.
pub const SPREAD_OWED_LINES_MIN: usize = 256;

/// The most lines an engine may owe by [`SPREAD_OWED_MS`], however fast it answers.
pub const SPREAD_OWED_LINES_MAX: usize = 16_384;

/// Work a type's backlog must hold, at the pace its engine has answered, before one more engine
/// starts for it: a Worker's start (its engine made, the parser loaded, its code warmed) costs
/// a core a few hundred milliseconds, which a shorter backlog would not win back.
pub const SPREAD_AFTER_MS: f64 = 1_000.0;

impl Host {
    /// Queues the line `op` of `run`, whose type's engine is `engine`: on `engine` itself, or,
    /// for a line that may go elsewhere ([`Host::spreads`]), on the type's engine that owes
    /// the fewest lines when that is fewer than it may owe ([`Host::owed_lines`]) and nothing
    /// waits, and in the type's backlog otherwise.
    pub(crate) fn queue_line(&mut self, run: RunId, engine: EngineId, op: LineOp) {
        if !self.spreads(run, engine) {
            if let Some(e) = self.engines.get_mut(&engine) {
                e.queue(EngineOp::Line(op));
            }
            return;
        }
        let Some(adapter_type) = self.runs.get(&run).map(|r| r.adapter_type.clone()) else {
            return;
        };
        let Some(a) = self.adapters.get(&adapter_type) else {
            return;
        };
        let owed = |id: &EngineId| self.engines.get(id).map(|e| e.in_flight.len());
        let least = std::iter::once(engine)
            .chain(a.spread.iter().copied())
            .filter_map(|id| owed(&id).map(|n| (id, n)))
            .min_by_key(|&(id, n)| (n, id.0))
            .filter(|&(id, n)| a.backlog.is_empty() && n < self.owed_lines(id));
        match least {
            Some((id, _)) => self.give_line(id, op),
            None => {
                if let Some(a) = self.adapters.get_mut(&adapter_type) {
                    a.backlog.push_back(op);
                }
            }
        }
    }

    /// Queues `op` on `engine` (of the line's type); a spread engine gets the run's `NewRun`
    /// before its first line of that run.
    fn give_line(&mut self, engine: EngineId, op: LineOp) {
        let stateless = self.runs.get(&op.run).is_some_and(|r| r.stateless);
        let Some(e) = self.engines.get_mut(&engine) else {
            return;
        };
        if e.spread && !e.spread_runs.contains(&op.run) {
            e.spread_runs.push(op.run);
            e.queue(EngineOp::NewRun {
                run: op.run,
                stateless,
            });
        }
        e.queue(EngineOp::Line(op));
    }

    /// `engine` answered at `now_ms`: lines waiting in its type's backlog go to it, up to what
    /// it may owe ([`Host::owed_lines`]); when what still waits would take the type's engines more
    /// than [`SPREAD_AFTER_MS`] at `engine`'s pace, one more engine starts and takes its share
    /// ([`Host::may_start_spread`]). A spread engine that owes nothing, with nothing waiting,
    /// ends (its Worker goes back to the page's idle ones).
    pub(crate) fn refill(&mut self, now_ms: f64, engine: EngineId) {
        let Some(e) = self.engines.get(&engine) else {
            return;
        };
        // Every answer of every engine comes here: with nothing waiting and no spread engine to
        // end, there is nothing to do (and no type name to copy).
        let waiting = self
            .adapters
            .get(&e.adapter_type)
            .is_some_and(|a| !a.backlog.is_empty());
        if !waiting && !e.spread {
            return;
        }
        let adapter_type = e.adapter_type.clone();
        self.hand_backlog(&adapter_type, engine);
        if self.may_start_spread(&adapter_type) {
            if let Some(new) = self.new_engine(now_ms, &adapter_type, true) {
                if let Some(a) = self.adapters.get_mut(&adapter_type) {
                    a.diag.host.spread_starts += 1;
                }
                self.hand_backlog(&adapter_type, new);
            }
        }
        if self
            .engines
            .get(&engine)
            .is_some_and(|e| e.spread && e.is_idle())
        {
            self.end_engine(engine);
        }
    }

    /// The lines `engine` may owe while more of its type's lines wait: [`SPREAD_OWED_MS`] of
    /// work at its pace, within [`SPREAD_OWED_LINES_MIN`]..=[`SPREAD_OWED_LINES_MAX`];
    /// [`SPREAD_OWED_LINES_FIRST`] before its pace is known.
    fn owed_lines(&self, engine: EngineId) -> usize {
        let pace = self
            .engines
            .get(&engine)
            .and_then(|e| self.adapters.get(&e.adapter_type))
            .and_then(Adapter::ms_per_line);
        match pace {
            Some(ms) if ms > 0.0 => {
                ((SPREAD_OWED_MS / ms) as usize).clamp(SPREAD_OWED_LINES_MIN, SPREAD_OWED_LINES_MAX)
            }
            Some(_) => SPREAD_OWED_LINES_MAX,
            None => SPREAD_OWED_LINES_FIRST,
        }
    }

    /// Moves lines from `adapter_type`'s backlog to `engine` until it owes what it may
    /// ([`Host::owed_lines`]), once it owes half as many or fewer: lines travel in batches of
    /// half that at least, not one message per answer.
    fn hand_backlog(&mut self, adapter_type: &str, engine: EngineId) {
        let cap = self.owed_lines(engine);
        let owed = |host: &Self| {
            host.engines
                .get(&engine)
                .map_or(usize::MAX, |e| e.in_flight.len())
        };
        if owed(self) > cap / 2 {
            return;
        }
        while owed(self) < cap {
            let Some(op) = self
                .adapters
                .get_mut(adapter_type)
                .and_then(|a| a.backlog.pop_front())
            else {
                return;
            };
            self.give_line(engine, op);
        }
    }

    /// Whether `adapter_type` may have one more engine now, judged at its engines' pace: lines
    /// still wait; fewer than `max_workers` engines run, none of them still starting (one start
    /// at a time: a start that has not answered yet says nothing of the pace); there is room
    /// without parking another type's engine; and the backlog holds more than
    /// [`SPREAD_AFTER_MS`] of work for the engines the type has.
    fn may_start_spread(&self, adapter_type: &str) -> bool {
        let Some(a) = self.adapters.get(adapter_type) else {
            return false;
        };
        if a.backlog.is_empty()
            || a.spread_stopped
            || 1 + a.spread.len() >= self.options.max_workers
        {
            return false;
        }
        let starting = a.spread.iter().any(|id| {
            self.engines
                .get(id)
                .is_some_and(|e| e.phase == Phase::Starting)
        });
        let Some(ms_per_line) = a.ms_per_line() else {
            return false;
        };
        let engines = 1 + a.spread.len();
        let backlog_ms = a.backlog.len() as f64 * ms_per_line / engines as f64;
        !starting && backlog_ms > SPREAD_AFTER_MS && self.room_for_spread()
    }

    /// Whether lines of `run` may go to another engine of its type than `engine`: more than
    /// one Worker is allowed, `engine` runs in a Worker, no spread engine of the type failed
    /// since its parser last changed, and the run is stateless (Paperclip's
    /// `adapter.parseStdoutLine`, or any run of a module that exports only `parseStdoutLine`).
    fn spreads(&self, run: RunId, engine: EngineId) -> bool {
        if self.options.max_workers < 2
            || self.engines.get(&engine).map(|e| e.placement) != Some(Placement::Worker)
        {
            return false;
        }
        let Some(r) = self.runs.get(&run) else {
            return false;
        };
        self.adapters.get(&r.adapter_type).is_some_and(|a| {
            !a.spread_stopped
                && (r.stateless
                    || a.started
                        .as_ref()
                        .is_some_and(|s| s.entry_point == "parseStdoutLine"))
        })
    }

    /// Whether one more engine fits under [`HostOptions::max_live_engines`](crate::HostOptions)
    /// without parking another type's: spreading is a speed-up, never a reason to end an
    /// engine another type may need.
    fn room_for_spread(&self) -> bool {
        self.live_engines(None) < self.options.max_live_engines
    }

    /// Recovery for a spread engine that died, missed a deadline (`cause`) or could not start
    /// (`None`): counted as the type's engine's would be, it ends, and the type spreads no more
    /// until its parser changes. The lines it owed go to the type's engine, whose rules then
    /// decide them: a line this engine was ended on at its deadline has had its first run
    /// (the next deadline fails it). A parked type's engine starts again with them; a type
    /// that failed or was replaced meanwhile settled or abandoned them already.
    pub(crate) fn spread_failed(&mut self, now_ms: f64, engine: EngineId, cause: Option<Cause>) {
        let Some(e) = self.engines.get(&engine) else {
            return;
        };
        let adapter_type = e.adapter_type.clone();
        let killed_on = match cause {
            Some(Cause::Deadline(crate::engine::DeadlineKind::Line)) if e.head_is_certain() => {
                e.sent_head().filter(|h| !h.replay)
            }
            _ => None,
        };
        let owed: Vec<(RunId, u64)> = e
            .in_flight
            .iter()
            .filter(|l| !l.replay)
            .map(|l| (l.run, l.seq))
            .collect();
        self.end_engine(engine);
        if let Some(h) = killed_on {
            if let Some(r) = self.runs.get_mut(&h.run) {
                r.journal.mark_killed(h.seq);
            }
        }
        let Some(a) = self.adapters.get_mut(&adapter_type) else {
            return;
        };
        a.spread_stopped = true;
        match cause {
            Some(Cause::Died | Cause::OutOfMemory(_)) => a.diag.host.engine_faults += 1,
            Some(Cause::Deadline(_)) => a.diag.host.deadline_kills += 1,
            None => {}
        }
        let main = a.engine.filter(|id| self.engines.contains_key(id));
        let Some(main) = main else {
            if a.parked.is_some() {
                // Its engine starts again with every unanswered line of its runs.
                self.unpark(now_ms, &adapter_type);
            }
            return;
        };
        // Back to the front of the backlog, in order, then to the type's engine as it has room.
        let back: Vec<LineOp> = owed
            .into_iter()
            .filter_map(|(run, seq)| self.runs.get(&run)?.journal.pending_op(run, seq))
            .collect();
        if let Some(a) = self.adapters.get_mut(&adapter_type) {
            for op in back.into_iter().rev() {
                a.backlog.push_front(op);
            }
        }
        self.refill(now_ms, main);
    }
}
