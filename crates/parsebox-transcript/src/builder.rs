//! The incremental transcript builder (SPEC §5).
//!
//! Paperclip's viewer rebuilds the whole transcript from every retained chunk on each update.
//! [`TranscriptBuilder`] gives the same entries, but appending a chunk costs work proportional to
//! that chunk: it keeps the pending partial stdout line and the entries built so far, and
//! [`TranscriptBuilder::push`] reports which entries changed.

use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::entry::TranscriptEntry;
use crate::entry_text::EntryText;
use crate::jsstr::js_trim;
use crate::line_rule::{failed_line_entry, FailedLineEntry, LineFailure};
use crate::origin::EntryOrigin;
use crate::redact::redact_entry_paths;

/// Which stream a chunk of run output came from.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", ts(rename = "RunLogStream"))]
pub enum Stream {
    /// The agent's stdout: split into lines and parsed.
    Stdout,
    /// The agent's stderr: one `stderr` entry per chunk.
    Stderr,
    /// Paperclip's own messages: one `system` entry per chunk.
    System,
}

/// One chunk of run output, as the run-log websocket and the stored NDJSON pages deliver it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", ts(rename = "RunLogChunk"))]
pub struct Chunk {
    /// When the chunk was produced (ISO timestamp).
    pub ts: String,
    /// Which stream it came from.
    pub stream: Stream,
    /// The text. A chunk may end (or start) in the middle of a line.
    pub chunk: String,
    /// Sequence number, when the server assigned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub seq: Option<u64>,
}

impl Chunk {
    /// A stdout chunk.
    pub fn stdout(ts: &str, text: &str) -> Self {
        Self {
            ts: ts.to_owned(),
            stream: Stream::Stdout,
            chunk: text.to_owned(),
            seq: None,
        }
    }
    /// A stderr chunk.
    pub fn stderr(ts: &str, text: &str) -> Self {
        Self {
            ts: ts.to_owned(),
            stream: Stream::Stderr,
            chunk: text.to_owned(),
            seq: None,
        }
    }
    /// A system chunk.
    pub fn system(ts: &str, text: &str) -> Self {
        Self {
            ts: ts.to_owned(),
            stream: Stream::System,
            chunk: text.to_owned(),
            seq: None,
        }
    }
}

/// Turns one stdout line into entries: the generic parser, a sandboxed adapter parser, or a
/// trusted built-in. Closures `FnMut(&str, &str) -> Result<Vec<TranscriptEntry>, LineFailure>`
/// are parsers too.
pub trait LineParser {
    /// Parses one complete, trimmed, non-empty line that arrived at `ts`.
    ///
    /// # Errors
    /// A [`LineFailure`] when the parser threw, ran over budget or returned garbage; the builder
    /// falls back to the generic entry for this line.
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure>;

    /// Forgets cross-line state: called after a failed line and before a rebuild.
    fn reset(&mut self) {}

    /// What the builder calls for each line: by default the answer of
    /// [`parse_line`](Self::parse_line), now. A parser running elsewhere (a Worker) may instead
    /// answer [`LineAnswer::Later`]: the builder shows the provisional entries, counts no
    /// failure, and replaces them when the host hands the answer to
    /// [`TranscriptBuilder::replace_answers`] under the same token (needs `track_lines`).
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        LineAnswer::Now(self.parse_line(line, ts))
    }
}

/// What a [`LineParser`] gives for one line.
#[derive(Clone, Debug, PartialEq)]
pub enum LineAnswer {
    /// The answer, now: entries, or a failure (the failed line's entry, and a reset when the
    /// parser itself failed the line: [`FailureCode::is_parser_failure`](crate::FailureCode::is_parser_failure)).
    Now(Result<Vec<TranscriptEntry>, LineFailure>),
    /// Entries to show for now; the real answer comes later under `token`.
    Later {
        /// The address of the late answer (unique per builder until a rebuild).
        token: u64,
        /// What the line shows meanwhile (the generic entry).
        provisional: Vec<TranscriptEntry>,
    },
}

impl<F> LineParser for F
where
    F: FnMut(&str, &str) -> Result<Vec<TranscriptEntry>, LineFailure>,
{
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        self(line, ts)
    }
}

impl LineParser for Box<dyn LineParser + '_> {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        (**self).parse_line(line, ts)
    }
    fn reset(&mut self) {
        (**self).reset();
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        (**self).answer_line(line, ts)
    }
}

/// What a finish would end a transcript with ([`TranscriptBuilder::finished_tail`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FinishedTail {
    /// How many of the transcript's last entries the finished line replaces.
    pub replaced: usize,
    /// The entries that take their place.
    pub entries: Vec<TranscriptEntry>,
}

/// Options of a [`TranscriptBuilder`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptOptions {
    /// Mask user names in home paths (Paperclip's "censor username in logs").
    pub redact_home_paths: bool,
    /// Keep every pushed chunk so [`TranscriptBuilder::rebuild`] can re-parse the run (for
    /// example when the adapter's real parser becomes ready). Off, the builder keeps only the
    /// pending partial line.
    pub retain_chunks: bool,
    /// Remember what each line produced so a line's entries can be replaced later
    /// ([`TranscriptBuilder::replace_line`]), e.g. when a parser running elsewhere (a Worker)
    /// answers after the line was shown with its provisional generic entry. A line whose
    /// entries show as it produced them costs no copy; one that merged a delta or was
    /// redacted keeps its own.
    pub track_lines: bool,
    /// What a line whose parser failed shows: the raw line by default; Paperclip's parse-error
    /// entry with [`FailedLineEntry::ParseError`].
    pub failed_line_entry: FailedLineEntry,
    /// Keep a window of at most this many of the latest chunks: after a push, the oldest are
    /// dropped with the entries only they produced ([`TranscriptBuilder::push`] returns how
    /// many entries left the front). Needs `retain_chunks` and `track_lines`.
    pub max_chunks: Option<usize>,
    /// Keep the retained chunks' text under this many UTF-8 bytes, dropping the oldest as
    /// `max_chunks` does (the newest chunk always stays). Needs `retain_chunks` and
    /// `track_lines`.
    pub max_retained_bytes: Option<usize>,
    /// Drop a pushed chunk equal to one still retained (same ts, stream and text, and no
    /// different `seq`): what a live view gets when the stored log and the socket both deliver
    /// it. Needs `retain_chunks`. Dropped chunks are counted ([`TranscriptBuilder::counts`]).
    pub drop_duplicate_chunks: bool,
    /// Most bytes the transcript may hold ([`BuilderCounts::held_bytes`]: the retained chunks'
    /// text, and the JSON of what each line or chunk produced, less the text an entry shares
    /// with its chunk). A line whose
    /// entries would take it past shows the generic entry instead, its whole text (counted in
    /// [`BuilderCounts::over_budget_lines`]); a caller that must refuse a chunk asks
    /// [`TranscriptBuilder::has_room_for`] first. `None`: no budget.
    pub max_held_bytes: Option<usize>,
}

/// What a [`TranscriptBuilder`] holds and has let go of, for diagnostics.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuilderCounts {
    /// Chunks retained now (the window).
    pub retained_chunks: usize,
    /// UTF-8 bytes of the retained chunks' text.
    pub retained_bytes: usize,
    /// Chunks dropped from the front of the window (`maxChunks`, `maxRetainedBytes`).
    pub dropped_chunks: u64,
    /// Entries dropped from the front with them.
    pub dropped_entries: u64,
    /// Pushed chunks dropped as duplicates.
    pub duplicate_chunks: u64,
    /// Slices that rebuilds went on with after their first: a rebuild past its time slice
    /// ([`TranscriptBuilder::rebuild_within`]) goes on in later calls.
    pub rebuild_slices: u64,
    /// Bytes the transcript holds, as its budget counts them
    /// ([`TranscriptOptions::max_held_bytes`]): the retained chunks' text, and the JSON of what
    /// each line or chunk produced, less the text an entry shares with its chunk (a line shown
    /// as it came is held once).
    pub held_bytes: usize,
    /// Lines shown with the generic entry because their entries would have taken the
    /// transcript past its budget.
    pub over_budget_lines: u64,
}

/// What one [`TranscriptBuilder::push`] changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PushChange {
    /// The entries that left the front first (the window moved on), as they were; the indices
    /// of `changed` count from the front as it is after the drop.
    pub dropped: Vec<TranscriptEntry>,
    /// The entries the chunk changed (see [`TranscriptBuilder::push`]).
    pub changed: Range<usize>,
}

impl PushChange {
    /// A change that dropped nothing.
    pub fn from_range(changed: Range<usize>) -> Self {
        Self {
            dropped: Vec::new(),
            changed,
        }
    }
}

/// A chunk as the builder retains it: its text is shared with the entries that show one of its
/// lines as it came ([`EntryText`]), so a plain run holds each line once.
struct Retained {
    ts: String,
    stream: Stream,
    text: Arc<str>,
    seq: Option<u64>,
}

impl Retained {
    fn of(chunk: &Chunk) -> Self {
        Self {
            ts: chunk.ts.clone(),
            stream: chunk.stream,
            text: Arc::from(chunk.chunk.as_str()),
            seq: chunk.seq,
        }
    }
}

/// What one appended unit (a stdout line, or a stderr/system chunk) produced, with what is
/// needed to fold the transcript again from it.
struct Item {
    /// `entries.len()` before this unit was appended.
    len_before: usize,
    /// The last entry as it was before this unit merged a delta into it (boxed: most units
    /// merge nothing, and a run has a unit a line).
    saved_last: Option<Box<TranscriptEntry>>,
    /// The entries as produced, not redacted (redaction is applied as they are folded, so it
    /// can change without a re-parse), before merging.
    produced: Produced,
    /// What the unit counts against the budget: the JSON of what it produced
    /// ([`entries_json_bytes`](crate::entries_json_bytes)).
    bytes: usize,
}

/// Where a unit's produced entries are: most units' are exactly the entries the transcript
/// shows for them, and keeping them a second time would double a run's memory.
enum Produced {
    /// The unit's entries are the transcript's `n` entries from its `len_before` on, as they
    /// stand: none merged into another, redaction was off, and no later delta has merged into
    /// the last of them (a merge makes the unit keep a copy first: [`TranscriptBuilder::append`]).
    Shown(usize),
    /// A copy, for a unit whose shown entries differ from what it produced.
    Kept(Vec<TranscriptEntry>),
}

impl Item {
    /// The index of the first entry this unit made or changed: the entry it merged a delta
    /// into, when it did.
    fn first_entry(&self) -> usize {
        self.len_before
            .saturating_sub(usize::from(self.saved_last.is_some()))
    }
}

/// Builds a run's transcript chunk by chunk with the semantics of Paperclip's `buildTranscript`.
///
/// ```
/// use parsebox_transcript::{Chunk, GenericParser, TranscriptBuilder, TranscriptOptions};
///
/// let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
/// let changed = b.push(&Chunk::stdout("t1", "hello\nwor"));
/// assert_eq!(changed, 0..1); // "hello" is complete, "wor" waits for the rest of its line
/// b.push(&Chunk::stdout("t2", "ld\n"));
/// assert_eq!(b.entries()[1].text(), Some("world"));
/// assert_eq!(b.entries()[1].ts(), "t2"); // the chunk that completed the line
/// ```
pub struct TranscriptBuilder<P> {
    parser: P,
    options: TranscriptOptions,
    entries: Vec<TranscriptEntry>,
    /// The stdout text after the last newline: an incomplete line.
    pending: String,
    /// Undecoded trailing bytes of a multi-byte character split across byte chunks.
    pending_bytes: Vec<u8>,
    /// A high surrogate that ended a UTF-16 stdout chunk: the first half of a pair whose
    /// second half may start the next chunk.
    pending_high: Option<u16>,
    last_ts: Option<String>,
    chunks: VecDeque<Retained>,
    /// Hashes of the retained chunks' (ts, stream, text) → the chunks that have it, numbered
    /// from the run's first chunk (with `drop_duplicate_chunks`).
    chunk_hashes: HashMap<u64, Vec<u64>>,
    counts: BuilderCounts,
    /// What the units count against the budget, together ([`Item::bytes`]).
    unit_bytes: usize,
    lines: u64,
    failures: u64,
    items: Vec<Item>,
    /// Units (`items`) that left the window's front: the run's number of `items[0]`.
    dropped_units: u64,
    /// Where [`units_up_to`](Self::units_up_to) answered last: where it looks first next time.
    origin_hint: Cell<usize>,
    /// Lines answered [`LineAnswer::Later`]: token → item.
    later: HashMap<u64, usize>,
    /// The items of `later`, in order: where the earliest line still waiting is.
    waiting: BTreeSet<usize>,
    /// With `track_lines`: for each chunk ingested since the last rebuild, the index of the
    /// first item (unit) it could complete.
    chunk_starts: Vec<usize>,
    /// Where [`TranscriptBuilder::finish`] parsed a last, partial line: after how many chunks
    /// (numbered from the run's first), and the held-back text it completed that line with,
    /// so a rebuild parses that line again at the same point.
    finishes: Vec<FinishPoint>,
    generation: u64,
    /// A rebuild under way ([`TranscriptBuilder::rebuild_within`]): where it goes on.
    rebuilding: Option<Rebuilding>,
}

/// Where a rebuild in slices goes on: the next retained chunk to re-ingest, the next finish
/// point (in `finishes`) to parse again, and the transcript it replaces, let go of in batches
/// (freeing a long run's entries at once blocks for as long as re-parsing a slice of it).
struct Rebuilding {
    next_chunk: usize,
    next_finish: usize,
    old_entries: Vec<TranscriptEntry>,
    old_items: Vec<Item>,
}

/// How many old entries and items a rebuild frees between two looks at its budget.
const FREE_BATCH: usize = 4096;

impl Rebuilding {
    /// Frees one batch of the old transcript; false when nothing was left.
    fn free_batch(&mut self) -> bool {
        let (entries, items) = (self.old_entries.len(), self.old_items.len());
        self.old_entries
            .truncate(entries.saturating_sub(FREE_BATCH));
        self.old_items.truncate(items.saturating_sub(FREE_BATCH));
        entries + items > 0
    }
}

/// A `finish()` that parsed the partial line: see [`TranscriptBuilder::rebuild`].
struct FinishPoint {
    after_chunks: u64,
    tail: String,
}

impl<P: LineParser> TranscriptBuilder<P> {
    /// A builder that parses stdout lines with `parser`.
    pub fn new(parser: P, options: TranscriptOptions) -> Self {
        Self {
            parser,
            options,
            entries: Vec::new(),
            pending: String::new(),
            pending_bytes: Vec::new(),
            pending_high: None,
            last_ts: None,
            chunks: VecDeque::new(),
            chunk_hashes: HashMap::new(),
            counts: BuilderCounts::default(),
            unit_bytes: 0,
            lines: 0,
            failures: 0,
            items: Vec::new(),
            dropped_units: 0,
            origin_hint: Cell::new(0),
            later: HashMap::new(),
            waiting: BTreeSet::new(),
            chunk_starts: Vec::new(),
            finishes: Vec::new(),
            generation: 0,
            rebuilding: None,
        }
    }

    /// The transcript so far.
    pub fn entries(&self) -> &[TranscriptEntry] {
        &self.entries
    }

    /// Takes the transcript out, leaving the builder empty of entries.
    pub fn into_entries(self) -> Vec<TranscriptEntry> {
        self.entries
    }

    /// The line parser, e.g. to read its diagnostics.
    pub fn parser(&self) -> &P {
        &self.parser
    }

    /// Mutable access to the line parser.
    pub fn parser_mut(&mut self) -> &mut P {
        &mut self.parser
    }

    /// Stdout lines parsed so far.
    pub fn lines_parsed(&self) -> u64 {
        self.lines
    }

    /// Lines whose parser failed and that show the generic entry instead.
    pub fn lines_fallen_back(&self) -> u64 {
        self.failures
    }

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

    fn push_text(&mut self, chunk: &Chunk) -> PushChange {
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
        let dropped = self.keep_window();
        PushChange {
            changed: first_changed.saturating_sub(dropped.len())..self.entries.len(),
            dropped,
        }
    }

    /// Whether `chunk` repeats a retained chunk (with `drop_duplicate_chunks`).
    fn is_duplicate(&self, chunk: &Chunk) -> bool {
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

    fn retain(&mut self, chunk: Retained) {
        self.counts.retained_bytes += chunk.text.len();
        if self.options.drop_duplicate_chunks {
            let number = self.counts.dropped_chunks + self.chunks.len() as u64;
            self.chunk_hashes
                .entry(chunk_hash(&chunk.ts, chunk.stream, &chunk.text))
                .or_default()
                .push(number);
        }
        self.chunks.push_back(chunk);
    }

    /// Drops the oldest chunks past `max_chunks` / `max_retained_bytes`, with the entries only
    /// they produced. The window only starts where an entry starts: while the oldest kept
    /// entry is a streamed message still built from older chunks' deltas, those chunks stay,
    /// so no entry is ever cut. Returns the entries that left the front.
    fn keep_window(&mut self) -> Vec<TranscriptEntry> {
        if !self.options.retain_chunks || !self.options.track_lines {
            return Vec::new();
        }
        let mut over = self
            .options
            .max_chunks
            .map_or(0, |max| self.chunks.len().saturating_sub(max.max(1)));
        if let Some(max_bytes) = self.options.max_retained_bytes {
            let mut bytes = self.counts.retained_bytes;
            let mut k = 0;
            while bytes > max_bytes && k + 1 < self.chunks.len() {
                bytes -= self.chunks.get(k).map_or(0, |c| c.text.len());
                k += 1;
            }
            over = over.max(k);
        }
        self.drop_before_fresh(over)
    }

    /// Lets go of the retained chunks before retained chunk `k` (counted from 0 at the oldest
    /// retained chunk), with the entries only they produced, as the window of
    /// [`TranscriptOptions::max_chunks`] does, for a caller whose window is not a fixed size
    /// (a viewer handed a list that dropped chunks at its start). The line the dropped chunks
    /// began and the state they built stay; a later [`rebuild`](Self::rebuild) re-parses from
    /// the first chunk kept. Needs `retain_chunks` and `track_lines`; without them nothing is
    /// dropped. Returns the entries that left the front; no other entry changes.
    pub fn drop_chunks_before(&mut self, k: usize) -> PushChange {
        let dropped = if self.options.retain_chunks && self.options.track_lines {
            self.drop_before_fresh(k.min(self.chunks.len()))
        } else {
            Vec::new()
        };
        let end = self.entries.len();
        PushChange {
            dropped,
            changed: end..end,
        }
    }

    /// Drops the retained chunks before chunk `k`, backing off to a chunk that starts a fresh
    /// entry (its first unit does not merge into an older entry, or, with no unit yet, no entry
    /// is still open to a merge), so no entry is ever cut. Returns the entries dropped.
    /// While a rebuild is under way, only chunks it has re-ingested can go.
    fn drop_before_fresh(&mut self, k: usize) -> Vec<TranscriptEntry> {
        let mut k = self.rebuilding.as_ref().map_or(k, |r| k.min(r.next_chunk));
        while k > 0 && !self.starts_fresh(k) {
            k -= 1;
        }
        if k == 0 {
            return Vec::new();
        }
        let dropped = self.drop_front(k);
        if let Some(r) = self.rebuilding.as_mut() {
            r.next_chunk -= k;
        }
        dropped
    }

    /// Whether a window that begins at retained chunk `k` cuts no entry.
    fn starts_fresh(&self, k: usize) -> bool {
        match self.chunk_starts.get(k).and_then(|&i| self.items.get(i)) {
            Some(unit) => unit.saved_last.is_none(),
            None => self.final_len() == self.entries.len(),
        }
    }

    /// Drops the `k` oldest retained chunks and every unit and entry before the first unit
    /// chunk `k` completed (which starts a fresh entry). Returns the entries dropped.
    fn drop_front(&mut self, k: usize) -> Vec<TranscriptEntry> {
        let first_item = self
            .chunk_starts
            .get(k)
            .copied()
            .unwrap_or(self.items.len());
        let first_entry = self
            .items
            .get(first_item)
            .map_or(self.entries.len(), |i| i.len_before);
        for chunk in self.chunks.drain(..k.min(self.chunks.len())) {
            self.counts.retained_bytes -= chunk.text.len();
            if self.options.drop_duplicate_chunks {
                // The oldest chunk is the oldest of its hash's numbers.
                let hash = chunk_hash(&chunk.ts, chunk.stream, &chunk.text);
                if let Some(numbers) = self.chunk_hashes.get_mut(&hash) {
                    numbers.remove(0);
                    if numbers.is_empty() {
                        self.chunk_hashes.remove(&hash);
                    }
                }
            }
        }
        self.chunk_starts.drain(..k.min(self.chunk_starts.len()));
        for start in &mut self.chunk_starts {
            *start -= first_item;
        }
        let first_item = first_item.min(self.items.len());
        for item in self.items.drain(..first_item) {
            self.unit_bytes = self.unit_bytes.saturating_sub(item.bytes);
        }
        self.dropped_units += first_item as u64;
        for item in &mut self.items {
            item.len_before -= first_entry;
        }
        self.later.retain(|_, item| {
            let kept = *item >= first_item;
            if kept {
                *item -= first_item;
            }
            kept
        });
        self.waiting = self.later.values().copied().collect();
        let dropped: Vec<TranscriptEntry> = self
            .entries
            .drain(..first_entry.min(self.entries.len()))
            .collect();
        self.counts.dropped_chunks += k as u64;
        self.counts.dropped_entries += dropped.len() as u64;
        dropped
    }

    /// What the builder holds and has let go of.
    pub fn counts(&self) -> BuilderCounts {
        BuilderCounts {
            retained_chunks: self.chunks.len(),
            held_bytes: self.held_bytes(),
            ..self.counts
        }
    }

    /// Bytes the transcript holds, as its budget counts them ([`BuilderCounts::held_bytes`]).
    pub fn held_bytes(&self) -> usize {
        self.counts.retained_bytes.saturating_add(self.unit_bytes)
    }

    /// Whether a chunk of `bytes` bytes of text fits within the budget
    /// ([`TranscriptOptions::max_held_bytes`]), before any line of it is parsed: a caller that
    /// must never pass its memory refuses the chunk when it does not.
    pub fn has_room_for(&self, bytes: usize) -> bool {
        self.options
            .max_held_bytes
            .is_none_or(|max| self.held_bytes().saturating_add(bytes) <= max)
    }

    /// Sets the budget ([`TranscriptOptions::max_held_bytes`]): a caller whose room is shared
    /// (several transcripts under one budget) narrows it before each call.
    pub fn set_max_held_bytes(&mut self, max: Option<usize>) {
        self.options.max_held_bytes = max;
    }

    /// Whether a unit of `bytes` more would take the transcript past its budget.
    fn over_budget(&self, bytes: usize) -> bool {
        !self.has_room_for(bytes)
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
    fn finish_line(&mut self, tail: &str, first_changed: &mut usize) -> bool {
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
        // The new fold counts anew (the old one is let go of in batches as it goes).
        self.unit_bytes = 0;
        self.later.clear();
        self.waiting.clear();
        self.chunk_starts.clear();
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
    fn resume_into(&mut self, go_on: &mut dyn FnMut() -> bool, first_changed: &mut usize) {
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

    /// Parses one chunk's `text` onto the transcript. `shared`: the retained chunk whose text
    /// `text` is, for entries that show one of its lines as it came to share.
    fn ingest(
        &mut self,
        ts: &str,
        stream: Stream,
        text: &str,
        shared: Option<&Arc<str>>,
        first_changed: &mut usize,
    ) {
        if self.options.track_lines {
            self.chunk_starts.push(self.items.len());
        }
        // `finish` uses the ts of the last chunk of any stream, as upstream does.
        self.last_ts = Some(ts.to_owned());
        match stream {
            Stream::Stderr => {
                let mut entry = vec![TranscriptEntry::stderr(ts, text)];
                let bytes = held_bytes_of(&mut entry, text, shared);
                self.append_unit(entry, bytes, first_changed);
            }
            Stream::System => {
                let mut entry = vec![TranscriptEntry::system(ts, text)];
                let bytes = held_bytes_of(&mut entry, text, shared);
                self.append_unit(entry, bytes, first_changed);
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
    fn complete_line(
        &mut self,
        raw: &str,
        ts: &str,
        shared: Option<&Arc<str>>,
        first_changed: &mut usize,
    ) {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = js_trim(raw);
        if !line.is_empty() {
            self.parse_and_append(line, ts, shared, first_changed);
        }
    }

    fn parse_and_append(
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
                    self.later.insert(token, self.items.len());
                    self.waiting.insert(self.items.len());
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
        let mut bytes = held_bytes_of(&mut produced, line, shared);
        if self.over_budget(bytes) {
            // Within the budget the line still shows, whole; what its parser made of it
            // does not.
            self.counts.over_budget_lines += 1;
            produced = vec![crate::generic_entry(line, ts)];
            bytes = held_bytes_of(&mut produced, line, shared);
        }
        self.append_unit(produced, bytes, first_changed);
    }

    /// `entry` as the transcript shows it: redacted when redaction is on. Each produced entry
    /// is redacted before it merges, as Paperclip redacts each parsed entry.
    fn folded(&self, mut entry: TranscriptEntry) -> TranscriptEntry {
        if self.options.redact_home_paths {
            redact_entry_paths(&mut entry);
        }
        entry
    }

    /// Appends what one line or stderr/system chunk produced, remembering it (unredacted)
    /// when `track_lines` is on. `bytes`: what the unit counts against the budget
    /// ([`Item::bytes`]).
    fn append_unit(
        &mut self,
        produced: Vec<TranscriptEntry>,
        bytes: usize,
        first_changed: &mut usize,
    ) {
        self.unit_bytes = self.unit_bytes.saturating_add(bytes);
        if !self.options.track_lines {
            for entry in produced {
                let entry = self.folded(entry);
                self.append(entry, first_changed, None);
            }
            return;
        }
        let len_before = self.entries.len();
        let unit = self.items.len();
        let (produced, saved_last) = self.fold_unit(unit, produced, first_changed);
        self.items.push(Item {
            len_before,
            saved_last,
            produced,
            bytes,
        });
    }

    /// Folds unit `unit`'s produced entries onto the transcript (with `track_lines`): as they
    /// are when they show unchanged ([`Produced::Shown`], no copy), else folded from a copy the
    /// unit keeps. Returns what the unit keeps, and the entry of an earlier unit as it was
    /// before this one merged a delta into it.
    fn fold_unit(
        &mut self,
        unit: usize,
        produced: Vec<TranscriptEntry>,
        first_changed: &mut usize,
    ) -> (Produced, Option<Box<TranscriptEntry>>) {
        let merges_in = self
            .entries
            .last()
            .zip(produced.first())
            .is_some_and(|(last, first)| merges(last, first));
        let merges_within = produced
            .iter()
            .zip(produced.iter().skip(1))
            .any(|(a, b)| merges(a, b));
        if !self.options.redact_home_paths && !merges_in && !merges_within {
            let n = produced.len();
            self.entries.extend(produced);
            return (Produced::Shown(n), None);
        }
        let len_before = self.entries.len();
        let mut saved = None;
        for entry in &produced {
            let entry = self.folded(entry.clone());
            self.append(entry, first_changed, Some((unit, len_before, &mut saved)));
        }
        (Produced::Kept(produced), saved)
    }

    /// Before a delta merges into entry `index`, which an earlier unit than `unit` made: that
    /// unit keeps a copy of what it produced, if it relied on the transcript's ([`Produced::Shown`]).
    fn keep_produced_of_entry(&mut self, unit: usize, index: usize) {
        let before = self.items.get(..unit).unwrap_or(&self.items);
        let Some(owner) = before
            .partition_point(|item| item.len_before <= index)
            .checked_sub(1)
        else {
            return;
        };
        let Some(item) = self.items.get(owner) else {
            return;
        };
        if let Produced::Shown(n) = item.produced {
            let start = item.len_before;
            let copy = self
                .entries
                .get(start..start + n)
                .unwrap_or_default()
                .to_vec();
            if let Some(item) = self.items.get_mut(owner) {
                item.produced = Produced::Kept(copy);
            }
        }
    }

    /// The index of the first entry that chunk `chunk` (counted from 0 at the oldest retained
    /// chunk, or since the last rebuild) or a later one produced: where the transcript of a window that begins at that chunk
    /// starts, in this run. When the chunk's first line merged a delta into an earlier entry,
    /// that entry is included. Needs `track_lines`; a chunk not pushed yet gives the length.
    pub fn first_entry_of_chunk(&self, chunk: usize) -> usize {
        let item = self
            .chunk_starts
            .get(chunk)
            .and_then(|&i| self.items.get(i));
        item.map_or(self.entries.len(), Item::first_entry)
    }

    /// Where entry `index` (of [`entries`](Self::entries)) came from: the unit that started it
    /// and which of that unit's entries it is, a name that holds while earlier lines' entries
    /// change ([`replace_lines`](Self::replace_lines)) or the transcript is rebuilt. Without
    /// `track_lines` the builder keeps no units and each entry is its own
    /// ([`EntryOrigin::of_index`] of its run index). O(log units).
    pub fn entry_origin(&self, index: usize) -> EntryOrigin {
        let started = self.options.track_lines.then(|| self.units_up_to(index));
        match started
            .and_then(|n| n.checked_sub(1))
            .and_then(|u| Some((u, self.items.get(u)?)))
        {
            Some((u, unit)) => EntryOrigin {
                unit: self.dropped_units + u as u64,
                nth: index - unit.len_before,
            },
            None => EntryOrigin::of_index(index.saturating_add(self.window_base())),
        }
    }

    /// How many units began at or before entry `index` (so the last of them started it). The
    /// callers ask in ascending order (a timeline placing entries): it looks a few units on from
    /// where the last answer was before it searches, which makes a run of asks O(1) each.
    fn units_up_to(&self, index: usize) -> usize {
        let began = |u: usize| {
            self.items
                .get(u)
                .is_some_and(|item| item.len_before <= index)
        };
        let mut p = self.origin_hint.get().min(self.items.len());
        if p == 0 || began(p - 1) {
            for _ in 0..8 {
                if !began(p) {
                    self.origin_hint.set(p);
                    return p;
                }
                p += 1;
            }
        }
        let p = self.items.partition_point(|item| item.len_before <= index);
        self.origin_hint.set(p);
        p
    }

    /// Counts [`rebuild`](Self::rebuild)s.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The run index of the window's first entry: how many entries left the window's front.
    pub fn window_base(&self) -> usize {
        usize::try_from(self.counts.dropped_entries).unwrap_or(usize::MAX)
    }

    /// How many units (stdout lines, stderr and system chunks) the run has taken in since it
    /// began, those that left the window included: the number the next unit gets. A rebuild
    /// gives the lines it parses again the numbers they had.
    pub fn units(&self) -> u64 {
        self.dropped_units + self.items.len() as u64
    }

    /// Where the earliest line that still waits for its late answer ([`LineAnswer::Later`]),
    /// among the units numbered `from` on (as [`units`](Self::units) counts them), begins: the
    /// index of its first entry, or the transcript's length when no such line waits. Entries
    /// before it are final but for later answers to earlier lines. O(log waiting lines).
    pub fn first_waiting_entry(&self, from: u64) -> usize {
        let from = usize::try_from(from.saturating_sub(self.dropped_units)).unwrap_or(usize::MAX);
        self.waiting
            .range(from..)
            .next()
            .and_then(|&u| self.items.get(u))
            .map_or(self.entries.len(), Item::first_entry)
    }

    /// Replaces the provisional entries of lines answered [`LineAnswer::Later`] with their
    /// answers, by token, folding once (see [`replace_lines`](Self::replace_lines)). A token
    /// from before the last rebuild, or one already answered, changes nothing.
    pub fn replace_answers(&mut self, answers: Vec<(u64, Vec<TranscriptEntry>)>) -> Range<usize> {
        let by_item = answers
            .into_iter()
            .filter_map(|(token, entries)| self.later.remove(&token).map(|item| (item, entries)))
            .collect::<Vec<_>>();
        for (item, _) in &by_item {
            self.waiting.remove(item);
        }
        self.replace_lines(by_item)
    }

    /// Replaces what line `item` produced with `entries` (its late answer) and folds the
    /// transcript again from there: delta merges with the neighbours are redone, the lines
    /// after it are not re-parsed. Returns the range of entries that changed; an unknown item
    /// (or `track_lines` off) changes nothing.
    pub fn replace_line(&mut self, item: usize, entries: Vec<TranscriptEntry>) -> Range<usize> {
        self.replace_lines(vec![(item, entries)])
    }

    /// [`replace_line`](Self::replace_line) for many answers at once, folding the transcript
    /// again only once, from the earliest of them to where the fold is back in step with the
    /// old one (past the last answered line, the first unit that follows an equal entry no
    /// delta can merge into): answers that arrive together (a frame's worth from a worker)
    /// cost one pass over the lines between them, not one each, and not the lines still
    /// waiting after them. The returned range is the entries that changed; the entries after
    /// its end are the old ones, unchanged (the last `entries().len() - range.end` of before).
    pub fn replace_lines(&mut self, answers: Vec<(usize, Vec<TranscriptEntry>)>) -> Range<usize> {
        let mut span: Option<(usize, usize)> = None;
        for (item, entries) in answers {
            let Some(unit) = self.items.get(item) else {
                continue;
            };
            let old = unit.bytes;
            let new = crate::entries_json_bytes(&entries);
            if new > old && self.over_budget(new - old) {
                // A late answer too large for the budget: the line keeps what it shows (its
                // provisional generic entry).
                self.counts.over_budget_lines += 1;
                continue;
            }
            if let Some(unit) = self.items.get_mut(item) {
                unit.produced = Produced::Kept(entries);
                unit.bytes = new;
                self.unit_bytes = self.unit_bytes.saturating_sub(old).saturating_add(new);
                span = Some(span.map_or((item, item), |(f, l)| (f.min(item), l.max(item))));
            }
        }
        match span {
            Some((first, last)) => self.refold(first, Some(last)),
            None => {
                let end = self.entries.len();
                end..end
            }
        }
    }

    /// Turns redaction of home paths on or off for the whole transcript, without re-parsing:
    /// the entries are folded again from what each line produced (needs `track_lines`;
    /// without it, the retained chunks are re-parsed). Returns the entries that changed (all
    /// of them when the setting changed, none when it did not).
    pub fn set_redact_home_paths(&mut self, on: bool) -> Range<usize> {
        let end = self.entries.len();
        if self.options.redact_home_paths == on {
            return end..end;
        }
        self.options.redact_home_paths = on;
        if !self.options.track_lines {
            self.rebuild();
            return 0..self.entries.len();
        }
        let changed = self.refold(0, None);
        0..changed.end
    }

    /// Folds the transcript again from unit `item` on, from what each unit produced: delta
    /// merges with the neighbours are redone, nothing is re-parsed. With `through` (the last
    /// unit whose output was replaced), the fold stops at the first later unit where it is in
    /// step with the old fold ([`in_step`]) and keeps the old entries from there; without it,
    /// it goes to the end. Returns the entries that changed.
    fn refold(&mut self, item: usize, through: Option<usize>) -> Range<usize> {
        let Some(unit) = self.items.get_mut(item) else {
            let end = self.entries.len();
            return end..end;
        };
        let start = unit.len_before;
        let saved = unit.saved_last.take();
        // The old entries from the unit on: where a bounded fold finds its old tail.
        let mut old = self.entries.split_off(start);
        let mut first_changed = start;
        if let Some(saved) = saved {
            if let Some(last) = self.entries.last_mut() {
                *last = *saved;
                first_changed = start.saturating_sub(1);
            }
        }
        for k in item..self.items.len() {
            let len_before = self.entries.len();
            let Some(unit) = self.items.get_mut(k) else {
                break;
            };
            if through.is_some_and(|t| k > t)
                && in_step(&self.entries, &old, start, unit.len_before)
            {
                // From unit k on, both folds append the same entries onto the same last entry:
                // keep the old ones, shifted to where the new fold stands.
                let was = unit.len_before;
                let end = self.entries.len();
                self.entries
                    .extend(old.drain((was - start).min(old.len())..));
                for later in self.items.iter_mut().skip(k) {
                    later.len_before = later.len_before - was + end;
                }
                return first_changed..end;
            }
            let was = unit.len_before;
            unit.len_before = len_before;
            let produced = match std::mem::replace(&mut unit.produced, Produced::Shown(0)) {
                Produced::Kept(entries) => entries,
                // Its entries are the old fold's, unchanged.
                Produced::Shown(n) => {
                    let from = was - start;
                    old.get(from..from + n).unwrap_or_default().to_vec()
                }
            };
            let (produced, saved) = self.fold_unit(k, produced, &mut first_changed);
            if let Some(unit) = self.items.get_mut(k) {
                unit.produced = produced;
                unit.saved_last = saved;
            }
        }
        first_changed..self.entries.len()
    }

    /// Appends with Paperclip's delta merge rule: an assistant (or thinking) entry whose
    /// `delta` is truthy, following one of the same kind whose `delta` is truthy too, extends it
    /// ([`DeltaText::is_delta`](crate::entry::DeltaText::is_delta)): texts concatenate, the
    /// later ts wins, and everything else (extra fields such as `channel`, key order) stays the
    /// earlier entry's. Other fields, `channel` included, do not keep pieces apart.
    ///
    /// With `unit` (the unit's number and `len_before`, and where to save the pre-merge
    /// entry), a merge into an entry older than the unit saves that entry's previous state
    /// first, so the unit can be folded again, and the unit that made the entry keeps a copy
    /// of what it produced.
    fn append(
        &mut self,
        entry: TranscriptEntry,
        first_changed: &mut usize,
        unit: Option<(usize, usize, &mut Option<Box<TranscriptEntry>>)>,
    ) {
        let last_index = self.entries.len().checked_sub(1);
        if let Some(i) = last_index {
            if let Some((unit, len_before, saved)) = unit {
                let older = self
                    .entries
                    .last()
                    .filter(|last| i < len_before && saved.is_none() && merges(last, &entry));
                if let Some(last) = older {
                    *saved = Some(Box::new(last.clone()));
                    self.keep_produced_of_entry(unit, i);
                }
            }
        }
        if let (Some(i), Some(last)) = (last_index, self.entries.last_mut()) {
            let mergeable = merges(last, &entry);
            match (last, &entry) {
                (TranscriptEntry::Assistant(a), TranscriptEntry::Assistant(b))
                | (TranscriptEntry::Thinking(a), TranscriptEntry::Thinking(b))
                    if mergeable =>
                {
                    a.text.push_str(&b.text);
                    a.ts.clone_from(&b.ts);
                    *first_changed = (*first_changed).min(i);
                    return;
                }
                _ => {}
            }
        }
        self.entries.push(entry);
    }
}

/// The hash that finds a chunk's possible duplicates: its ts, stream and text.
fn chunk_hash(ts: &str, stream: Stream, text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    ts.hash(&mut hasher);
    stream.hash(&mut hasher);
    text.hash(&mut hasher);
    hasher.finish()
}

/// What a unit's `entries` count against the budget ([`Item::bytes`]), after the text entries
/// that show `line` as it came are made slices of `shared`, the retained chunk `line` is in:
/// their JSON, less the text they share (the chunk's text is counted already).
fn held_bytes_of(entries: &mut [TranscriptEntry], line: &str, shared: Option<&Arc<str>>) -> usize {
    let mut saved = 0;
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
                        saved += line.len();
                    }
                }
            }
        }
    }
    crate::entries_json_bytes(entries).saturating_sub(saved)
}

/// How many bytes at the end of `buf` are the start of a UTF-8 character whose remaining bytes
/// have not arrived yet (0 when the buffer ends on a character boundary or in invalid bytes).
fn incomplete_utf8_tail(buf: &[u8]) -> usize {
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

/// Whether `next` merges into `last` (SPEC §5, as Paperclip's `buildTranscript`): two
/// consecutive entries of the same kind that are both [`streamed`] deltas.
fn merges(last: &TranscriptEntry, next: &TranscriptEntry) -> bool {
    std::mem::discriminant(last) == std::mem::discriminant(next) && streamed(last) && streamed(next)
}

/// Whether a bounded refold that stands at `entries.len()` is in step with the old fold at a
/// unit that began at `was` in it: `old` holds the old entries from `start` on. In step when
/// both have a last entry, equal, that no delta merges into (so the old one was final when
/// the unit began, and the unit and everything after it fold the same way onto either).
fn in_step(entries: &[TranscriptEntry], old: &[TranscriptEntry], start: usize, was: usize) -> bool {
    let (Some(new_last), Some(old_last)) = (
        entries.last(),
        was.checked_sub(start + 1).and_then(|k| old.get(k)),
    ) else {
        return false;
    };
    !streamed(new_last) && new_last == old_last
}

/// An assistant (or thinking) entry that is a delta
/// ([`DeltaText::is_delta`](crate::entry::DeltaText::is_delta)): one a later delta of its kind
/// merges into.
fn streamed(entry: &TranscriptEntry) -> bool {
    match entry {
        TranscriptEntry::Assistant(d) | TranscriptEntry::Thinking(d) => d.is_delta(),
        _ => false,
    }
}
