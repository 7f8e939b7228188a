//! A transcript's memory budget (`TranscriptOptions::max_held_bytes`): whatever a parser
//! returns, the transcript never holds much more than its budget. A line whose entries would
//! take it past shows the generic entry, its whole text; a late answer too large keeps the
//! line's generic entry; the window gives bytes back; a caller asks `has_room_for` before a
//! chunk it must refuse.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    Chunk, LineAnswer, LineFailure, LineParser, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};

const MIB: usize = 1 << 20;

/// Answers each line with `per_line` bytes of assistant text (the attack: 31 strings of 1 MB
/// for a 2-byte line, here one big string), at once or later.
struct Hoard {
    per_line: usize,
    later: bool,
    pending: Vec<(u64, String, String)>,
}

impl Hoard {
    fn big(&self, line: &str, ts: &str) -> Vec<TranscriptEntry> {
        vec![TranscriptEntry::system(
            ts,
            &("x".repeat(self.per_line) + line),
        )]
    }
}

impl LineParser for Hoard {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(self.big(line, ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        if !self.later {
            return LineAnswer::Now(self.parse_line(line, ts));
        }
        let token = self.pending.len() as u64 + 1;
        self.pending.push((token, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token,
            provisional: vec![parsebox_transcript::generic_entry(line, ts)],
        }
    }
}

fn options(max: usize) -> TranscriptOptions {
    TranscriptOptions {
        retain_chunks: true,
        track_lines: true,
        max_held_bytes: Some(max),
        ..TranscriptOptions::default()
    }
}

#[test]
fn lines_past_the_budget_show_the_generic_entry_and_the_transcript_stays_within_it() {
    let parser = Hoard {
        per_line: MIB,
        later: false,
        pending: Vec::new(),
    };
    let mut b = TranscriptBuilder::new(parser, options(8 * MIB));
    let lines: String = (0..30).map(|i| format!("l{i}\n")).collect();
    b.push(&Chunk::stdout("t", &lines));
    let counts = b.counts();
    assert!(counts.held_bytes <= 8 * MIB, "{counts:?}");
    // Seven lines of 1 MiB fit under 8 MiB with the chunk; the rest show their line.
    let big = b
        .entries()
        .iter()
        .filter(|e| e.text().is_some_and(|t| t.len() > 1000))
        .count();
    assert_eq!(big, 7, "{counts:?}");
    assert_eq!(counts.over_budget_lines, 23);
    let last = b.entries().last().unwrap();
    assert_eq!((last.kind(), last.text()), ("stdout", Some("l29")));
    // A chunk that would not fit is one a caller can refuse before parsing it.
    assert!(b.has_room_for(100));
    assert!(!b.has_room_for(8 * MIB));
}

#[test]
fn a_late_answer_too_large_keeps_the_generic_entry() {
    let parser = Hoard {
        per_line: 3 * MIB,
        later: true,
        pending: Vec::new(),
    };
    let mut b = TranscriptBuilder::new(parser, options(4 * MIB));
    b.push(&Chunk::stdout("t", "a\nb\n"));
    let pending = std::mem::take(&mut b.parser_mut().pending);
    let answers: Vec<(u64, Vec<TranscriptEntry>)> = pending
        .iter()
        .map(|(token, line, ts)| (*token, b.parser().big(line, ts)))
        .collect();
    b.replace_answers(answers);
    let texts: Vec<usize> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().len())
        .collect();
    assert_eq!(
        texts,
        vec![3 * MIB + 1, 1],
        "the first answer fits, the second does not"
    );
    assert_eq!(b.counts().over_budget_lines, 1);
    assert!(b.counts().held_bytes <= 4 * MIB);
}

#[test]
fn the_window_gives_its_bytes_back() {
    let parser = Hoard {
        per_line: 100_000,
        later: false,
        pending: Vec::new(),
    };
    let mut b = TranscriptBuilder::new(
        parser,
        TranscriptOptions {
            max_chunks: Some(2),
            ..options(MIB)
        },
    );
    for i in 0..50 {
        b.push(&Chunk::stdout("t", &format!("l{i}\n")));
    }
    let counts = b.counts();
    assert_eq!(counts.over_budget_lines, 0, "{counts:?}");
    assert!(counts.held_bytes < 300_000, "{counts:?}");
    b.rebuild();
    assert_eq!(
        b.counts().held_bytes,
        counts.held_bytes,
        "a rebuild counts the same"
    );
}
