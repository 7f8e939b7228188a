//! Rebuilds: the transcript parsed again from the retained chunks (a parser became ready), in
//! slices under a budget, the old transcript let go of in batches.

use std::ops::Range;

use super::{LineParser, Rebuilding, TranscriptBuilder};

impl<P: LineParser> TranscriptBuilder<P> {
    /// Starts over with a (possibly new) parser: resets it and re-parses every retained chunk.
    /// A line that [`TranscriptBuilder::finish`] parsed is parsed again at the same point, so
    /// a rebuild after the run ended keeps its last line. Needs
    /// [`TranscriptOptions::retain_chunks`]; without it only the entries are cleared.
    pub fn rebuild(&mut self) {
        self.rebuild_within(&mut || true);
    }

    /// [`rebuild`](Self::rebuild) in slices, for a caller on a thread that must not block: it
    /// re-parses retained chunks while `go_on()` says so (at least one), and leaves the rest
    /// to [`resume`](Self::resume). Until the rebuild is complete
    /// ([`is_rebuilding`](Self::is_rebuilding)) the entries are those of the chunks re-parsed
    /// so far; a pushed chunk is retained and re-parsed in its turn; `finish` completes the
    /// rebuild first. Slices give the same entries as one rebuild. Returns whether it is
    /// complete.
    pub fn rebuild_within(&mut self, go_on: &mut dyn FnMut() -> bool) -> bool {
        self.parser.reset();
        let old_entries = std::mem::take(&mut self.entries);
        self.pending.clear();
        // Held-back bytes and surrogate halves are in no retained chunk: they stay pending.
        self.last_ts = None;
        self.lines = 0;
        self.failures = 0;
        let old_items = std::mem::take(&mut self.items);
        self.later.clear();
        self.waiting.clear();
        self.chunk_starts.clear();
        // The frozen lines are parsed again with the rest.
        self.frozen.clear();
        self.generation += 1;
        let first = self.counts.dropped_chunks;
        // A finish before the window's first chunk ended a line whose entries left with it.
        self.finishes.retain(|f| f.after_chunks > first);
        self.rebuilding = Some(Rebuilding {
            next_chunk: 0,
            next_finish: 0,
            old_entries,
            old_items,
        });
        let mut ignored = 0;
        self.resume_into(go_on, &mut ignored);
        self.rebuilding.is_none()
    }

    /// Whether a rebuild in slices is under way ([`rebuild_within`](Self::rebuild_within)).
    pub fn is_rebuilding(&self) -> bool {
        self.rebuilding.is_some()
    }

    /// Goes on with a rebuild under way while `go_on()` says so (at least one chunk); returns
    /// the range of entries that changed (empty when none is under way). Like a rebuild, it
    /// leaves the window ([`TranscriptOptions::max_chunks`]) to the next push.
    pub fn resume(&mut self, go_on: &mut dyn FnMut() -> bool) -> Range<usize> {
        if self.rebuilding.is_some() {
            self.counts.rebuild_slices += 1;
        }
        let mut first_changed = self.entries.len();
        self.resume_into(go_on, &mut first_changed);
        first_changed..self.entries.len()
    }

    /// Re-ingests the rebuild's next chunks, parsing finish points again where they were.
    pub(super) fn resume_into(
        &mut self,
        go_on: &mut dyn FnMut() -> bool,
        first_changed: &mut usize,
    ) {
        let Some(mut r) = self.rebuilding.take() else {
            return;
        };
        let mut any = false;
        while (!any || go_on()) && r.free_batch() {
            any = true;
        }
        let first = self.counts.dropped_chunks;
        let chunks = std::mem::take(&mut self.chunks);
        while r.next_chunk < chunks.len() && (!any || go_on()) {
            if let Some(chunk) = chunks.get(r.next_chunk) {
                let text = Some(&chunk.text);
                self.ingest(&chunk.ts, chunk.stream, &chunk.text, text, first_changed);
            }
            r.next_chunk += 1;
            any = true;
            let done = first + r.next_chunk as u64;
            while let Some(tail) = self
                .finishes
                .get(r.next_finish)
                .filter(|f| f.after_chunks == done)
                .map(|f| f.tail.clone())
            {
                self.finish_line(&tail, first_changed);
                r.next_finish += 1;
            }
        }
        self.chunks = chunks;
        if r.next_chunk < self.chunks.len() || !r.old_entries.is_empty() || !r.old_items.is_empty()
        {
            self.rebuilding = Some(r);
        }
    }

    /// Replaces the parser and rebuilds the transcript with it.
    pub fn set_parser(&mut self, parser: P) {
        self.parser = parser;
        self.rebuild();
    }
}
