//! The engines that live in the page's thread: built-in parsers and inline engine instances
//! (behind the [`Executor`]), started, run and reported on here.

use parsebox_host::{
    wire, Answered, EngineAnswer, EngineId, EngineOp, EngineRuns, LoadError, Placement, Seq,
    Started,
};
use parsebox_transcript::LineOutcome;

use super::{malformed, LiveCore};
use crate::executor::{Builtin, EngineDeath, Executor};

impl<X: Executor> LiveCore<X> {
    /// Runs `ops` in an engine of this thread and reports the answers (or the engine's
    /// death) to the core; returns what the core settled for waiting callers. An inline
    /// engine's call is timed on the clock the core's deadlines use: the core decides whether
    /// it ran over budget.
    pub(super) fn run_in_thread(
        &mut self,
        engine: EngineId,
        mut ops: Vec<EngineOp>,
    ) -> Vec<Answered> {
        let inline = self.placements.get(&engine) == Some(&Placement::Inline);
        // An inline engine that stops a line loses the answers of its whole call: a replay
        // runs in a call of its own before the live lines after it, so a live line stopped at
        // its deadline costs the run nothing of its replayed state.
        let replayed = ops
            .iter()
            .rposition(|op| matches!(op, EngineOp::Line(l) if l.replay))
            .map(|last| last + 1);
        if let Some(split) = replayed.filter(|&at| inline && at < ops.len()) {
            let live = ops.split_off(split);
            let mut out = self.run_in_thread(engine, ops);
            // An engine the replay ended is the core's to start again, with the live lines.
            if self.host.has_engine(engine) {
                out.extend(self.run_in_thread(engine, live));
            }
            return out;
        }
        let start = self.executor.now_ms();
        let result = self.run_ops(engine, ops);
        // A built-in's call is not timed: it is trusted page code, never moved.
        let end = if inline {
            self.executor.now_ms()
        } else {
            start
        };
        match result {
            Ok(answers) if inline => {
                self.host
                    .handle_inline_answers(end, engine, answers, end - start)
            }
            Ok(answers) => self.host.handle_answers(end, engine, answers),
            Err(death) => self.engine_died(end, engine, death),
        }
    }

    /// Engine `engine` died as `death` says, at `now`: the host core's recovery for it.
    pub(super) fn engine_died(
        &mut self,
        now: f64,
        engine: EngineId,
        death: EngineDeath,
    ) -> Vec<Answered> {
        match death {
            EngineDeath::Fault(reason) => self.host.handle_engine_died(now, engine, &reason),
            EngineDeath::OutOfMemory(bytes) => {
                self.host.handle_engine_out_of_memory(now, engine, bytes)
            }
            EngineDeath::Stopped => self.host.handle_engine_stopped(now, engine),
        }
    }

    fn run_ops(
        &mut self,
        engine: EngineId,
        ops: Vec<EngineOp>,
    ) -> Result<Vec<(Seq, LineOutcome)>, EngineDeath> {
        let fault = |s: &str| EngineDeath::Fault(s.to_owned());
        match self.placements.get(&engine) {
            Some(Placement::Builtin) => match self.builtins.get_mut(&engine) {
                Some(b) => Ok(b.run_ops(ops, |_| {})),
                None => Err(fault("the built-in engine is gone")),
            },
            Some(Placement::Inline) => {
                // Bytes both ways (an ops frame in, JSON answers out), copied between the two
                // memories and never decoded into JS strings on the way.
                let answers = self.executor.run_inline(engine, &wire::ops_frame(&ops))?;
                // Read as text, as a Worker's answers are: one JSON reader in the core module
                // (serde_json instantiates its whole deserializer per reader).
                let answers = std::str::from_utf8(&answers).map_err(|e| {
                    EngineDeath::Fault(format!("the engine answered text that is not UTF-8: {e}"))
                })?;
                let answers: Vec<EngineAnswer> =
                    serde_json::from_str(answers).map_err(|e| EngineDeath::Fault(malformed(e)))?;
                Ok(self.host.take_engine_answers(engine, answers))
            }
            Some(Placement::Worker) | None => Err(fault("not an engine of this thread")),
        }
    }

    pub(super) fn start_builtin(&mut self, now: f64, engine: EngineId, adapter_type: &str) {
        let result = match self.builtin_parsers.get(adapter_type) {
            Some(p) => {
                let started = Started::from(p.entry_point());
                self.builtins.insert(engine, EngineRuns::new(p.clone()));
                Ok(started)
            }
            None => Err(LoadError::new(
                "run_start_failed",
                "no built-in parser is registered for this type",
            )),
        };
        self.host.handle_engine_started(now, engine, result);
    }

    pub(super) fn start_inline(
        &mut self,
        engine: EngineId,
        adapter_type: &str,
        source: Option<String>,
        config: &str,
    ) -> Result<Started, LoadError> {
        let source = source.unwrap_or_default();
        let text = self
            .executor
            .start_inline(engine, adapter_type, &source, config)
            .map_err(|death| match death {
                EngineDeath::Stopped => LoadError::new(
                    "init_budget_exceeded",
                    "the module's evaluation ran past its deadline without counting work (one native step that does not return)",
                ),
                EngineDeath::OutOfMemory(bytes) => LoadError::new(
                    "engine_fault",
                    format!("the engine's memory reached its maximum: {bytes} more bytes did not fit"),
                ),
                EngineDeath::Fault(e) => LoadError::new("engine_fault", e),
            })?;
        serde_json::from_str::<Result<Started, LoadError>>(&text)
            .unwrap_or_else(|e| Err(LoadError::new("engine_fault", malformed(e))))
    }
}
