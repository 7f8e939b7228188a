//! SPEC §5, rule by rule: what a viewer shows for a given stream of chunks.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use parsebox_transcript::{
    validate_entry, Chunk, EntryLimits, FailureCode, GenericParser, LineFailure, TranscriptBuilder,
    TranscriptEntry, TranscriptOptions,
};
use serde_json::{json, Value};

fn build(chunks: &[Chunk]) -> Vec<Value> {
    let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    for c in chunks {
        b.push(c);
    }
    b.finish();
    b.entries()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn stdout(ts: &str, text: &str) -> Value {
    json!({"kind": "stdout", "ts": ts, "text": text})
}

#[test]
fn each_stdout_line_becomes_one_generic_entry() {
    let got = build(&[Chunk::stdout("t1", "one\ntwo\n")]);
    assert_eq!(got, vec![stdout("t1", "one"), stdout("t1", "two")]);
}

#[test]
fn stdout_splits_on_lf_and_crlf_only() {
    // A lone \r stays inside the line (it is not a line break), \r\n is one break.
    let got = build(&[Chunk::stdout("t1", "a\r\nb\rc\nd")]);
    assert_eq!(
        got,
        vec![stdout("t1", "a"), stdout("t1", "b\rc"), stdout("t1", "d")]
    );
}

#[test]
fn crlf_split_across_chunks_is_still_one_break() {
    let got = build(&[Chunk::stdout("t1", "a\r"), Chunk::stdout("t2", "\nb\n")]);
    assert_eq!(got, vec![stdout("t2", "a"), stdout("t2", "b")]);
}

#[test]
fn lines_are_trimmed_with_javascript_semantics_and_empty_lines_skipped() {
    let got = build(&[Chunk::stdout(
        "t",
        "  padded  \n\n   \n\u{FEFF}bom\n\u{0085}nel\u{0085}\n",
    )]);
    assert_eq!(
        got,
        vec![
            stdout("t", "padded"),
            stdout("t", "bom"),
            stdout("t", "\u{0085}nel\u{0085}")
        ]
    );
}

#[test]
fn a_line_takes_the_ts_of_the_chunk_that_completed_it() {
    let got = build(&[
        Chunk::stdout("t1", "hel"),
        Chunk::stdout("t2", "lo"),
        Chunk::stdout("t3", " world\nnext\n"),
    ]);
    assert_eq!(got, vec![stdout("t3", "hello world"), stdout("t3", "next")]);
}

#[test]
fn finish_flushes_the_pending_line_with_the_last_chunk_ts() {
    let got = build(&[
        Chunk::stdout("t1", "done\npartial"),
        Chunk::stderr("t2", "warn"),
    ]);
    // The stderr chunk does not flush "partial"; finish does, with the last chunk's ts.
    assert_eq!(
        got,
        vec![
            stdout("t1", "done"),
            json!({"kind":"stderr","ts":"t2","text":"warn"}),
            stdout("t2", "partial")
        ]
    );
}

#[test]
fn stderr_and_system_chunks_are_single_untrimmed_entries_that_do_not_flush_stdout() {
    let got = build(&[
        Chunk::stdout("t1", "half a "),
        Chunk::stderr("t2", "  line one\nline two \n"),
        Chunk::system("t3", "\nrun started\n"),
        Chunk::stdout("t4", "line\n"),
    ]);
    assert_eq!(
        got,
        vec![
            json!({"kind":"stderr","ts":"t2","text":"  line one\nline two \n"}),
            json!({"kind":"system","ts":"t3","text":"\nrun started\n"}),
            stdout("t4", "half a line"),
        ]
    );
}

fn entry(v: Value) -> TranscriptEntry {
    validate_entry(v, &EntryLimits::default()).unwrap()
}

/// A parser that maps a line to the JSON entries written in it.
fn json_parser(line: &str, _ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    let v: Value = serde_json::from_str(line)
        .map_err(|e| LineFailure::new(FailureCode::Threw, e.to_string()))?;
    Ok(v.as_array().unwrap().iter().cloned().map(entry).collect())
}

#[test]
fn consecutive_delta_entries_of_the_same_kind_merge() {
    let mut b = TranscriptBuilder::new(json_parser, TranscriptOptions::default());
    b.push(&Chunk::stdout(
        "t1",
        r#"[{"kind":"assistant","ts":"a","text":"Hel","delta":true}]"#,
    ));
    b.push(&Chunk::stdout("t1", "\n"));
    let changed = b.push(&Chunk::stdout(
        "t2",
        "[{\"kind\":\"assistant\",\"ts\":\"b\",\"text\":\"lo\",\"delta\":true}]\n",
    ));
    // The merge changed entry 0; nothing new was appended.
    assert_eq!(changed, 0..1);
    b.push(&Chunk::stdout(
        "t3",
        concat!(
            r#"[{"kind":"thinking","ts":"c","text":"x","delta":true},"#,
            r#"{"kind":"thinking","ts":"d","text":"y","delta":true},"#,
            r#"{"kind":"thinking","ts":"e","text":"z"},"#,
            r#"{"kind":"thinking","ts":"f","text":"w","delta":true},"#,
            r#"{"kind":"assistant","ts":"g","text":"1","delta":true,"channel":"a"},"#,
            r#"{"kind":"assistant","ts":"h","text":"2","delta":true,"channel":"b"}]"#,
            "\n"
        ),
    ));
    let got: Vec<Value> = b
        .entries()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            json!({"kind":"assistant","ts":"b","text":"Hello","delta":true}),
            json!({"kind":"thinking","ts":"d","text":"xy","delta":true}),
            // Without delta: true on both sides there is no merge.
            json!({"kind":"thinking","ts":"e","text":"z"}),
            json!({"kind":"thinking","ts":"f","text":"w","delta":true}),
            // Paperclip merges whatever the channel; the earlier entry's fields stay.
            json!({"kind":"assistant","ts":"h","text":"12","delta":true,"channel":"a"}),
        ]
    );
}

#[test]
fn a_failed_line_becomes_the_generic_entry_and_the_parser_is_reset() {
    struct Flaky {
        resets: u32,
    }
    impl parsebox_transcript::LineParser for Flaky {
        fn parse_line(
            &mut self,
            line: &str,
            ts: &str,
        ) -> Result<Vec<TranscriptEntry>, LineFailure> {
            if line.contains("boom") {
                return Err(LineFailure::new(FailureCode::Threw, "Error: boom"));
            }
            Ok(vec![entry(
                json!({"kind":"assistant","ts":ts,"text":line.to_uppercase()}),
            )])
        }
        fn reset(&mut self) {
            self.resets += 1;
        }
    }
    let mut b = TranscriptBuilder::new(Flaky { resets: 0 }, TranscriptOptions::default());
    b.push(&Chunk::stdout("t", "ok\nboom here\nfine\n"));
    let got: Vec<Value> = b
        .entries()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            json!({"kind":"assistant","ts":"t","text":"OK"}),
            stdout("t", "boom here"),
            json!({"kind":"assistant","ts":"t","text":"FINE"}),
        ]
    );
    assert_eq!(b.parser().resets, 1);
    assert_eq!((b.lines_parsed(), b.lines_fallen_back()), (3, 1));
}

#[test]
fn home_path_redaction_covers_stdout_stderr_system_and_parsed_fields() {
    let opts = TranscriptOptions {
        redact_home_paths: true,
        ..Default::default()
    };
    let mut b = TranscriptBuilder::new(json_parser, opts);
    b.push(&Chunk::stderr("t", "cannot open /home/alice/x"));
    b.push(&Chunk::system("t", r"cwd C:\Users\bob\repo"));
    b.push(&Chunk::stdout("t", concat!(
        r#"[{"kind":"tool_call","ts":"t","name":"read","input":{"path":"/Users/carol/a.ts"},"toolUseId":"/home/keep-ids"}]"#,
        "\n")));
    let got: Vec<Value> = b
        .entries()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(got[0]["text"], "cannot open /home/a****/x");
    assert_eq!(got[1]["text"], r"cwd C:\Users\b**\repo");
    assert_eq!(got[2]["input"]["path"], "/Users/c****/a.ts");
    assert_eq!(
        got[2]["toolUseId"], "/home/keep-ids",
        "ids are not free text"
    );
    // Without the option nothing changes.
    assert_eq!(
        build(&[Chunk::stderr("t", "/home/alice")])[0]["text"],
        "/home/alice"
    );
}

#[test]
fn push_reports_only_what_the_chunk_produced() {
    let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    assert_eq!(b.push(&Chunk::stdout("t", "a\nb\nc")), 0..2);
    assert_eq!(b.push(&Chunk::stdout("t", "")), 2..2);
    assert_eq!(b.push(&Chunk::stderr("t", "e")), 2..3);
    assert_eq!(b.push(&Chunk::stdout("t", "\n")), 3..4);
    assert_eq!(b.finish(), 4..4);
}

/// A builder that keeps its chunks (so it can rebuild), starting with the generic parser.
fn rebuildable() -> TranscriptBuilder<Box<dyn parsebox_transcript::LineParser>> {
    let opts = TranscriptOptions {
        retain_chunks: true,
        ..Default::default()
    };
    TranscriptBuilder::new(Box::new(GenericParser), opts)
}

/// A parser that answers each line with an assistant entry of its text in upper case.
fn upper(line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    Ok(vec![entry(
        json!({"kind":"assistant","ts":ts,"text":line.to_uppercase()}),
    )])
}

fn values<P: parsebox_transcript::LineParser>(b: &TranscriptBuilder<P>) -> Vec<Value> {
    b.entries()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

#[test]
fn rebuild_reparses_retained_chunks_with_a_new_parser() {
    let mut b = rebuildable();
    b.push(&Chunk::stdout("t1", "hello\n"));
    b.push(&Chunk::stderr("t2", "warn"));
    b.push(&Chunk::stdout("t3", "bye\n"));
    assert_eq!(b.entries()[0].kind(), "stdout");
    b.set_parser(Box::new(upper));
    assert_eq!(
        values(&b),
        vec![
            json!({"kind":"assistant","ts":"t1","text":"HELLO"}),
            json!({"kind":"stderr","ts":"t2","text":"warn"}),
            json!({"kind":"assistant","ts":"t3","text":"BYE"}),
        ]
    );
}

#[test]
fn a_rebuild_after_finish_keeps_the_last_partial_line() {
    // The viewer rebuilds when the adapter's parser becomes ready, which can be after the run
    // has ended: the line `finish()` flushed must not vanish from the rebuilt transcript.
    let mut b = rebuildable();
    b.push(&Chunk::stdout("t1", "hello\n"));
    b.push(&Chunk::stdout("t2", "DONE\nby"));
    b.push(&Chunk::stderr("t3", "warn"));
    b.push(&Chunk::stdout("t4", "e"));
    assert_eq!(b.finish(), 3..4);
    // A push after finish starts a new line, as it did live.
    b.push(&Chunk::stdout("t5", "more\n"));
    assert_eq!(b.entries().len(), 5);
    b.set_parser(Box::new(upper));
    let rebuilt = values(&b);
    assert_eq!(
        rebuilt,
        vec![
            json!({"kind":"assistant","ts":"t1","text":"HELLO"}),
            json!({"kind":"assistant","ts":"t2","text":"DONE"}),
            json!({"kind":"stderr","ts":"t3","text":"warn"}),
            json!({"kind":"assistant","ts":"t4","text":"BYE"}),
            json!({"kind":"assistant","ts":"t5","text":"MORE"}),
        ]
    );
    // Rebuilding again gives the same transcript.
    b.rebuild();
    assert_eq!(values(&b), rebuilt);
}

#[test]
fn bytes_split_inside_a_character_are_joined_and_invalid_bytes_become_fffd() {
    let text = "héllo 💬 wörld\n";
    let bytes = text.as_bytes();
    let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    for piece in bytes.chunks(1) {
        b.push_bytes("t", parsebox_transcript::Stream::Stdout, piece);
    }
    b.push_bytes("t", parsebox_transcript::Stream::Stdout, b"bad \xff byte\n");
    b.finish();
    let texts: Vec<_> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().to_owned())
        .collect();
    assert_eq!(texts, vec!["héllo 💬 wörld", "bad \u{FFFD} byte"]);
}

#[test]
fn chunks_that_already_carry_fffd_keep_it() {
    // The server decoded a split character as U+FFFD: that is content, shown as is.
    let got = build(&[
        Chunk::stdout("t", "caf\u{FFFD}"),
        Chunk::stdout("t", "\u{FFFD} ok\n"),
    ]);
    assert_eq!(got, vec![stdout("t", "caf\u{FFFD}\u{FFFD} ok")]);
}

/// What a streaming writer may print at once: every entry, except a last streamed delta that a
/// later chunk may still merge into.
#[test]
fn final_len_holds_back_only_a_delta_that_may_still_grow() {
    let delta =
        |line: &str, ts: &str| -> Result<Vec<parsebox_transcript::TranscriptEntry>, LineFailure> {
            let v = match line.strip_prefix('+') {
                Some(t) => json!({ "kind": "assistant", "ts": ts, "text": t, "delta": true }),
                None => json!({ "kind": "stdout", "ts": ts, "text": line }),
            };
            Ok(vec![validate_entry(v, &EntryLimits::default()).unwrap()])
        };
    let mut b = TranscriptBuilder::new(delta, TranscriptOptions::default());
    b.push(&Chunk::stdout("t", "plain\n"));
    assert_eq!(b.final_len(), 1);
    b.push(&Chunk::stdout("t", "+hel\n"));
    assert_eq!(b.final_len(), 1, "the delta may still grow");
    b.push(&Chunk::stdout("t", "+lo\n"));
    assert_eq!((b.entries().len(), b.final_len()), (2, 1));
    b.push(&Chunk::stdout("t", "after\n"));
    assert_eq!(b.final_len(), 3);
    assert_eq!(b.entries()[1].text(), Some("hello"));
}

/// `has_pending_line` says whether `finish` would parse a last line: a blank partial line or
/// none means the run can go on (a Paperclip re-build reuses the builder), else it cannot.
#[test]
fn a_pending_line_is_only_one_that_finish_would_parse() {
    let mut b = TranscriptBuilder::new(GenericParser, TranscriptOptions::default());
    assert!(!b.has_pending_line());
    b.push(&Chunk::stdout("t1", "one\n  \u{FEFF}"));
    assert!(!b.has_pending_line(), "blank after JS trim");
    b.push(&Chunk::stdout("t2", "tw"));
    assert!(b.has_pending_line());
    b.push(&Chunk::stdout("t3", "o\n"));
    assert!(!b.has_pending_line());
    let before = b.entries().len();
    assert_eq!(b.finish(), before..before);
}

/// `first_entry_of_chunk` is where a window that begins at a chunk starts: the entries of the
/// lines that chunk or a later one completed, including an earlier entry a delta merged into.
#[test]
fn the_first_entry_of_a_chunk_is_where_its_window_starts() {
    let parser = |line: &str, ts: &str| -> Result<Vec<TranscriptEntry>, LineFailure> {
        let delta = line.starts_with('d');
        let v = json!({"kind": "assistant", "ts": ts, "text": line, "delta": delta});
        Ok(vec![serde_json::from_value(v).unwrap()])
    };
    let options = TranscriptOptions {
        track_lines: true,
        retain_chunks: true,
        ..TranscriptOptions::default()
    };
    let mut b = TranscriptBuilder::new(parser, options);
    b.push(&Chunk::stdout("t0", "a\nb\n")); // entries 0, 1
    b.push(&Chunk::stderr("t1", "err")); // entry 2
    b.push(&Chunk::stdout("t2", "c\npar")); // entry 3
    b.push(&Chunk::stdout("t3", "tial\nd1\n")); // entries 4 (begun in chunk 2), 5
    b.push(&Chunk::stdout("t4", "d2\n")); // merges into entry 5
    assert_eq!(b.entries().len(), 6);
    let starts: Vec<usize> = (0..6).map(|k| b.first_entry_of_chunk(k)).collect();
    assert_eq!(starts, [0, 2, 3, 4, 5, 6]);
    b.rebuild();
    assert_eq!(b.first_entry_of_chunk(4), 5, "the same after a rebuild");
}

#[test]
fn the_entries_of_one_chunk_share_its_timestamp() {
    // Issue 54: each entry held its own copy of the chunk's timestamp, more bytes than a short
    // line itself. The entries a chunk's lines make (and a parser's entries dated with the
    // line's ts) now hold one shared string.
    use parsebox_transcript::{GenericParser, TranscriptBuilder, TranscriptOptions};
    for track_lines in [false, true] {
        let options = TranscriptOptions {
            track_lines,
            retain_chunks: track_lines,
            ..TranscriptOptions::default()
        };
        shares_the_chunks_timestamp(TranscriptBuilder::new(GenericParser, options));
    }
}

fn shares_the_chunks_timestamp(
    mut b: parsebox_transcript::TranscriptBuilder<parsebox_transcript::GenericParser>,
) {
    b.push(&Chunk::stdout("2026-01-01T00:00:00Z", "a\nb\nc\n"));
    b.push(&Chunk::stderr("2026-01-01T00:00:00Z", "oops"));
    b.push(&Chunk::stdout("2026-01-01T00:00:01Z", "d\n"));
    let e = b.entries();
    assert_eq!(e.len(), 5);
    for pair in [(0, 1), (1, 2), (2, 3)] {
        assert!(
            e[pair.0].ts_shared().is_shared_with(e[pair.1].ts_shared()),
            "{pair:?}"
        );
    }
    assert_eq!(e[4].ts(), "2026-01-01T00:00:01Z");
    assert!(!e[3].ts_shared().is_shared_with(e[4].ts_shared()));
}
