//! The incremental transcript builder (SPEC §5).
//!
//! Paperclip's viewer rebuilds the whole transcript from every retained chunk on each update.
//! [`TranscriptBuilder`] gives the same entries, but appending a chunk costs work proportional to
//! that chunk: it keeps the pending partial stdout line and the entries built so far, and
//! [`TranscriptBuilder::push`] reports which entries changed.
//!
//! This file holds the builder's types and what reads its state; each other job has a file:
//! `intake` (chunks in, lines parsed and appended), `fold` (how a unit's entries join the
//! transcript), `window` (letting go of old chunks), `rebuild` (parsing again from the retained
//! chunks, in slices), `late` (a line's entries replaced after the fact) and `finish` (the
//! pending partial line at the end).

mod finish;
mod fold;
mod frozen;
mod intake;
mod late;
mod rebuild;
mod window;

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::hash::Hash;
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::entry::TranscriptEntry;
use crate::jsstr::js_trim;
use crate::line_rule::{FailedLineEntry, LineFailure};
use crate::origin::EntryOrigin;
use crate::Ts;

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

    /// Whether the transcript may keep what the line just answered produced, or a late answer
    /// brought: the caller's memory budget, which counts the bytes really held (the live core
    /// measures them at its allocator). `false`: the line shows its generic entry instead,
    /// its whole text, counted in [`BuilderCounts::over_budget_lines`]. By default there is
    /// no budget.
    fn has_room(&mut self) -> bool {
        true
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
    fn has_room(&mut self) -> bool {
        (**self).has_room()
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
    /// Keep final entries compactly: after [`TranscriptBuilder::freeze_final`], the units no
    /// later line, late answer or merge can change leave [`entries`](TranscriptBuilder::entries)
    /// for a frozen prefix ([`frozen_len`](TranscriptBuilder::frozen_len) entries, read with
    /// [`all_entries`](TranscriptBuilder::all_entries)); a stdout line shown as its generic
    /// entry then costs nothing beyond the retained chunk it is in. Needs `retain_chunks`
    /// and `track_lines`.
    pub compact_final: bool,
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
    /// Bytes the transcript really holds, as its memory budget counts them: what its allocator
    /// holds for its entries, timeline, retained chunks, indexes and the answers waiting for
    /// it. The live core measures it ([`LineParser::has_room`] is where its budget acts); a
    /// builder that nobody measures says 0.
    pub held_bytes: usize,
    /// What the memory budget counts: [`held_bytes`](Self::held_bytes), and what the frozen
    /// prefix's entries ([`TranscriptOptions::compact_final`]) would hold again as live ones
    /// (a rebuild parses them into the live form), measured at the allocator as they froze.
    /// A transcript takes in no more than it could hold live, so a rebuild or a read of the
    /// whole of it fits where it did before entries were kept compactly. A builder that
    /// nobody measures says 0.
    pub budget_bytes: usize,
    /// Lines shown with the generic entry because the transcript's memory budget had no room
    /// for what their parser made of them ([`LineParser::has_room`]).
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
}

/// Where a unit's produced entries are: most units' are exactly the entries the transcript
/// shows for them, and keeping them a second time would double a run's memory.
enum Produced {
    /// The unit's entries are the transcript's `n` entries from its `len_before` on, as they
    /// stand: none merged into another, redaction was off, and no later delta has merged into
    /// the last of them (a merge makes the unit keep a copy first: [`TranscriptBuilder::append`]).
    Shown(usize),
    /// A copy, for a unit whose shown entries differ from what it produced.
    // Boxed: one word where a `Vec` is three, and a run has a unit a line, most with no copy.
    #[allow(clippy::box_collection)]
    Kept(Box<Vec<TranscriptEntry>>),
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
    /// The last chunk's timestamp: what `finish` dates its line with, and the one copy the
    /// entries appended while that chunk is ingested share (`fold`'s `append`).
    last_ts: Option<Ts>,
    chunks: VecDeque<Retained>,
    /// Hashes of the retained chunks' (ts, stream, text) → the chunks that have it, numbered
    /// from the run's first chunk (with `drop_duplicate_chunks`).
    chunk_hashes: HashMap<u64, Vec<u64>>,
    counts: BuilderCounts,
    lines: u64,
    failures: u64,
    items: Vec<Item>,
    /// Units (`items`) that left the window's front: the run's number of `items[0]`.
    dropped_units: u64,
    /// Where [`units_up_to`](Self::units_up_to) answered last: where it looks first next time.
    origin_hint: Cell<usize>,
    /// Lines answered [`LineAnswer::Later`]: token → the run's number of its unit (as
    /// [`units`](Self::units) counts them: the number stays when the window's front moves, so
    /// freezing renumbers nothing).
    later: HashMap<u64, u64>,
    /// The units of `later`, in order: where the earliest line still waiting is.
    waiting: BTreeSet<u64>,
    /// With `track_lines`: for each chunk ingested since the last rebuild, the run's number of
    /// the first unit it could complete.
    chunk_starts: Vec<u64>,
    /// The final units that left `items` and `entries` to be kept compactly
    /// ([`TranscriptOptions::compact_final`]): they come between the units dropped from the
    /// front and `items[0]`.
    frozen: frozen::Frozen,
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
            lines: 0,
            failures: 0,
            items: Vec::new(),
            dropped_units: 0,
            origin_hint: Cell::new(0),
            later: HashMap::new(),
            waiting: BTreeSet::new(),
            chunk_starts: Vec::new(),
            frozen: frozen::Frozen::default(),
            finishes: Vec::new(),
            generation: 0,
            rebuilding: None,
        }
    }

    /// The transcript so far; with [`TranscriptOptions::compact_final`], the entries after the
    /// frozen prefix (index `i` here is the transcript's `frozen_len() + i`).
    pub fn entries(&self) -> &[TranscriptEntry] {
        &self.entries
    }

    /// How many entries the frozen prefix holds ([`TranscriptOptions::compact_final`]): the
    /// transcript is those, then [`entries`](Self::entries).
    pub fn frozen_len(&self) -> usize {
        self.frozen.len()
    }

    /// The whole transcript, the frozen prefix included, in order.
    pub fn all_entries(&self) -> impl Iterator<Item = TranscriptEntry> + '_ {
        self.frozen
            .entries(self.options.redact_home_paths)
            .chain(self.entries.iter().cloned())
    }

    /// How many entries the whole transcript has: the frozen prefix's, then
    /// [`entries`](Self::entries)'.
    pub fn len(&self) -> usize {
        self.frozen.len() + self.entries.len()
    }

    /// Whether the transcript has no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole transcript's entries from index `from` on (the frozen prefix counted): the
    /// window's own slice when `from` is past the frozen prefix, a copy when it is not.
    pub fn entries_from(&self, from: usize) -> Cow<'_, [TranscriptEntry]> {
        match from.checked_sub(self.frozen.len()) {
            Some(k) => Cow::Borrowed(self.entries.get(k..).unwrap_or_default()),
            None => Cow::Owned(self.all_entries().skip(from).collect()),
        }
    }

    /// The frozen prefix's entries, each with its origin ([`entry_origin`](Self::entry_origin)
    /// of the window names the others), in order: what a timeline makes the frozen entries'
    /// items from.
    pub fn frozen_with_origins(&self) -> impl Iterator<Item = (EntryOrigin, TranscriptEntry)> + '_ {
        self.frozen
            .entries_with_origins(self.options.redact_home_paths)
    }

    /// What the frozen prefix's entries would hold again as live ones, besides what it holds:
    /// for each line kept as a span of its chunk, the entry and the fold record it no longer
    /// keeps (other frozen units keep theirs). Counted, not measured: a rebuild parses them
    /// into the live form, and a budget must leave room for that.
    pub fn frozen_live_bytes(&self) -> usize {
        let per_line = std::mem::size_of::<TranscriptEntry>() + std::mem::size_of::<Item>();
        usize::try_from(self.frozen.plain_lines())
            .unwrap_or(usize::MAX)
            .saturating_mul(per_line)
    }

    /// The frozen prefix's last entry, with its origin. O(1).
    pub fn last_frozen(&self) -> Option<(EntryOrigin, TranscriptEntry)> {
        self.frozen.last_with_origin(self.options.redact_home_paths)
    }

    /// Takes the transcript out, the frozen prefix included, leaving the builder empty of
    /// entries.
    pub fn into_entries(self) -> Vec<TranscriptEntry> {
        if self.frozen.len() == 0 {
            return self.entries;
        }
        self.all_entries().collect()
    }

    /// The run's number of `items[0]`: units dropped from the front, then the frozen ones.
    fn window_first_unit(&self) -> u64 {
        self.dropped_units + self.frozen.units()
    }

    /// `items`' index of the run's unit `unit`, when it is in the window.
    fn item_index(&self, unit: u64) -> Option<usize> {
        usize::try_from(unit.checked_sub(self.window_first_unit())?).ok()
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

    /// What the builder holds and has let go of.
    pub fn counts(&self) -> BuilderCounts {
        BuilderCounts {
            retained_chunks: self.chunks.len(),
            ..self.counts
        }
    }

    /// The index of the first entry that chunk `chunk` (counted from 0 at the oldest retained
    /// chunk, or since the last rebuild) or a later one produced: where the transcript of a
    /// window that begins at that chunk starts, in this run, the frozen prefix counted (as
    /// [`len`](Self::len) counts it). When the chunk's first line merged a delta into an
    /// earlier entry, that entry is included. Needs `track_lines`; a chunk not pushed yet
    /// gives the length.
    pub fn first_entry_of_chunk(&self, chunk: usize) -> usize {
        let Some(&unit) = self.chunk_starts.get(chunk) else {
            return self.len();
        };
        match self.item_index(unit) {
            Some(i) => {
                self.frozen.len()
                    + self
                        .items
                        .get(i)
                        .map_or(self.entries.len(), Item::first_entry)
            }
            None => self.frozen.first_entry_of_unit(unit),
        }
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
                unit: self.window_first_unit() + u as u64,
                nth: index - unit.len_before,
            },
            None => EntryOrigin::of_index(
                index
                    .saturating_add(self.window_base())
                    .saturating_add(self.frozen.len()),
            ),
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
        self.window_first_unit() + self.items.len() as u64
    }

    /// Where the earliest line that still waits for its late answer ([`LineAnswer::Later`]),
    /// among the units numbered `from` on (as [`units`](Self::units) counts them), begins: the
    /// index of its first entry, or the transcript's length when no such line waits. Entries
    /// before it are final but for later answers to earlier lines. O(log waiting lines).
    pub fn first_waiting_entry(&self, from: u64) -> usize {
        self.waiting
            .range(from..)
            .next()
            .and_then(|&u| self.items.get(self.item_index(u)?))
            .map_or(self.entries.len(), Item::first_entry)
    }
}

/// The line a raw stdout line (ended by `\n`) shows: a `\r` right before the newline belongs to
/// it (`\r?\n`), then JavaScript's trim; `None` for a blank line, which shows nothing.
pub(super) fn line_of(raw: &str) -> Option<&str> {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    Some(js_trim(raw)).filter(|line| !line.is_empty())
}
