//! The behaviour checks' runs in the WASI build: the sandbox in the command's own thread, each
//! call watched (a hung call is given up by the npm command: `watch.rs`).

use parsebox_sandbox::{ParserModule, ParserRun, SandboxOptions};
use parsebox_transcript::LineFailure;

use super::feed::{feed, Answer, Line};
use super::load::describe_load_error;
use super::runs::{Runs, Stuck};
use crate::watch::Watch;

/// The parser in the sandbox, in this thread, each call watched (see the module's doc).
pub(super) struct SandboxRuns<'a> {
    pub(super) module: &'a ParserModule,
    pub(super) options: &'a SandboxOptions,
    pub(super) watch: Watch,
}

/// A run, and whether it owes a reset before its next line (the line rule's).
pub(super) struct SandboxRun(ParserRun, bool);

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
