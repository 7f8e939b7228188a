//! The registry's budget for what its transcripts hold: the shared core's memory stays bounded
//! whatever parsers return and however many runs are open. Each transcript (a builder's run)
//! reports what it holds after every call; before a call it asks how much room the registry
//! leaves it. What a transcript does with that room (a line past it shows its generic entry, a
//! chunk that cannot fit is refused) is `parsebox_transcript`'s `TranscriptBuilder`'s.

use crate::{Host, RunId};

impl Host {
    /// The most bytes transcript `run` may hold: the registry's
    /// [`max_transcript_bytes`](crate::HostOptions::max_transcript_bytes) less what its other
    /// transcripts hold.
    pub fn transcript_room(&self, run: RunId) -> usize {
        let others: usize = self
            .transcript_bytes
            .iter()
            .filter(|(r, _)| **r != run)
            .map(|(_, b)| *b)
            .fold(0, usize::saturating_add);
        self.options.max_transcript_bytes.saturating_sub(others)
    }

    /// What the registry keeps for a re-render's fresh run ([`crate::memo`]): its memos of
    /// answers, in real bytes where the core's allocator is counted, and the lines of dropped
    /// runs waiting for their answers to be remembered. No transcript's: a transcript's call
    /// leaves what it adds to them out of what it is charged, and the core's room holds them
    /// beside the transcripts.
    pub fn memo_bytes(&self) -> usize {
        self.adapters
            .values()
            .map(|a| a.memo.bytes())
            .fold(self.orphans.bytes(), usize::saturating_add)
    }

    /// Transcript `run` holds `held` bytes now, and showed `over_budget_lines` more lines with
    /// the generic entry for its budget since it last said. Counted against its type.
    pub fn record_transcript(&mut self, run: RunId, held: usize, over_budget_lines: u64) {
        let Some(adapter_type) = self.runs.get(&run).map(|r| r.adapter_type.clone()) else {
            return;
        };
        self.transcript_bytes.insert(run, held);
        if let Some(a) = self.adapters.get_mut(&adapter_type) {
            a.diag.host.over_budget_lines += over_budget_lines;
        }
    }

    /// What transcript `run` said it holds last ([`record_transcript`](Self::record_transcript)).
    pub fn transcript_held(&self, run: RunId) -> usize {
        self.transcript_bytes.get(&run).copied().unwrap_or(0)
    }

    /// Transcript `run` had no room for `lines` more lines' answers (they arrived and were let
    /// go: the lines keep their generic entries). Counted against its type.
    pub fn record_over_budget(&mut self, run: RunId, lines: u64) {
        let adapter_type = self.runs.get(&run).map(|r| r.adapter_type.clone());
        if let Some(a) = adapter_type.and_then(|t| self.adapters.get_mut(&t)) {
            a.diag.host.over_budget_lines += lines;
        }
    }

    /// What the transcripts of `adapter_type` hold now, together.
    pub(crate) fn transcript_bytes_of(&self, adapter_type: &str) -> u64 {
        self.transcript_bytes
            .iter()
            .filter(|(run, _)| {
                self.runs
                    .get(run)
                    .is_some_and(|r| r.adapter_type == adapter_type)
            })
            .map(|(_, b)| *b as u64)
            .sum()
    }

    /// Transcript `run` refused a chunk that did not fit its budget.
    pub fn record_refused_chunk(&mut self, run: RunId) {
        let adapter_type = self.runs.get(&run).map(|r| r.adapter_type.clone());
        if let Some(a) = adapter_type.and_then(|t| self.adapters.get_mut(&t)) {
            a.diag.host.refused_chunks += 1;
        }
    }

    /// Forgets what transcript `run` held (its run was dropped).
    pub(crate) fn forget_transcript(&mut self, run: RunId) {
        self.transcript_bytes.remove(&run);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::{Host, HostOptions};

    /// Two transcripts share the registry's budget; a dropped one gives its share back.
    #[test]
    fn transcripts_share_the_registrys_budget() {
        let mut host = Host::new(HostOptions {
            load_sources: false,
            max_transcript_bytes: 1000,
            ..HostOptions::default()
        })
        .unwrap();
        let a = host.create_run("t").unwrap();
        let b = host.create_run("t").unwrap();
        assert_eq!(host.transcript_room(a), 1000);
        host.record_transcript(a, 600, 0);
        assert_eq!(host.transcript_room(a), 1000, "its own bytes are its room");
        assert_eq!(host.transcript_room(b), 400);
        host.record_transcript(b, 400, 2);
        host.record_refused_chunk(b);
        let d = host.diagnostics(Some("t"));
        assert_eq!(
            (
                d.host.transcript_bytes,
                d.host.over_budget_lines,
                d.host.refused_chunks
            ),
            (1000, 2, 1)
        );
        host.drop_run(a).unwrap();
        assert_eq!(host.transcript_room(b), 1000);
        assert_eq!(host.diagnostics(Some("t")).host.transcript_bytes, 400);
    }
}
