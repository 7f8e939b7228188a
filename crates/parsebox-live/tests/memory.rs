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
            // might take.
            assert!(real >= BUDGET / 2, "{placed:?} {name}: {real} of {BUDGET}");
        }
    }
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
