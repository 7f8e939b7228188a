//! A transcript's memory budget acts through its parser ([`LineParser::has_room`]): the
//! caller that measures what the transcript really holds says when there is no more room. A
//! line past it shows its generic entry, its whole text; a late answer past it keeps the line's
//! generic entry; both are counted in `over_budget_lines`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_transcript::{
    Chunk, LineAnswer, LineFailure, LineParser, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};

/// Answers each line with a long assistant text, at once or later, and has room for
/// `room` answers.
struct Hoard {
    room: usize,
    later: bool,
    pending: Vec<(u64, String, String)>,
}

impl Hoard {
    fn big(line: &str, ts: &str) -> Vec<TranscriptEntry> {
        vec![TranscriptEntry::system(ts, &("x".repeat(1000) + line))]
    }
}

impl LineParser for Hoard {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(Self::big(line, ts))
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
    fn has_room(&mut self) -> bool {
        let room = self.room > 0;
        self.room = self.room.saturating_sub(1);
        room
    }
}

fn options() -> TranscriptOptions {
    TranscriptOptions {
        retain_chunks: true,
        track_lines: true,
        ..TranscriptOptions::default()
    }
}

#[test]
fn lines_past_the_budget_show_their_generic_entry_whole() {
    let parser = Hoard {
        room: 7,
        later: false,
        pending: Vec::new(),
    };
    let mut b = TranscriptBuilder::new(parser, options());
    let lines: String = (0..30).map(|i| format!("l{i}\n")).collect();
    b.push(&Chunk::stdout("t", &lines));
    let big = b
        .entries()
        .iter()
        .filter(|e| e.text().is_some_and(|t| t.len() > 1000))
        .count();
    assert_eq!(big, 7);
    assert_eq!(b.counts().over_budget_lines, 23);
    let last = b.entries().last().unwrap();
    assert_eq!((last.kind(), last.text()), ("stdout", Some("l29")));
}

#[test]
fn a_late_answer_past_the_budget_keeps_the_generic_entry() {
    let parser = Hoard {
        room: 3,
        later: true,
        pending: Vec::new(),
    };
    let mut b = TranscriptBuilder::new(parser, options());
    // The two provisional entries take two of the three rooms.
    b.push(&Chunk::stdout("t", "a\nb\n"));
    let pending = std::mem::take(&mut b.parser_mut().pending);
    let answers: Vec<(u64, Vec<TranscriptEntry>)> = pending
        .iter()
        .map(|(token, line, ts)| (*token, Hoard::big(line, ts)))
        .collect();
    b.replace_answers(answers);
    let texts: Vec<usize> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().len())
        .collect();
    assert_eq!(
        texts,
        vec![1001, 1],
        "the first answer fits, the second does not"
    );
    assert_eq!(b.counts().over_budget_lines, 1);
}
