//! Property tests: however the server cuts a run into chunks, the transcript is the same.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    read_stored_run, validate_entry, Chunk, EntryLimits, FailureCode, LineFailure, Stream,
    TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::json;

/// A stateful-looking parser: lines starting with `+` are assistant deltas (so merges happen
/// across chunk boundaries), lines with `!` fail (so fallbacks happen), others are stdout.
fn parser(line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    if line.contains('!') {
        return Err(LineFailure::new(FailureCode::Threw, "bang"));
    }
    let v = match line.strip_prefix('+') {
        Some(rest) => json!({"kind":"assistant","ts":ts,"text":rest,"delta":true}),
        None => json!({"kind":"stdout","ts":ts,"text":line}),
    };
    Ok(vec![validate_entry(v, &EntryLimits::default()).unwrap()])
}

/// Text made of the characters that matter: newlines, lone CRs, JS white space (BOM, NBSP,
/// U+2028), NEL (not white space to JS), multi-byte characters of every UTF-8 length.
fn run_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "b", "+", "!", " ", "\n", "\r", "\r\n", "\t", "é", "💬", "語", "\u{FEFF}", "\u{00A0}",
        "\u{0085}", "\u{2028}", "\u{FFFD}", "xyz",
    ]);
    prop::collection::vec(pieces, 0..120).prop_map(|v| v.concat())
}

/// Cut points: sorted, deduplicated offsets into a buffer of length `len`.
fn cuts(len: usize, raw: Vec<usize>) -> Vec<usize> {
    let mut c: Vec<usize> = raw.into_iter().map(|x| x % (len + 1)).collect();
    c.sort_unstable();
    c.dedup();
    c
}

fn build_bytes(bytes: &[u8], cut_at: &[usize]) -> Vec<TranscriptEntry> {
    let mut b = TranscriptBuilder::new(parser, TranscriptOptions::default());
    let mut start = 0;
    for &c in cut_at.iter().chain(std::iter::once(&bytes.len())) {
        b.push_bytes("t", Stream::Stdout, &bytes[start..c]);
        start = c;
    }
    b.finish();
    b.into_entries()
}

fn build_chunks(chunks: &[Chunk]) -> Vec<TranscriptEntry> {
    let mut b = TranscriptBuilder::new(parser, TranscriptOptions::default());
    for c in chunks {
        b.push(c);
    }
    b.finish();
    b.into_entries()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Split the stdout bytes anywhere, even inside a multi-byte character: same entries as
    /// one single chunk.
    #[test]
    fn any_byte_rechunking_gives_the_same_entries(text in run_text(), raw_cuts in prop::collection::vec(any::<usize>(), 0..12)) {
        let bytes = text.as_bytes();
        let whole = build_bytes(bytes, &[]);
        let split = build_bytes(bytes, &cuts(bytes.len(), raw_cuts));
        prop_assert_eq!(whole, split);
    }

    /// Stored NDJSON replay gives exactly what the live stream gave, with torn rows skipped.
    #[test]
    fn ndjson_replay_equals_live_push(text in run_text(), raw_cuts in prop::collection::vec(any::<usize>(), 0..8), stderr_every in 1usize..4) {
        // Cut on character boundaries (the server's string chunks), add stderr/system chunks.
        let offsets: Vec<usize> = cuts(text.len(), raw_cuts).into_iter().filter(|&c| text.is_char_boundary(c)).collect();
        let mut chunks = Vec::new();
        let mut start = 0;
        for (i, &c) in offsets.iter().chain(std::iter::once(&text.len())).enumerate() {
            let ts = format!("2026-01-01T00:00:{i:02}Z");
            chunks.push(Chunk { ts: ts.clone(), stream: Stream::Stdout, chunk: text[start..c].to_owned(), seq: Some(i as u64) });
            if i % stderr_every == 0 {
                chunks.push(Chunk { ts, stream: if i % 2 == 0 { Stream::Stderr } else { Stream::System }, chunk: format!("note {i}\n"), seq: None });
            }
            start = c;
        }
        let mut ndjson = String::new();
        let mut torn = 0;
        for (i, c) in chunks.iter().enumerate() {
            ndjson.push_str(&serde_json::to_string(c).unwrap());
            ndjson.push('\n');
            if i % 3 == 1 {
                ndjson.push_str("{\"ts\":\"torn row\n");
                torn += 1;
            }
        }
        let stored = read_stored_run(&ndjson);
        prop_assert_eq!(stored.skipped_rows, torn);
        prop_assert_eq!(build_chunks(&stored.chunks), build_chunks(&chunks));
    }
}

type FnBuilder = TranscriptBuilder<fn(&str, &str) -> Result<Vec<TranscriptEntry>, LineFailure>>;

fn texts(b: &FnBuilder) -> Vec<String> {
    b.entries()
        .iter()
        .map(|e| e.text().unwrap_or_default().to_owned())
        .collect()
}

fn utf16_builder() -> FnBuilder {
    let options = TranscriptOptions {
        retain_chunks: true,
        ..TranscriptOptions::default()
    };
    TranscriptBuilder::new(parser as fn(&str, &str) -> _, options)
}

/// Paperclip's server cuts live chunks by UTF-16 units: a surrogate pair split between two
/// stdout chunks is one character again, a truly lone half is U+FFFD, and no chunk is refused.
#[test]
fn a_surrogate_pair_split_between_chunks_is_joined() {
    let units: Vec<u16> = "a💬b\n".encode_utf16().collect();
    let (head, tail) = units.split_at(2); // "a" + the high half | the low half + "b\n"
    let mut b = utf16_builder();
    assert_eq!(b.push_utf16("t1", Stream::Stdout, head, None).changed, 0..0);
    b.push_utf16("t2", Stream::Stdout, tail, Some(2));
    assert_eq!(texts(&b), ["a💬b"]);
    // A rebuild between the halves keeps the held-back half.
    b.push_utf16("t3", Stream::Stdout, head, None);
    b.rebuild();
    b.push_utf16("t4", Stream::Stdout, tail, None);
    assert_eq!(texts(&b), ["a💬b", "a💬b"]);

    // An empty stdout chunk between the halves does not separate them (SPEC §6), whichever
    // way it is pushed (the package pushes a well-formed chunk as text).
    let mut gap = utf16_builder();
    gap.push_utf16("t1", Stream::Stdout, head, None);
    gap.push(&Chunk::stdout("t2", ""));
    gap.push_utf16("t3", Stream::Stdout, &[], None);
    gap.push_utf16("t4", Stream::Stdout, tail, None);
    assert_eq!(texts(&gap), ["a💬b"]);

    let mut lone = utf16_builder();
    lone.push_utf16("t", Stream::Stdout, head, None);
    lone.push(&Chunk::stdout("t", "c\n")); // the other half never came
    lone.push_utf16("t", Stream::Stdout, &[0x78, 0xDC00, 0x0A], None); // a lone low half
    lone.push_utf16("t", Stream::Stdout, head, None);
    lone.finish();
    assert_eq!(texts(&lone), ["a\u{fffd}c", "x\u{fffd}", "a\u{fffd}"]);

    // stderr chunks are entries of their own: each half is U+FFFD, as Paperclip renders it.
    let mut err = utf16_builder();
    err.push_utf16("t", Stream::Stderr, head, None);
    err.push_utf16("t", Stream::Stderr, tail, None);
    assert_eq!(texts(&err), ["a\u{fffd}", "\u{fffd}b\n"]);
}
