//! A line shown as it came is held once: its entry's text is a slice of the chunk the builder
//! retains for rebuilds. Entries read, compare and serialise
//! the same either way; a text that is not the chunk's own (a line begun in an earlier chunk,
//! a redacted or rewritten one) is an entry's own string.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    Chunk, GenericParser, LineFailure, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};

fn retaining() -> TranscriptOptions {
    TranscriptOptions {
        retain_chunks: true,
        track_lines: true,
        ..TranscriptOptions::default()
    }
}

fn text_of(entry: &TranscriptEntry) -> &parsebox_transcript::EntryText {
    match entry {
        TranscriptEntry::Stdout(b)
        | TranscriptEntry::Stderr(b)
        | TranscriptEntry::System(b)
        | TranscriptEntry::User(b) => &b.text,
        other => panic!("not a text entry: {other:?}"),
    }
}

#[test]
fn a_plain_runs_lines_are_held_once() {
    let mut b = TranscriptBuilder::new(GenericParser, retaining());
    let line = "x".repeat(300);
    let chunk: String = (0..20).map(|_| format!("{line}\n")).collect();
    for _ in 0..10 {
        b.push(&Chunk::stdout("2026-01-01T00:00:00Z", &chunk));
    }
    assert_eq!(b.entries().len(), 200);
    assert!(b.entries().iter().all(|e| text_of(e).is_shared()));
    let json = serde_json::to_string(&b.entries()[0]).unwrap();
    assert_eq!(
        json,
        format!(r#"{{"kind":"stdout","ts":"2026-01-01T00:00:00Z","text":"{line}"}}"#)
    );
}

#[test]
fn a_rebuild_shares_again_and_gives_the_same_entries() {
    let mut b = TranscriptBuilder::new(GenericParser, retaining());
    b.push(&Chunk::stdout("t1", "one\n  two  \r\nthr"));
    b.push(&Chunk::stdout("t2", "ee\nfour\n"));
    b.push(&Chunk::stderr("t3", "oops"));
    let before: Vec<TranscriptEntry> = b.entries().to_vec();
    b.rebuild();
    assert_eq!(b.entries(), before.as_slice());
    let texts: Vec<(&str, bool)> = b
        .entries()
        .iter()
        .map(|e| (text_of(e).as_str(), text_of(e).is_shared()))
        .collect();
    // "three" began in the first chunk and ended in the second: in neither alone, so owned.
    // "two" is trimmed, a slice still; a stderr chunk is its entry's text whole.
    assert_eq!(
        texts,
        [
            ("one", true),
            ("two", true),
            ("three", false),
            ("four", true),
            ("oops", true)
        ]
    );
}

#[test]
fn a_text_that_is_not_the_line_is_the_entrys_own() {
    // A parser that rewrites the line, and one that returns it as it came.
    let parser = |line: &str, ts: &str| -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(if line.starts_with('#') {
            vec![TranscriptEntry::system(ts, &line.to_uppercase())]
        } else {
            vec![TranscriptEntry::system(ts, line)]
        })
    };
    let mut b = TranscriptBuilder::new(parser, retaining());
    b.push(&Chunk::stdout("t", "#shout\nas is\n"));
    assert_eq!(text_of(&b.entries()[0]), "#SHOUT");
    assert!(!text_of(&b.entries()[0]).is_shared());
    assert!(text_of(&b.entries()[1]).is_shared());
}

#[test]
fn a_redacted_line_owns_its_text_and_the_chunk_is_kept_as_it_came() {
    let options = TranscriptOptions {
        redact_home_paths: true,
        ..retaining()
    };
    let mut b = TranscriptBuilder::new(GenericParser, options);
    b.push(&Chunk::stdout("t", "cat /home/alice/notes\nplain line\n"));
    assert_eq!(text_of(&b.entries()[0]), "cat /home/a****/notes");
    assert!(!text_of(&b.entries()[0]).is_shared());
    assert!(text_of(&b.entries()[1]).is_shared());
    // A rebuild re-reads the chunk as it came.
    b.rebuild();
    assert_eq!(text_of(&b.entries()[0]), "cat /home/a****/notes");
}

#[test]
fn without_retained_chunks_nothing_is_shared() {
    let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    b.push(&Chunk::stdout("t", "one\ntwo\n"));
    assert!(b.entries().iter().all(|e| !text_of(e).is_shared()));
}
