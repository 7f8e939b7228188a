//! The behaviour checks' runs on the package's live core ([`NativeCore`]), the engine a process
//! of the command: fresh runs, `reset()`, and each line's answer as the report needs it.

use parsebox_host::RunId;
use parsebox_sandbox::SandboxOptions;
use parsebox_transcript::{FailureCode, LineFailure};

use super::feed::{uninterruptible, Answer, Line, Outcome};
use super::runs::{Runs, Stuck};
use crate::hosted::NativeCore;
use crate::watch::overran;

/// The parser on the live core (see the module's doc).
pub(super) struct CoreRuns {
    core: NativeCore,
    options: SandboxOptions,
}

impl CoreRuns {
    /// Runs on `core`, whose parser has started; `options` are the command's.
    pub(super) fn new(core: NativeCore, options: SandboxOptions) -> Self {
        Self { core, options }
    }
}

impl Runs for CoreRuns {
    type Run = RunId;

    fn start(&mut self, what: &str) -> Result<RunId, String> {
        self.core
            .new_run()
            .map_err(|e| format!("could not start a fresh run for the {what}: {e}"))
    }

    fn feed_all(&mut self, run: &mut RunId, lines: &[Line]) -> Result<Vec<Answer>, Stuck> {
        let mut answers = Vec::with_capacity(lines.len());
        for line in lines {
            let settled = match self.core.line(*run, &line.text, &line.ts) {
                Ok(s) => s,
                Err(e) => {
                    let f = LineFailure::new(FailureCode::EngineFault, e.to_string());
                    answers.push(Answer {
                        outcome: Outcome::Failed(f),
                        invalid: Vec::new(),
                    });
                    continue;
                }
            };
            // The line's own time, not the engine's realm work before it (a busy machine
            // stretches that; it is not the line's): no time known, no clock verdict.
            let elapsed = settled.ran.unwrap_or_default();
            let outcome = match settled.fell_back {
                Some(f) if f.code == FailureCode::Deadline => {
                    return Err(Stuck {
                        label: line.label.clone(),
                    })
                }
                // Answered (or stopped by its budget) only long after it: one native step
                // ran past the budget first. Said as the package's page would feel it.
                Some(LineFailure {
                    code: FailureCode::BudgetExceeded,
                    ..
                })
                | None
                    if overran(elapsed, self.options.line_budget_ms) =>
                {
                    Outcome::Failed(LineFailure::new(
                        FailureCode::BudgetExceeded,
                        uninterruptible(elapsed, self.options.line_budget_ms),
                    ))
                }
                // All its entries were invalid (listed below): the line itself shows.
                Some(f) if f.code != FailureCode::AllEntriesInvalid => Outcome::Failed(f),
                _ => Outcome::Entries(settled.entries),
            };
            answers.push(Answer {
                outcome,
                invalid: settled.dropped,
            });
        }
        Ok(answers)
    }

    fn reset(&mut self, run: &mut RunId) -> Result<(), LineFailure> {
        self.core
            .reset_run(*run)
            .map_err(|e| LineFailure::new(FailureCode::EngineFault, e.to_string()))
    }

    fn end(&mut self, run: RunId) {
        self.core.drop_run(run);
    }
}
