//! `parsebox parse`'s parser on the live core ([`NativeCore`]): a [`LineParser`] the transcript
//! builder feeds a line at a time, each answered as the package answers it.

use std::collections::BTreeMap;
use std::time::Duration;

use parsebox_host::{AdapterState, RunId};
use parsebox_sandbox::SandboxOptions;
use parsebox_transcript::{FailureCode, LineFailure, LineParser, TranscriptEntry};

use super::NativeCore;
use crate::native::runner::StartError;

/// One run of the parser in an engine process, a line at a time.
pub struct HostedRun {
    core: NativeCore,
    run: RunId,
    give_up: Duration,
    on_give_up: Box<dyn FnMut(Duration)>,
}

impl HostedRun {
    /// Starts the parser in an engine process with the command's `options`; a line whose engine
    /// is stuck in one native step for `give_up` is ended there (the core's hard deadline),
    /// runs once more on a fresh engine as the page's does, and calls `on_give_up` when it
    /// falls back.
    ///
    /// # Errors
    /// Why the parser did not start.
    pub fn start(
        source: &str,
        options: &SandboxOptions,
        give_up: Duration,
        on_give_up: Box<dyn FnMut(Duration)>,
    ) -> Result<Self, StartError> {
        let mut core = NativeCore::for_command(options, give_up, 0).map_err(StartError::Thread)?;
        let status = core
            .register(source)
            .map_err(|e| StartError::Thread(e.to_string()))?;
        if status.state != AdapterState::Ready {
            return Err(match status.error {
                Some(e) => StartError::Hosted(e),
                None => StartError::Thread(status.reason.unwrap_or_default()),
            });
        }
        let run = core
            .new_run()
            .map_err(|e| StartError::Thread(e.to_string()))?;
        Ok(Self {
            core,
            run,
            give_up,
            on_give_up,
        })
    }

    /// Entries validation dropped, by reason.
    pub fn dropped(&self) -> BTreeMap<String, u64> {
        self.core.diagnostics().dropped_entries
    }
}

impl LineParser for HostedRun {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        let settled = self
            .core
            .line(self.run, line, ts)
            .map_err(|e| LineFailure::new(FailureCode::EngineFault, e.to_string()))?;
        let Some(failure) = settled.fell_back else {
            return Ok(settled.entries);
        };
        // The core's own sentence, as the package gives it (`diagnostics().fallbackLines`).
        if failure.code == FailureCode::Deadline {
            (self.on_give_up)(self.give_up);
        }
        Err(failure)
    }

    /// The engine resets the run itself after a line that calls for it, as the page's does.
    fn reset(&mut self) {}
}
