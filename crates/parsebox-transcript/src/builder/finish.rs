//! The finish: the pending partial line parsed at the end, and what a finish would give.

use std::ops::Range;

use crate::jsstr::js_trim;

use super::fold::streamed;
use super::FinishPoint;
use super::{FinishedTail, LineParser, TranscriptBuilder, TranscriptOptions};

impl<P: LineParser> TranscriptBuilder<P> {
    /// How many entries, from the first, no later chunk can change: all of them, unless the
    /// last is a streamed delta that a later one may still merge into. (A rebuild or a late
    /// answer can change any entry; this is for appending only.)
    pub fn final_len(&self) -> usize {
        let len = self.entries.len();
        match self.entries.last() {
            Some(last) if streamed(last) => len - 1,
            _ => len,
        }
    }

    /// Whether [`TranscriptBuilder::finish`] would parse a last line now: the partial stdout
    /// line is not blank after trimming, or half a character is held back. When it would not,
    /// `finish` changes no entry and the run can go on as if it had not been called.
    pub fn has_pending_line(&self) -> bool {
        self.pending_high.is_some()
            || !self.pending_bytes.is_empty()
            || !js_trim(&self.pending).is_empty()
    }

    /// What [`finish`](Self::finish) would end the transcript with, without finishing it (the
    /// run goes on): the retained chunks from `from_chunk` on are parsed again by `parser`, a
    /// fresh run (a stateful parser sees those lines only, as a re-parse of that list would),
    /// and finished with this builder's held-back text. Returns how many of this builder's last
    /// entries the finished line replaces (delta entries it merged with; never more than
    /// the replayed chunks made) and the entries that take their place. `from_chunk` is where
    /// a line starts, so the replay's lines are this builder's. A re-rendered window shows its
    /// pending line this way (Paperclip finishes every list it renders).
    pub fn finished_tail<Q: LineParser>(&self, from_chunk: usize, parser: Q) -> FinishedTail {
        let options = TranscriptOptions {
            redact_home_paths: self.options.redact_home_paths,
            failed_line_entry: self.options.failed_line_entry,
            ..TranscriptOptions::default()
        };
        let mut once = TranscriptBuilder::new(parser, options);
        // `once` keeps no chunks, drops no duplicates and holds no half pair yet: ingesting a
        // chunk is all a push does for it, and needs no copy of the retained text.
        let mut changed = 0;
        for chunk in self.chunks.range(from_chunk.min(self.chunks.len())..) {
            once.ingest(&chunk.ts, chunk.stream, &chunk.text, None, &mut changed);
        }
        once.pending_high = self.pending_high;
        once.pending_bytes.clone_from(&self.pending_bytes);
        let before = once.entries.len();
        let changed = once.finish();
        let mut entries = once.entries;
        FinishedTail {
            replaced: before - changed.start.min(before),
            entries: entries.split_off(changed.start.min(entries.len())),
        }
    }

    /// Ends the run: a non-empty pending partial line is parsed as a full line with the last
    /// chunk's ts. Returns the range of entries that changed.
    /// A rebuild under way is completed first.
    pub fn finish(&mut self) -> Range<usize> {
        let mut first_changed = self.entries.len();
        self.resume_into(&mut || true, &mut first_changed);
        let mut tail = String::new();
        if self.pending_high.take().is_some() {
            tail.push('\u{fffd}');
        }
        if !self.pending_bytes.is_empty() {
            let bytes = std::mem::take(&mut self.pending_bytes);
            tail.push_str(&String::from_utf8_lossy(&bytes));
        }
        if self.finish_line(&tail, &mut first_changed) {
            let after_chunks = self.counts.dropped_chunks + self.chunks.len() as u64;
            self.finishes.push(FinishPoint { after_chunks, tail });
        }
        first_changed..self.entries.len()
    }

    /// Completes the pending partial line with `tail` and parses it with the last chunk's ts,
    /// unless it is blank. Returns whether a line was parsed.
    pub(super) fn finish_line(&mut self, tail: &str, first_changed: &mut usize) -> bool {
        let mut pending = std::mem::take(&mut self.pending);
        pending.push_str(tail);
        let line = js_trim(&pending);
        if line.is_empty() {
            return false;
        }
        let ts = self.last_ts.clone().unwrap_or_default();
        self.parse_and_append(line, &ts, None, first_changed);
        true
    }
}
