//! The behaviour checks' runs on the package's live core ([`NativeCore`]), the engine a process
//! of the command: fresh runs, `reset()`, and each line's answer as the report needs it.

use parsebox_host::RunId;
use parsebox_transcript::{FailureCode, LineFailure};

use super::feed::{Answer, Line, Outcome};
use super::runs::{Runs, Stuck};
use crate::native::hosted::NativeCore;

/// The parser on the live core (see the module's doc).
pub(super) struct CoreRuns {
    core: NativeCore,
}

impl CoreRuns {
    /// Runs on `core`, whose parser has started.
    pub(super) fn new(core: NativeCore) -> Self {
        Self { core }
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
            let outcome = match settled.fell_back {
                Some(f) if f.code == FailureCode::Deadline => {
                    return Err(Stuck {
                        label: line.label.clone(),
                    })
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
