//! A transcript's budget: its own `maxTranscriptBytes`, narrowed to what the registry's shared
//! `maxTranscriptBytesTotal` leaves it beside its other transcripts. A chunk that cannot fit is
//! refused before any line of it is parsed; a line past the budget shows its generic entry.

use super::{LiveTranscript, TranscriptError};
use crate::executor::Executor;

/// `b` bytes as the refusal says them.
fn mib(b: usize) -> String {
    // Display only: a byte count is far below 2^52.
    #[allow(clippy::cast_precision_loss)]
    let m = b as f64 / f64::from(1 << 20);
    format!("{m:.1} MiB")
}

impl<X: Executor> LiveTranscript<X> {
    /// Narrows the transcript's budget to what it may hold now; returns what the registry
    /// leaves it ([`Host::transcript_room`](parsebox_host::Host::transcript_room)).
    pub(super) fn narrow(&mut self) -> usize {
        let run = self.run();
        let room = self
            .with_core(|s| s.host().transcript_room(run))
            .unwrap_or(self.max_bytes);
        self.inner
            .set_max_held_bytes(Some(self.max_bytes.min(room)));
        room
    }

    /// [`narrow`](Self::narrow), then refuses a chunk of `bytes` that cannot fit (counted in
    /// the type's `host.refusedChunks`).
    pub(super) fn make_room(&mut self, bytes: usize) -> Result<(), TranscriptError> {
        let room = self.narrow();
        if self.inner.has_room_for(bytes) {
            return Ok(());
        }
        let run = self.run();
        let (held, max) = (self.inner.held_bytes(), self.max_bytes);
        self.with_core(|s| s.host_mut().record_refused_chunk(run));
        Err(TranscriptError::Memory(format!(
            "this transcript holds {} and may hold {} ({}); a chunk of {} more does not fit. Dispose transcripts no longer shown, or raise the budget",
            mib(held),
            mib(max.min(room)),
            if room < max {
                "what the registry's maxTranscriptBytesTotal leaves it beside its other transcripts"
            } else {
                "maxTranscriptBytes"
            },
            mib(bytes)
        )))
    }

    /// Tells the core what the transcript holds now, and how many more lines its budget showed
    /// generic.
    pub(super) fn record(&mut self) {
        let run = self.run();
        let counts = self.inner.counts();
        let over = counts
            .over_budget_lines
            .saturating_sub(self.over_budget_told);
        let told = self.with_core(|s| s.host_mut().record_transcript(run, counts.held_bytes, over));
        if told.is_some() {
            self.over_budget_told = counts.over_budget_lines;
        }
    }
}
