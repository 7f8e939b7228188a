//! What a live view asks of the builder: a window of the latest chunks (by count or by bytes),
//! duplicate chunks dropped, and redaction switched without re-parsing.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::cell::Cell;
use std::rc::Rc;

use parsebox_transcript::{
    generic_entry, validate_entry, BuilderCounts, Chunk, EntryLimits, LineAnswer, LineFailure,
    LineParser, TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::json;

/// Lines `+x` are assistant deltas, `~x` thinking deltas, `@x` an assistant message naming a
/// home path, others stdout.
fn answer(line: &str, ts: &str) -> Vec<TranscriptEntry> {
    let v = |v| validate_entry(v, &EntryLimits::default()).unwrap();
    match line.chars().next() {
        Some('+') => vec![v(
            json!({"kind":"assistant","ts":ts,"text":&line[1..],"delta":true}),
        )],
        Some('~') => vec![v(
            json!({"kind":"thinking","ts":ts,"text":&line[1..],"delta":true}),
        )],
        Some('@') => vec![v(
            json!({"kind":"assistant","ts":ts,"text":format!("/Users/{}/notes", &line[1..])}),
        )],
        Some('0') => vec![],
        _ => vec![v(json!({"kind":"stdout","ts":ts,"text":line}))],
    }
}

fn parser() -> impl FnMut(&str, &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    |l: &str, ts: &str| Ok(answer(l, ts))
}

fn live(max_chunks: Option<usize>, max_retained_bytes: Option<usize>) -> TranscriptOptions {
    TranscriptOptions {
        retain_chunks: true,
        track_lines: true,
        max_chunks,
        max_retained_bytes,
        ..Default::default()
    }
}

/// The run as chunks: stdout lines (some cut in two), stderr in between.
fn chunks_of(lines: &[&str], cuts: &[bool]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let ts = format!("t{i}");
        if *l == "err" {
            chunks.push(Chunk::stderr(&ts, "oops\n"));
        } else if cuts.get(i).copied().unwrap_or(false) && l.len() > 1 {
            chunks.push(Chunk::stdout(&ts, &l[..1]));
            chunks.push(Chunk::stdout(&ts, &format!("{}\n", &l[1..])));
        } else {
            chunks.push(Chunk::stdout(&ts, &format!("{l}\n")));
        }
    }
    chunks
}

/// What a renderer holding the entries in an array does with each push's change.
fn mirror(
    view: &mut Vec<TranscriptEntry>,
    b: &TranscriptBuilder<impl LineParser>,
    dropped: usize,
    from: usize,
) {
    view.drain(..dropped);
    view.truncate(from);
    view.extend_from_slice(&b.entries()[from..]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The window shows exactly the entries of its chunks as the whole run made them, no entry
    /// is ever cut, and a renderer following the reported changes holds the same entries.
    #[test]
    fn a_window_is_the_tail_of_the_whole_run(
        lines in prop::collection::vec(prop::sample::select(vec!["+a", "+b", "~t", "plain", "+c", "err", "@alice"]), 1..40),
        cuts in prop::collection::vec(any::<bool>(), 40),
        max in 1usize..6,
        by_bytes in any::<bool>(),
    ) {
        let chunks = chunks_of(&lines, &cuts);
        let mut whole = TranscriptBuilder::new(parser(), live(None, None));
        let options = if by_bytes { live(None, Some(max * 4)) } else { live(Some(max), None) };
        let mut window = TranscriptBuilder::new(parser(), options);
        let mut view = Vec::new();
        for c in &chunks {
            whole.push(c);
            let change = window.push_change(c);
            mirror(&mut view, &window, change.dropped.len(), change.changed.start);
            prop_assert_eq!(&view[..], window.entries());
            let counts = window.counts();
            let start = whole.first_entry_of_chunk(usize::try_from(counts.dropped_chunks).unwrap());
            prop_assert_eq!(window.entries(), &whole.entries()[start..]);
            prop_assert_eq!(counts.dropped_entries, start as u64);
            prop_assert_eq!(counts.retained_chunks as u64 + counts.dropped_chunks, whole.counts().retained_chunks as u64);
            // Over the cap only while the oldest kept entry is still being streamed.
            let over = if by_bytes { counts.retained_bytes > max * 4 && counts.retained_chunks > 1 } else { counts.retained_chunks > max };
            if over {
                prop_assert!(window.entries().first().is_some_and(|e| matches!(e, TranscriptEntry::Assistant(_) | TranscriptEntry::Thinking(_))));
            }
        }
        // Finishing and re-parsing the window work on what is kept.
        window.finish();
        window.rebuild();
        prop_assert!(window.counts().retained_chunks <= chunks.len());
    }

    /// A rebuild in slices, with chunks pushed while it is under way and a window that moves
    /// on, ends where one rebuild and the same pushes end (also after a finish before it or
    /// during it); a renderer following the reported changes holds the builder's entries at
    /// every step.
    #[test]
    fn a_rebuild_in_slices_ends_where_one_rebuild_ends(
        lines in prop::collection::vec(prop::sample::select(vec!["+a", "+b", "~t", "plain", "+c", "err", "@alice"]), 1..40),
        cuts in prop::collection::vec(any::<bool>(), 40),
        before in 0usize..60,
        per_slice in 1usize..5,
        pushes in prop::collection::vec(0usize..3, 0..30),
        max in prop::option::of(3usize..10),
        finish_first in any::<bool>(),
        finish_at_end in any::<bool>(),
    ) {
        let chunks = chunks_of(&lines, &cuts);
        let (early, late) = chunks.split_at(before.min(chunks.len()));
        let mut one = TranscriptBuilder::new(parser(), live(max, None));
        let mut sliced = TranscriptBuilder::new(parser(), live(max, None));
        for c in early {
            one.push(c);
            sliced.push(c);
        }
        if finish_first {
            one.finish();
            sliced.finish();
        }
        // `go_on` is asked after each chunk: `per_slice` chunks a slice.
        let slice = || { let mut n = 1; move || { n += 1; n <= per_slice } };
        one.rebuild();
        sliced.rebuild_within(&mut slice());
        let mut view = sliced.entries().to_vec();
        let mut late = late.iter();
        let mut pushes = pushes.into_iter();
        while sliced.is_rebuilding() || late.len() > 0 {
            for c in late.by_ref().take(pushes.next().unwrap_or(1)) {
                one.push(c);
                let change = sliced.push_change(c);
                mirror(&mut view, &sliced, change.dropped.len(), change.changed.start);
            }
            let changed = sliced.resume(&mut slice());
            mirror(&mut view, &sliced, 0, changed.start);
            prop_assert_eq!(&view[..], sliced.entries());
        }
        if finish_at_end {
            one.finish();
            let changed = sliced.finish();
            mirror(&mut view, &sliced, 0, changed.start);
        }
        // A rebuild leaves the window to the next push.
        let last = Chunk::stdout("end", "last\n");
        one.push(&last);
        let change = sliced.push_change(&last);
        mirror(&mut view, &sliced, change.dropped.len(), change.changed.start);
        prop_assert_eq!(&view[..], sliced.entries());
        prop_assert_eq!(sliced.entries(), one.entries());
        // The same, but for the slices counted.
        prop_assert_eq!(BuilderCounts { rebuild_slices: 0, ..sliced.counts() }, one.counts());
    }

    /// Switching redaction folds the kept answers again: the transcript is what a builder made
    /// with the new setting gives, a path split across deltas included, and no line is parsed
    /// again.
    #[test]
    fn redaction_switches_without_a_reparse(
        lines in prop::collection::vec(prop::sample::select(vec!["+/Users/al", "+ice/x", "@bob", "plain", "err", "~/home/carol/y"]), 1..30),
        switches in prop::collection::vec(any::<bool>(), 1..4),
        max in prop::option::of(2usize..8),
    ) {
        let chunks = chunks_of(&lines, &[]);
        let calls = Rc::new(Cell::new(0));
        let counted = {
            let calls = Rc::clone(&calls);
            move |l: &str, ts: &str| { calls.set(calls.get() + 1); Ok::<_, LineFailure>(answer(l, ts)) }
        };
        let mut b = TranscriptBuilder::new(counted, live(max, None));
        // Half the run is pushed before the first switch, the rest after the switches: lines
        // folded with and without redaction meet (a delta may merge across a switch).
        let half = chunks.len() / 2;
        for c in &chunks[..half] { b.push(c); }
        let parsed = calls.get();
        let mut on = false;
        for s in switches {
            let changed = b.set_redact_home_paths(s);
            if s != on { prop_assert_eq!(changed, 0..b.entries().len()); } else { prop_assert!(changed.is_empty()); }
            on = s;
            let mut fresh = TranscriptBuilder::new(parser(), TranscriptOptions { redact_home_paths: on, ..live(max, None) });
            for c in &chunks[..half] { fresh.push(c); }
            prop_assert_eq!(b.entries(), fresh.entries());
        }
        prop_assert_eq!(calls.get(), parsed);
        for c in &chunks[half..] { b.push(c); }
        let mut fresh = TranscriptBuilder::new(parser(), TranscriptOptions { redact_home_paths: on, ..live(max, None) });
        for c in &chunks { fresh.push(c); }
        prop_assert_eq!(b.entries(), fresh.entries());
        // And back: each unit's own output, not the shown entries, is what is folded again.
        b.set_redact_home_paths(!on);
        let mut fresh = TranscriptBuilder::new(parser(), TranscriptOptions { redact_home_paths: !on, ..live(max, None) });
        for c in &chunks { fresh.push(c); }
        prop_assert_eq!(b.entries(), fresh.entries());
    }
}

#[test]
fn a_window_counts_what_it_lets_go() {
    let mut b = TranscriptBuilder::new(parser(), live(Some(2), None));
    for i in 0..5 {
        b.push(&Chunk::stdout(&format!("t{i}"), &format!("line {i}\n")));
    }
    let texts: Vec<_> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["line 3", "line 4"]);
    let counts = b.counts();
    assert_eq!(
        (
            counts.retained_chunks,
            counts.dropped_chunks,
            counts.dropped_entries
        ),
        (2, 3, 3)
    );
    assert_eq!(counts.retained_bytes, "line 3\nline 4\n".len());
}

#[test]
fn a_streamed_message_is_never_cut() {
    // The message streams over five chunks; the window of two holds on to all of them until
    // the message ends, then lets them go together.
    let mut b = TranscriptBuilder::new(parser(), live(Some(2), None));
    for (i, piece) in ["+Hel", "+lo,", "+ wor", "+ld", "+!"].iter().enumerate() {
        let change = b.push_change(&Chunk::stdout(&format!("t{i}"), &format!("{piece}\n")));
        assert!(change.dropped.is_empty());
    }
    assert_eq!(b.entries()[0].text(), Some("Hello, world!"));
    assert_eq!(b.counts().retained_chunks, 5);
    b.push(&Chunk::stdout("t5", "done\n"));
    let change = b.push_change(&Chunk::stdout("t6", "next\n"));
    assert_eq!(change.dropped.len(), 1, "the whole message leaves at once");
    assert_eq!(change.dropped[0].text(), Some("Hello, world!"));
    let texts: Vec<_> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["done", "next"]);
}

#[test]
fn a_line_that_shows_nothing_does_not_end_a_streamed_message() {
    // `0` shows nothing, so the next delta still merges into the message: the chunk that began
    // it stays while the window is over its size, and the message is never let go in part.
    let mut b = TranscriptBuilder::new(parser(), live(Some(2), None));
    for (i, piece) in ["+Hel\n0", "\n", "+lo\n"].iter().enumerate() {
        let change = b.push_change(&Chunk::stdout(&format!("t{i}"), piece));
        assert!(
            change.dropped.is_empty(),
            "chunk {i} dropped {:?}",
            change.dropped
        );
    }
    assert_eq!(b.entries()[0].text(), Some("Hello"));
    assert_eq!(b.counts().retained_chunks, 3);
    // Redaction folds the window again from what each line produced: the same message.
    b.set_redact_home_paths(true);
    assert_eq!(b.entries()[0].text(), Some("Hello"));
    b.push(&Chunk::stdout("t3", "done\n"));
    let change = b.push_change(&Chunk::stdout("t4", "next\n"));
    assert_eq!(change.dropped.len(), 1, "the whole message leaves at once");
    assert_eq!(change.dropped[0].text(), Some("Hello"));
}

#[test]
fn chunks_before_a_window_that_moved_on_are_let_go_without_cutting_an_entry() {
    // A viewer whose list dropped chunks at its start: no fixed size, the caller says where.
    let mut b = TranscriptBuilder::new(parser(), live(None, None));
    let texts = |b: &TranscriptBuilder<_>| -> Vec<String> {
        b.entries()
            .iter()
            .map(|e| e.text().unwrap().to_owned())
            .collect()
    };
    for (i, piece) in ["a\n", "+Hel", "+lo\n", "b\nc", "d\n"].iter().enumerate() {
        let text = if piece.starts_with('+') && !piece.ends_with('\n') {
            format!("{piece}\n")
        } else {
            (*piece).to_owned()
        };
        b.push(&Chunk::stdout(&format!("t{i}"), &text));
    }
    assert_eq!(texts(&b), ["a", "Hello", "b", "cd"]);
    // Chunk 2 continues the message chunk 1 began: the drop backs off to chunk 1.
    let change = b.drop_chunks_before(2);
    assert_eq!(change.dropped.len(), 1);
    assert_eq!(change.changed, 3..3, "no other entry changed");
    assert_eq!(texts(&b), ["Hello", "b", "cd"]);
    assert_eq!(
        (b.counts().retained_chunks, b.counts().dropped_chunks),
        (4, 1)
    );
    assert_eq!(b.first_entry_of_chunk(2), 1);
    // A line the dropped chunks began is finished by the next chunk as before.
    b.push(&Chunk::stdout("t5", "e"));
    b.drop_chunks_before(2);
    assert_eq!(texts(&b), ["b", "cd"]);
    b.push(&Chunk::stdout("t6", "f\n"));
    assert_eq!(texts(&b), ["b", "cd", "ef"]);
    // A rebuild re-parses from the first chunk kept.
    b.rebuild();
    assert_eq!(texts(&b), ["b", "cd", "ef"]);
    // Past the last chunk: every chunk goes, and so do their entries.
    let change = b.drop_chunks_before(99);
    assert_eq!(change.dropped.len(), 3);
    assert_eq!(b.counts().retained_chunks, 0);
    // A builder that keeps no chunks drops nothing.
    let mut plain = TranscriptBuilder::new(parser(), TranscriptOptions::default());
    plain.push(&Chunk::stdout("t", "x\ny\n"));
    assert!(plain.drop_chunks_before(1).dropped.is_empty());
}

#[test]
fn byte_cap_keeps_the_newest_chunk_whatever_its_size() {
    let mut b = TranscriptBuilder::new(parser(), live(None, Some(10)));
    b.push(&Chunk::stdout("t0", "short\n"));
    let big = "x".repeat(50);
    let change = b.push_change(&Chunk::stdout("t1", &format!("{big}\n")));
    assert_eq!(change.dropped.len(), 1);
    assert_eq!(change.changed, 0..1);
    assert_eq!(b.entries().len(), 1);
    assert_eq!(b.counts().retained_bytes, 51);
}

#[test]
fn duplicate_chunks_are_dropped_and_counted() {
    let options = TranscriptOptions {
        drop_duplicate_chunks: true,
        ..live(Some(5), None)
    };
    let mut b = TranscriptBuilder::new(parser(), options);
    let first = Chunk::stdout("t0", "hello\n");
    b.push(&first);
    // The stored log and the socket deliver the same chunk.
    assert!(b.push(&first).is_empty());
    assert!(
        b.push(&Chunk {
            seq: Some(7),
            ..first.clone()
        })
        .is_empty(),
        "a seq on one side only still matches"
    );
    // Same text at another time, or on another stream, is a new chunk.
    b.push(&Chunk::stdout("t1", "hello\n"));
    b.push(&Chunk::stderr("t0", "hello\n"));
    assert_eq!(b.entries().len(), 3);
    assert_eq!(b.counts().duplicate_chunks, 2);
    // Two chunks that both carry a seq are the same only with the same seq.
    let seq = |n, ts: &str| Chunk {
        seq: Some(n),
        ..Chunk::stdout(ts, "tick\n")
    };
    b.push(&seq(1, "t2"));
    b.push(&seq(2, "t2"));
    b.push(&seq(2, "t2"));
    assert_eq!(b.entries().len(), 5);
    assert_eq!(b.counts().duplicate_chunks, 3);
    // Once the first copy has left the window, the chunk is new again.
    b.push(&first);
    assert_eq!(b.counts().duplicate_chunks, 4);
    b.push(&Chunk::stdout("t3", "filler\n"));
    b.push(&first);
    assert_eq!(b.counts().duplicate_chunks, 4);
    assert_eq!(b.entries().last().unwrap().text(), Some("hello"));
}

/// Answers every line later; the tokens wait in `pending`.
struct Later(Vec<(u64, String, String)>);

impl LineParser for Later {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(answer(line, ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        let token = self.0.len() as u64 + 1;
        self.0.push((token, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token,
            provisional: vec![generic_entry(line, ts)],
        }
    }
}

#[test]
fn late_answers_for_lines_that_left_the_window_change_nothing() {
    let mut b = TranscriptBuilder::new(Later(Vec::new()), live(Some(2), None));
    for i in 0..4 {
        b.push(&Chunk::stdout(&format!("t{i}"), &format!("@user{i}\n")));
    }
    let pending = std::mem::take(&mut b.parser_mut().0);
    let answers = pending
        .iter()
        .map(|(token, line, ts)| (*token, answer(line, ts)))
        .collect();
    let changed = b.replace_answers(answers);
    assert_eq!(changed, 0..2);
    let texts: Vec<_> = b
        .entries()
        .iter()
        .map(|e| e.text().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["/Users/user2/notes", "/Users/user3/notes"]);
}
