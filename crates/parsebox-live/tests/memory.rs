//! A transcript's memory is counted in real bytes: what the core's allocator holds for it
//! (this test binary installs the counting allocator, as the core module does). For every
//! placement of its parser and every shape of line and answer, `counts().heldBytes` is what
//! the transcript really holds, a line shown generic costs at most what a chunk is refused
//! for before it is taken in, and a budget is never passed by more than one answer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::rc::Rc;

use common::page::*;
use common::*;
use parsebox_host::HostOptions;
use parsebox_live::memory::{chunk_bound, GENERIC_LINE_BYTES};
use parsebox_live::{LiveCore, TranscriptError, TranscriptSettings};
use parsebox_meter::{Counting, Meter};

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting::new(std::alloc::System);

const SHAPES: [(&str, usize); 3] = [
    ("1-character", 1),
    ("34-character", 34),
    ("1000-character", 1000),
];

fn placements() -> Vec<Placed> {
    vec![
        Placed::Nowhere,
        Placed::Inline,
        Placed::Worker("one", Rc::new(one)),
        Placed::Worker("many", many(20)),
        Placed::Worker("dense", dense(20_000)),
    ]
}

#[test]
fn held_bytes_are_what_the_transcript_really_holds_for_every_placement_and_shape() {
    for placed in placements() {
        for (name, len) in SHAPES {
            let page = page(&placed);
            let meter = Meter::start();
            let mut t = page.transcript(TranscriptSettings::default());
            let lines = match placed {
                Placed::Worker("dense", _) => 200,
                _ => 20_000_000 / (len + 400),
            };
            let (pushed, refused) = push_lines(&page, &mut t, &"a".repeat(len), lines, 200_000);
            assert!(refused.is_none(), "{placed:?} {name}: {refused:?}");
            assert_eq!(pushed, lines);
            let real = meter.held() as f64;
            let counted = t.counts().held_bytes as f64;
            // What the transcript holds, and the core's few bytes of its own for a new run.
            assert!(
                (counted - real).abs() <= real * 0.02 + 16_384.0,
                "{placed:?} {name}: counted {counted}, really {real}"
            );
            drop(t);
            let _ = page.seen.borrow();
        }
    }
}

#[test]
fn a_line_shown_generic_costs_no_more_than_a_chunk_is_refused_for() {
    for placed in [
        Placed::Nowhere,
        Placed::Inline,
        Placed::Worker("one", Rc::new(one)),
    ] {
        for (name, len) in SHAPES {
            let page = page(&placed);
            let mut t = page.transcript(TranscriptSettings::default());
            let line = "a".repeat(len);
            let lines = 5_000;
            let text: String = std::iter::repeat_n(format!("{line}\n"), lines).collect();
            let bound = chunk_bound(text.len(), lines + 1);
            let c = chunk(text);
            // Before any answer: every line shows its generic entry.
            let ((), held) = parsebox_meter::measure(|| {
                t.metered(|t| t.push(&c, None).map(|_| ())).unwrap();
            });
            assert!(
                held as usize <= bound,
                "{placed:?} {name}: {held} bytes for a chunk bounded by {bound} ({} a line)",
                held as usize / lines
            );
            let per_line = held as usize / lines;
            assert!(
                per_line <= GENERIC_LINE_BYTES + 4 * len,
                "{placed:?} {name}: {per_line}"
            );
            eprintln!("{placed:?} {name}: {per_line} a line");
        }
    }
}

#[test]
fn a_transcript_never_holds_more_than_its_budget_and_one_answer() {
    const BUDGET: usize = 16 << 20;
    for placed in placements() {
        for (name, len) in SHAPES {
            let page = page(&placed);
            let meter = Meter::start();
            let mut t = page.transcript(TranscriptSettings {
                max_transcript_bytes: Some(BUDGET as f64),
                ..TranscriptSettings::default()
            });
            let (_, refused) =
                push_lines(&page, &mut t, &"a".repeat(len), usize::MAX >> 1, 16 << 10);
            assert!(
                matches!(refused, Some(TranscriptError::Memory(_))),
                "{placed:?} {name}: {refused:?}"
            );
            let real = meter.held() as usize;
            let counts = t.counts();
            // One dense answer (~20,000 numbers) may land past the budget before it is seen.
            assert!(
                real <= BUDGET + (2 << 20),
                "{placed:?} {name}: {real} of {BUDGET}"
            );
            assert!(
                counts.held_bytes <= BUDGET + (2 << 20),
                "{placed:?} {name}: {counts:?}"
            );
            // And the budget is used: a refusal comes when the room left is less than a chunk
            // might take. (What it counts: what is held, and what the frozen entries would hold
            // again live.)
            assert!(
                counts.budget_bytes >= BUDGET / 2 && counts.budget_bytes >= real,
                "{placed:?} {name}: {real} held, {counts:?}"
            );
        }
    }
}

/// A refused chunk leaves the transcript as it was: the refusal's message is written only when
/// it is shown, so a page that keeps pushing into a full transcript does not creep up its
/// `heldBytes` (each refusal held 288 bytes of formatted text before).
#[test]
fn refused_chunks_leave_nothing_held() {
    let page = page(&Placed::Nowhere);
    let mut t = page.transcript(TranscriptSettings {
        max_transcript_bytes: Some(f64::from(1 << 20)),
        ..TranscriptSettings::default()
    });
    let (_, refused) = push_lines(&page, &mut t, "a", usize::MAX >> 1, 16 << 10);
    assert!(matches!(refused, Some(TranscriptError::Memory(_))));
    let meter = Meter::start();
    let held = t.counts().held_bytes;
    let c = chunk("a\n".repeat(8 << 10));
    for _ in 0..1_000 {
        let e = t.metered(|t| t.push(&c, None).map(|_| ()));
        let e = e.expect_err("still full");
        assert!(e.to_string().contains("maxTranscriptBytes"), "{e}");
    }
    drop(c);
    assert_eq!(t.counts().held_bytes, held, "counted");
    assert!(meter.held() < 4 << 10, "real: {}", meter.held());
}

#[test]
fn transcripts_of_one_registry_share_its_total_in_real_bytes() {
    let page = page_with(
        &Placed::Nowhere,
        HostOptions {
            max_transcript_bytes: 24 << 20,
            ..HostOptions::default()
        },
    );
    let meter = Meter::start();
    let mut a = page.transcript(TranscriptSettings::default());
    let mut b = page.transcript(TranscriptSettings::default());
    let (_, first) = push_lines(
        &page,
        &mut a,
        "0123456789012345678901234567890123",
        1 << 30,
        64 << 10,
    );
    let (_, second) = push_lines(
        &page,
        &mut b,
        "0123456789012345678901234567890123",
        1 << 30,
        64 << 10,
    );
    assert!(
        matches!(first, Some(TranscriptError::Memory(_))),
        "{first:?}"
    );
    eprintln!("{first:?}");
    assert!(matches!(second, Some(TranscriptError::Memory(_))));
    let real = meter.held() as usize;
    assert!(
        real <= 24 << 20,
        "{real} a {:?} b {:?}",
        a.counts(),
        b.counts()
    );
    assert!(a.counts().held_bytes + b.counts().held_bytes <= 24 << 20);
    let _: &LiveCore<FakeExecutor> = &page.core.enter().unwrap();
}

#[test]
fn a_dense_tool_input_costs_about_its_json_text_with_its_timeline() {
    // Issue 54: a parsed `serde_json::Value` of small numbers held ~10 times its JSON (a
    // value enum for each number), and the timeline's tool card held a second copy: a parser
    // of dense tool inputs filled its transcript's budget (and, before budgets counted real
    // bytes, trapped the core) after a hundred lines. The input is kept as its JSON text, once.
    // 10,000 numbers: the default `maxArrayLen`.
    let page = page(&Placed::Worker("dense", dense(10_000)));
    let mut t = page.transcript(TranscriptSettings::default());
    let lines = 100;
    let (pushed, refused) = push_lines(&page, &mut t, "a", lines, 200_000);
    assert!(refused.is_none(), "{refused:?}");
    assert_eq!(pushed, lines);
    let json_bytes = 2 * 10_000 + 40; // "[0,1,…]" and the object around it
    let per_line = t.counts().held_bytes / lines;
    eprintln!("{per_line} bytes held a line for {json_bytes} bytes of input JSON");
    assert!(
        per_line < json_bytes * 3 / 2,
        "{per_line} bytes held a line for {json_bytes} bytes of input JSON"
    );
    let kinds: Vec<&str> = t
        .entries()
        .iter()
        .map(parsebox_transcript::TranscriptEntry::kind)
        .collect();
    assert!(
        kinds.iter().all(|k| *k == "tool_call"),
        "{:?} {kinds:?}",
        t.counts()
    );
}

/// A frozen prefix holds little, but a rebuild parses it into the live form again: the budget
/// counts what the frozen entries would hold live (`budgetBytes`), so a transcript takes in no
/// more than it could hold live, and after a rebuild of the whole of it (nothing frozen until
/// the next call) the real bytes are within what the budget counted and within the budget,
/// but for an eighth: the live vectors' room to grow, which a freeze measured already given
/// back.
#[test]
fn a_rebuild_of_a_frozen_run_holds_no_more_than_its_budget_counted() {
    for (placed, timeline) in [
        (Placed::Nowhere, true),
        (Placed::Nowhere, false),
        (Placed::Inline, true),
    ] {
        for (name, len) in SHAPES {
            let page = page(&placed);
            let budget = 16 << 20;
            let meter = Meter::start();
            let mut t = page.transcript(TranscriptSettings {
                max_transcript_bytes: Some(budget as f64),
                timeline: Some(timeline),
                ..TranscriptSettings::default()
            });
            let (_, refused) = push_lines(&page, &mut t, &"a".repeat(len), 10_000_000, 8_000);
            assert!(refused.is_some(), "{name}: the budget is reached");
            // One more call freezes what the last one left final.
            t.metered(|t| {
                t.finish();
            });
            let counts = t.counts();
            let what = format!("{placed:?}, timeline {timeline}, {name}: {counts:?}");
            if matches!(placed, Placed::Nowhere) && len < 1000 {
                // Plain lines are spans of their chunks once frozen.
                assert!(
                    counts.held_bytes < counts.budget_bytes / 2,
                    "frozen: {what}"
                );
            }
            assert!(counts.budget_bytes <= budget, "{what}");
            let before = counts.budget_bytes;
            t.metered(|t| {
                t.rebuild(false);
            });
            let real = usize::try_from(meter.held()).unwrap();
            assert!(
                real <= before + before / 8 + (256 << 10),
                "after the rebuild the core holds {real}, the budget counted {before}: {what}"
            );
            let after = t.counts();
            assert!(after.held_bytes <= budget + budget / 8, "{what}");
        }
    }
}
