//! Intake: chunks pushed as text, UTF-16 or bytes, split into lines, each complete line parsed
//! and appended; duplicates and chunks past the budget refused; what is retained for a rebuild.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use crate::entry::TranscriptEntry;
use crate::entry_text::EntryText;
use crate::line_rule::failed_line_entry;
use crate::Ts;

use super::{Chunk, LineAnswer, LineParser, PushChange, Retained, Stream, TranscriptBuilder};

impl<P: LineParser> TranscriptBuilder<P> {
    /// Appends one chunk. Returns the range of [`entries`](Self::entries) that this chunk
    /// changed: new entries, and the last earlier entry when a delta merged into it. With a
    /// window ([`TranscriptOptions::max_chunks`]) entries may also leave the front: use
    /// [`push_change`](Self::push_change) to learn how many.
    pub fn push(&mut self, chunk: &Chunk) -> Range<usize> {
        self.push_change(chunk).changed
    }

    /// [`push`](Self::push), saying also how many entries left the front of the window.
    pub fn push_change(&mut self, chunk: &Chunk) -> PushChange {
        // An empty chunk says nothing of the held-back half: its other half may still come.
        if chunk.stream == Stream::Stdout
            && !chunk.chunk.is_empty()
            && self.pending_high.take().is_some()
        {
            // The half pair held back was not followed by its other half.
            let mut text = String::from('\u{fffd}');
            text.push_str(&chunk.chunk);
            return self.push_text(&Chunk {
                chunk: text,
                ..chunk.clone()
            });
        }
        self.push_text(chunk)
    }

    /// Appends a chunk given as UTF-16 code units, what a JS string holds (the server cuts
    /// live chunks by UTF-16 units, so a surrogate pair can be split between two chunks): a
    /// pair split between two stdout chunks is joined, as Paperclip's line buffer joins it; a
    /// truly lone surrogate becomes U+FFFD (a Rust string cannot hold it). Never refuses a
    /// chunk. Returns what [`push_change`](Self::push_change) returns.
    pub fn push_utf16(
        &mut self,
        ts: &str,
        stream: Stream,
        units: &[u16],
        seq: Option<u64>,
    ) -> PushChange {
        let chunk = if stream == Stream::Stdout {
            let mut all: Vec<u16> = self.pending_high.take().into_iter().collect();
            all.extend_from_slice(units);
            if all.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
                self.pending_high = all.pop();
            }
            String::from_utf16_lossy(&all)
        } else {
            String::from_utf16_lossy(units)
        };
        self.push_text(&Chunk {
            ts: ts.to_owned(),
            stream,
            chunk,
            seq,
        })
    }

    pub(super) fn push_text(&mut self, chunk: &Chunk) -> PushChange {
        let end = self.entries.len();
        if self.is_duplicate(chunk) {
            self.counts.duplicate_chunks += 1;
            return PushChange::from_range(end..end);
        }
        let mut first_changed = end;
        let shared = self.options.retain_chunks.then(|| {
            let retained = Retained::of(chunk);
            let text = Arc::clone(&retained.text);
            self.retain(retained);
            text
        });
        // While a rebuild is under way the chunk waits its turn: `resume` re-ingests in order.
        if self.rebuilding.is_none() {
            match &shared {
                Some(text) => self.ingest(
                    &chunk.ts,
                    chunk.stream,
                    text,
                    Some(text),
                    &mut first_changed,
                ),
                None => self.ingest(
                    &chunk.ts,
                    chunk.stream,
                    &chunk.chunk,
                    None,
                    &mut first_changed,
                ),
            }
        }
        let frozen = self.frozen.len();
        let dropped = self.keep_window();
        // Of the entries dropped, those the window held move its indices.
        let from_window = dropped.len() - (frozen - self.frozen.len());
        PushChange {
            changed: first_changed.saturating_sub(from_window)..self.entries.len(),
            dropped,
        }
    }

    /// Appends raw stdout/stderr bytes, decoding UTF-8 across chunk boundaries: a multi-byte
    /// character split between two calls is joined, not turned into U+FFFD. Invalid bytes
    /// become U+FFFD, as the server's decoder would make them.
    pub fn push_bytes(&mut self, ts: &str, stream: Stream, bytes: &[u8]) -> Range<usize> {
        let text = if stream == Stream::Stdout {
            self.pending_bytes.extend_from_slice(bytes);
            let buf = std::mem::take(&mut self.pending_bytes);
            let keep = incomplete_utf8_tail(&buf);
            let (done, tail) = buf.split_at(buf.len() - keep);
            self.pending_bytes = tail.to_vec();
            String::from_utf8_lossy(done).into_owned()
        } else {
            String::from_utf8_lossy(bytes).into_owned()
        };
        self.push(&Chunk {
            ts: ts.to_owned(),
            stream,
            chunk: text,
            seq: None,
        })
    }

    /// Whether `chunk` repeats a retained chunk (with `drop_duplicate_chunks`).
    pub(super) fn is_duplicate(&self, chunk: &Chunk) -> bool {
        if !self.options.drop_duplicate_chunks {
            return false;
        }
        let Some(numbers) =
            self.chunk_hashes
                .get(&chunk_hash(&chunk.ts, chunk.stream, &chunk.chunk))
        else {
            return false;
        };
        numbers.iter().any(|&n| {
            let kept = usize::try_from(n - self.counts.dropped_chunks)
                .ok()
                .and_then(|k| self.chunks.get(k));
            kept.is_some_and(|kept| {
                kept.ts == chunk.ts
                    && kept.stream == chunk.stream
                    && *kept.text == *chunk.chunk
                    && (kept.seq == chunk.seq || kept.seq.is_none() || chunk.seq.is_none())
            })
        })
    }

    pub(super) fn retain(&mut self, chunk: Retained) {
        self.counts.retained_bytes += chunk.text.len();
        if self.options.drop_duplicate_chunks {
            let number = self.counts.dropped_chunks + self.chunks.len() as u64;
            self.chunk_hashes
                .entry(chunk_hash(&chunk.ts, chunk.stream, &chunk.text))
                .or_default()
                .push(number);
        }
        parsebox_meter::reserve_gently_deque(&mut self.chunks, 1);
        self.chunks.push_back(chunk);
    }

    /// Parses one chunk's `text` onto the transcript. `shared`: the retained chunk whose text
    /// `text` is, for entries that show one of its lines as it came to share.
    pub(super) fn ingest(
        &mut self,
        ts: &str,
        stream: Stream,
        text: &str,
        shared: Option<&Arc<str>>,
        first_changed: &mut usize,
    ) {
        if self.options.track_lines {
            self.chunk_starts.push(self.units());
        }
        // `finish` uses the ts of the last chunk of any stream, as upstream does.
        if self.last_ts.as_ref().is_none_or(|last| *last != ts) {
            self.last_ts = Some(Ts::from(ts));
        }
        match stream {
            Stream::Stderr => {
                let mut entry = vec![TranscriptEntry::stderr(ts, text)];
                share_chunk_text(&mut entry, text, shared);
                self.append_unit(entry, first_changed);
            }
            Stream::System => {
                let mut entry = vec![TranscriptEntry::system(ts, text)];
                share_chunk_text(&mut entry, text, shared);
                self.append_unit(entry, first_changed);
            }
            Stream::Stdout => {
                // Only the new text is scanned for newlines, so a long line that arrives in many
                // small chunks costs linear, not quadratic, time.
                let Some(first_nl) = text.find('\n') else {
                    self.pending.push_str(text);
                    return;
                };
                let (head, rest) = text.split_at(first_nl);
                if self.pending.is_empty() {
                    self.complete_line(head, ts, shared, first_changed);
                } else {
                    // A line begun in an earlier chunk is in no one chunk: its entry owns it.
                    let mut line = std::mem::take(&mut self.pending);
                    line.push_str(head);
                    self.complete_line(&line, ts, None, first_changed);
                }
                // `rest` starts with the newline just consumed.
                let mut rest = rest.get(1..).unwrap_or("");
                while let Some(nl) = rest.find('\n') {
                    let (l, r) = rest.split_at(nl);
                    self.complete_line(l, ts, shared, first_changed);
                    rest = r.get(1..).unwrap_or("");
                }
                self.pending.push_str(rest);
            }
        }
    }

    /// A line ended by `\n`; a `\r` right before it belongs to the newline (`\r?\n`).
    pub(super) fn complete_line(
        &mut self,
        raw: &str,
        ts: &str,
        shared: Option<&Arc<str>>,
        first_changed: &mut usize,
    ) {
        if let Some(line) = super::line_of(raw) {
            self.parse_and_append(line, ts, shared, first_changed);
        }
    }

    pub(super) fn parse_and_append(
        &mut self,
        line: &str,
        ts: &str,
        shared: Option<&Arc<str>>,
        first_changed: &mut usize,
    ) {
        self.lines += 1;
        let answer = match self.parser.answer_line(line, ts) {
            LineAnswer::Now(answer) => answer,
            LineAnswer::Later { token, provisional } => {
                if self.options.track_lines {
                    let unit = self.units();
                    self.later.insert(token, unit);
                    self.waiting.insert(unit);
                }
                Ok(provisional)
            }
        };
        let produced = match answer {
            Ok(entries) => entries,
            Err(failure) => {
                self.failures += 1;
                // The one reset rule (SPEC §4): a line the parser did not fail leaves its state.
                if failure.code.is_parser_failure() {
                    self.parser.reset();
                }
                vec![failed_line_entry(
                    line,
                    ts,
                    &failure,
                    self.options.failed_line_entry,
                )]
            }
        };
        let mut produced = produced;
        if !self.parser.has_room() {
            // Within the budget the line still shows, whole; what its parser made of it
            // does not.
            self.counts.over_budget_lines += 1;
            produced = vec![crate::generic_entry(line, ts)];
        }
        share_chunk_text(&mut produced, line, shared);
        self.append_unit(produced, first_changed);
    }
}

/// The hash that finds a chunk's possible duplicates: its ts, stream and text.
pub(super) fn chunk_hash(ts: &str, stream: Stream, text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    ts.hash(&mut hasher);
    stream.hash(&mut hasher);
    text.hash(&mut hasher);
    hasher.finish()
}

/// Makes the text entries that show `line` as it came slices of `shared`, the retained chunk
/// `line` is in: a line shown as it came is held once.
pub(super) fn share_chunk_text(
    entries: &mut [TranscriptEntry],
    line: &str,
    shared: Option<&Arc<str>>,
) {
    if let Some(chunk) = shared {
        for entry in entries.iter_mut() {
            if let TranscriptEntry::Stdout(b)
            | TranscriptEntry::Stderr(b)
            | TranscriptEntry::System(b)
            | TranscriptEntry::User(b) = entry
            {
                if !b.text.is_shared() && *b.text == *line {
                    if let Some(slice) = EntryText::slice_of(chunk, line) {
                        b.text = slice;
                    }
                }
            }
        }
    }
}

/// How many bytes at the end of `buf` are the start of a UTF-8 character whose remaining bytes
/// have not arrived yet (0 when the buffer ends on a character boundary or in invalid bytes).
pub(super) fn incomplete_utf8_tail(buf: &[u8]) -> usize {
    // A character is at most 4 bytes: look at the last 3 for a lead byte.
    for back in 1..=3.min(buf.len()) {
        let Some(&b) = buf.get(buf.len() - back) else {
            return 0;
        };
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // continuation byte: keep looking for the lead
        }
        let needed = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}
