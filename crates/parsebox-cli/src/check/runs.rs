//! Where the behaviour checks run the parser's lines: fresh runs of it, each line's answer as
//! the report needs it, and `reset()`. Natively that is the package's live core, the engine a
//! process of the command ([`CoreRuns`]): a line is answered, falls back or is ended at its
//! deadline exactly as in the page. Under WASI (`npx parsebox`) it is the sandbox in the
//! command's own thread, watched ([`SandboxRuns`]) until the npm command runs on the package's
//! modules.

use parsebox_transcript::LineFailure;

use super::feed::{Answer, Line};

/// A line stuck in one native step: the engine was ended at the deadline, on its run again too.
pub(super) struct Stuck {
    /// The line's label.
    pub(super) label: String,
}

/// Runs of the parser, a line at a time.
pub(super) trait Runs {
    /// One run.
    type Run;

    /// A fresh run (`what` names what it is for, in the error).
    fn start(&mut self, what: &str) -> Result<Self::Run, String>;

    /// Each line's answer, in order, or the line that got stuck.
    fn feed_all(&mut self, run: &mut Self::Run, lines: &[Line]) -> Result<Vec<Answer>, Stuck>;

    /// The run's `reset()`.
    fn reset(&mut self, run: &mut Self::Run) -> Result<(), LineFailure>;

    /// Lets the run go.
    fn end(&mut self, run: Self::Run);
}

#[cfg(not(target_os = "wasi"))]
pub(super) use core::CoreRuns;
#[cfg(target_os = "wasi")]
pub(super) use sandbox::SandboxRuns;

#[cfg(not(target_os = "wasi"))]
mod core {
    use parsebox_host::RunId;
    use parsebox_sandbox::SandboxOptions;
    use parsebox_transcript::{FailureCode, LineFailure};

    use super::{Runs, Stuck};
    use crate::check::feed::{invalid_entries, uninterruptible, Answer, Line, Outcome};
    use crate::hosted::NativeCore;
    use crate::watch::overran;

    /// The parser on the live core (see the module's doc).
    pub(in crate::check) struct CoreRuns {
        core: NativeCore,
        options: SandboxOptions,
    }

    impl CoreRuns {
        /// Runs on `core`, whose parser has started; `options` are the command's.
        pub(in crate::check) fn new(mut core: NativeCore, options: SandboxOptions) -> Self {
            core.keep_returned();
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
                let failure = settled.fell_back.map(|(code, message)| {
                    let code = serde_json::from_value(serde_json::Value::String(code))
                        .unwrap_or(FailureCode::EngineFault);
                    LineFailure::new(code, message)
                });
                let outcome = match failure {
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
                let invalid = match settled.returned {
                    Some(value) if settled.dropped > 0 => {
                        invalid_entries(value, &self.options.entry_limits)
                    }
                    _ => Vec::new(),
                };
                answers.push(Answer { outcome, invalid });
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
}

#[cfg(target_os = "wasi")]
mod sandbox {
    use parsebox_sandbox::{ParserModule, ParserRun, SandboxOptions};
    use parsebox_transcript::LineFailure;

    use super::{Runs, Stuck};
    use crate::check::feed::{feed, Answer, Line};
    use crate::check::load::describe_load_error;
    use crate::watch::Watch;

    /// The parser in the sandbox, in this thread, each call watched (see the module's doc).
    pub(in crate::check) struct SandboxRuns<'a> {
        pub(in crate::check) module: &'a ParserModule,
        pub(in crate::check) options: &'a SandboxOptions,
        pub(in crate::check) watch: Watch,
    }

    /// A run, and whether it owes a reset before its next line (the line rule's).
    pub(in crate::check) struct SandboxRun(ParserRun, bool);

    impl Runs for SandboxRuns<'_> {
        type Run = SandboxRun;

        fn start(&mut self, what: &str) -> Result<SandboxRun, String> {
            self.module
                .new_run()
                .map(|r| SandboxRun(r, false))
                .map_err(|e| {
                    format!(
                        "could not start a fresh run for the {what}: {}",
                        describe_load_error(&e)
                    )
                })
        }

        fn feed_all(&mut self, run: &mut SandboxRun, lines: &[Line]) -> Result<Vec<Answer>, Stuck> {
            // A hung call never returns here: the watchdog reports it and ends the command.
            Ok(lines
                .iter()
                .map(|l| feed(&mut run.0, l, self.options, &self.watch, &mut run.1))
                .collect())
        }

        fn reset(&mut self, run: &mut SandboxRun) -> Result<(), LineFailure> {
            run.1 = false;
            run.0.reset()
        }

        fn end(&mut self, run: SandboxRun) {
            drop(run);
        }
    }
}
