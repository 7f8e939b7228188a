//! The foundation of parsebox: the `TranscriptEntry` union a Paperclip run-log viewer renders,
//! the validation that turns an untrusted parser's return value into such entries (or a reason
//! for dropping them), the generic parser, and the incremental [`TranscriptBuilder`] that turns a
//! run's streamed chunks into a transcript with exactly the semantics of Paperclip's
//! `buildTranscript`, at a cost proportional to each new chunk.
//!
//! Everything above this crate (the boa sandbox, the registry, the wasm binding, the CLI) speaks
//! in these types. It has no engine and no I/O, so every rule of the spec is tested here with a
//! plain `cargo test`.

pub mod builder;
pub mod duration;
pub mod entry;
pub mod entry_text;
pub mod follow;
pub mod jsstr;
pub mod line_rule;
pub mod lone_surrogates;
pub mod ndjson;
pub mod origin;
pub mod raw_json;
pub mod redact;
pub mod ts;
pub mod validate;

pub use builder::{
    BuilderCounts, Chunk, FinishedTail, LineAnswer, LineParser, PushChange, Stream,
    TranscriptBuilder, TranscriptOptions,
};
/// Bytes `entries` take as JSON, as the page gets them, counted without writing them out: what
/// a memory budget counts them as (a transcript's held bytes, the answer memo's).
pub fn entries_json_bytes(entries: &[TranscriptEntry]) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Entries always serialise (plain data); a failure would only undercount.
    let _ = serde_json::to_writer(&mut count, entries);
    count.0
}

pub use duration::{check_duration_ms, shown_number, MAX_DURATION_MS};
pub use entry::{DiffChangeType, Extra, TranscriptEntry};
pub use entry_text::EntryText;
pub use follow::{ChunkTrail, Settled};
pub use line_rule::{
    cut_text, failed_line_entry, outcome_resets_parser, settle_failure, settle_line,
    settle_line_previewing, FailedLineEntry, FailureCode, LineFailure, LineOutcome, ReturnJson,
    ReturnShape, SettledLine, CUT_MARKER,
};
pub use ndjson::{read_stored_run, StoredRun};
pub use origin::EntryOrigin;
pub use raw_json::{read_fields, read_value, RawJson};
pub use ts::Ts;
pub use validate::{
    entries_from_return, entries_from_return_previewing, validate_entry, CheckedEntries, Dropped,
    DroppedEntry, EntryLimits, EntryPreview, LimitError, Rejection, MAX_PREVIEWS_PER_LINE,
};

/// The generic parser: Paperclip's `process` parser. Every line becomes one
/// `{ kind: "stdout", ts, text: line }` entry. It answers at once and never fails, which is why
/// it is the fallback for every line a real parser cannot answer.
pub fn generic_entry(line: &str, ts: &str) -> TranscriptEntry {
    TranscriptEntry::stdout(ts, line)
}

/// [`generic_entry`] as a [`LineParser`], for builders that have no adapter parser (yet).
#[derive(Debug, Default, Clone, Copy)]
pub struct GenericParser;

impl LineParser for GenericParser {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(vec![generic_entry(line, ts)])
    }
}
