//! Paperclip compatibility as `parsebox/paperclip` and the React hook drive it, with the fake
//! executor: `buildTranscript` over lists handed over whole on every render (only new chunks
//! asked for, a pending line shown finished, sixteen runs kept), late answers at the frame,
//! the budget, and a list that does not go on from the last one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use std::collections::HashMap;

use parsebox_host::{HostPlacement, RunId};
use parsebox_live::{
    Built, ChunkIn, FollowedRun, LiveCore, Paperclip, SharedCore, TranscriptError, Transcripts,
    KEEP_RUNS,
};
use parsebox_transcript::{Chunk, TranscriptEntry};

type Core = Rc<SharedCore<FakeExecutor>>;

fn shared(live: LiveCore<FakeExecutor>) -> Core {
    Rc::new(SharedCore::new(live))
}

/// A core whose type `b` has a built-in parser.
fn builtin_core() -> Core {
    let (mut live, _seen) = live(HostPlacement::Inline);
    live.register_builtin("b", FakeBuiltin).unwrap();
    shared(live)
}

fn texts_of<'a>(entries: impl Iterator<Item = &'a TranscriptEntry>) -> Vec<String> {
    entries
        .map(|e| e.text().unwrap_or_default().to_owned())
        .collect()
}

/// The page's side: its copy of each kept run's entries, and the window it last showed.
#[derive(Default)]
struct Page {
    copies: HashMap<RunId, (Vec<TranscriptEntry>, Vec<String>)>,
}

impl Page {
    /// Takes what a `buildTranscript` gave, as `paperclip.js` does; the window shown.
    fn take(&mut self, built: &Built<'_>) -> Vec<String> {
        if let Some(gone) = built.gone {
            self.copies.remove(&gone);
        }
        let (copy, window) = self.copies.entry(built.run).or_default();
        if let Some(shown) = &built.shown {
            shown.apply_to(copy);
            *window = texts_of(shown.window(copy));
        }
        window.clone()
    }
}

/// A list of stdout chunks, and the indices `chunk_at` was asked for.
struct List {
    chunks: Vec<&'static str>,
    asked: Vec<usize>,
    page: Page,
}

impl List {
    fn new(chunks: &[&'static str]) -> Self {
        Self {
            chunks: chunks.to_vec(),
            asked: Vec::new(),
            page: Page::default(),
        }
    }

    /// The chunks' ids: 1, 2, … (the page numbers chunk objects; a list is a slice of them).
    fn ids(&self, from: usize) -> Vec<u64> {
        (from..self.chunks.len()).map(|i| i as u64 + 1).collect()
    }

    fn build(
        &mut self,
        p: &mut Paperclip<FakeExecutor>,
        adapter_type: &str,
        from: usize,
    ) -> Vec<String> {
        let ids = self.ids(from);
        let (chunks, asked) = (&self.chunks, &mut self.asked);
        let built = p
            .build_transcript::<TranscriptError>(adapter_type, &ids, false, |i| {
                asked.push(from + i);
                Ok(ChunkIn::Text(Chunk::stdout("t", chunks[from + i])))
            })
            .unwrap();
        self.page.take(&built)
    }
}

#[test]
fn a_re_render_with_more_chunks_asks_only_for_the_new_ones() {
    let core = builtin_core();
    let mut p = Paperclip::new(Rc::clone(&core));
    let mut list = List::new(&["a\n", "b\n"]);
    assert_eq!(list.build(&mut p, "b", 0), ["builtin:a", "builtin:b"]);
    list.chunks.push("c\n");
    list.asked.clear();
    assert_eq!(
        list.build(&mut p, "b", 0),
        ["builtin:a", "builtin:b", "builtin:c"]
    );
    assert_eq!(list.asked, [2], "only the new chunk");
    list.asked.clear();
    list.build(&mut p, "b", 0);
    assert!(list.asked.is_empty(), "the same list: nothing to push");
}

#[test]
fn a_window_ending_mid_line_shows_the_line_finished_and_the_run_goes_on() {
    let core = builtin_core();
    let mut p = Paperclip::new(Rc::clone(&core));
    let mut list = List::new(&["a\n", "b"]);
    assert_eq!(list.build(&mut p, "b", 0), ["builtin:a", "builtin:b"]);
    list.chunks.push("c\n");
    assert_eq!(list.build(&mut p, "b", 0), ["builtin:a", "builtin:bc"]);
    // A sliding window: the list now begins at chunk 3.
    list.chunks.push("d\n");
    assert_eq!(list.build(&mut p, "b", 2), ["builtin:bc", "builtin:d"]);
}

#[test]
fn past_sixteen_kept_runs_the_one_shown_least_recently_is_let_go() {
    let core = builtin_core();
    let mut p = Paperclip::new(Rc::clone(&core));
    let mut asked = 0;
    let mut page = Page::default();
    let mut build = |p: &mut Paperclip<FakeExecutor>, n: u64| {
        // Each run's list is one chunk of its own id.
        let built = p
            .build_transcript::<TranscriptError>("b", &[1000 + n], false, |_| {
                asked += 1;
                Ok(ChunkIn::Text(Chunk::stdout("t", "x\n")))
            })
            .unwrap();
        assert_eq!(page.take(&built), ["builtin:x"]);
    };
    for n in 0..=KEEP_RUNS as u64 {
        build(&mut p, n);
    }
    assert_eq!(asked, KEEP_RUNS + 1);
    let mut again = |n: u64| {
        let mut asked = false;
        p.build_transcript::<TranscriptError>("b", &[1000 + n], false, |_| {
            asked = true;
            Ok(ChunkIn::Text(Chunk::stdout("t", "x\n")))
        })
        .unwrap();
        asked
    };
    assert!(!again(1), "the second run is kept: nothing re-parsed");
    assert!(again(0), "the first, shown least recently, was let go");
    assert_eq!(
        page.copies.len(),
        KEEP_RUNS,
        "the page let go of its copy too"
    );
}

#[test]
fn late_answers_of_kept_runs_are_folded_in_at_the_frame_and_say_the_window_changed() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let core = shared(live);
    let mut p = Paperclip::new(Rc::clone(&core));
    let mut list = List::new(&["a\n"]);
    assert_eq!(list.build(&mut p, "w", 0), ["a"], "generic until answered");
    let seq = {
        let mut s = core.enter().unwrap();
        s.take_commands();
        sent_lines(&s.take_ops(engine))[0].0
    };
    answer(&mut core.enter().unwrap(), engine, seq, "A");
    let mut builders = core.enter().unwrap().take_frame().builders;
    builders.push(999);
    assert!(p.at_frame(&mut builders).unwrap(), "the window changed");
    assert_eq!(builders, [999], "other builders are left to the page");
    list.asked.clear();
    assert_eq!(list.build(&mut p, "w", 0), ["A"]);
    assert!(list.asked.is_empty());
    let mut none = Vec::new();
    assert!(!p.at_frame(&mut none).unwrap());
}

#[test]
fn the_frame_folds_in_the_late_answers_of_followed_runs_the_page_holds_under_their_current_run() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let core = shared(live);
    let mut followers = Transcripts::new(Rc::clone(&core));
    let stdout = |text: &'static str| {
        move |_| Ok::<_, TranscriptError>(ChunkIn::Text(Chunk::stdout("t", text)))
    };
    let a = Rc::new(RefCell::new(FollowedRun::new(&core, "w", false).unwrap()));
    let b = Rc::new(RefCell::new(FollowedRun::new(&core, "w", false).unwrap()));
    followers.add(&a);
    followers.add(&b);
    a.borrow_mut().follow(&[1], false, stdout("a\n")).unwrap();
    // b starts anew on another list: the page adds it again, under its new run.
    let old = b.borrow().run();
    b.borrow_mut().follow(&[2], false, stdout("x\n")).unwrap();
    b.borrow_mut().follow(&[9], false, stdout("b\n")).unwrap();
    assert_ne!(b.borrow().run(), old);
    followers.add(&b);
    let sent = {
        let mut s = core.enter().unwrap();
        s.take_commands();
        sent_lines(&s.take_ops(engine))
    };
    for (seq, text) in sent {
        answer(
            &mut core.enter().unwrap(),
            engine,
            seq,
            &text.to_uppercase(),
        );
    }
    let mut runs = core.enter().unwrap().take_frame().builders;
    runs.push(999);
    let mut changed = Vec::new();
    followers
        .at_frame::<()>(&mut runs, |run, ()| {
            changed.push(run);
            Ok(())
        })
        .unwrap();
    assert_eq!(changed, [a.borrow().run(), b.borrow().run()]);
    assert_eq!(runs, [999], "a run no follower holds is left");
    for run in [&a, &b] {
        let mut run = run.borrow_mut();
        let mut copy = Vec::new();
        let shown = run.shown().unwrap().unwrap();
        shown.apply_to(&mut copy);
        assert_eq!(texts_of(shown.window(&copy)).len(), 1);
    }
    assert_eq!(texts_of(a.borrow().entries().iter()), ["A"]);
    assert_eq!(texts_of(b.borrow().entries().iter()), ["B"]);
    // Let go of by the page: forgotten at the next frame, its old run too.
    drop(b);
    followers
        .at_frame::<()>(&mut Vec::new(), |_, ()| Ok(()))
        .unwrap();
    assert_eq!(followers.len(), 1);
}

#[test]
fn a_list_past_the_budget_shows_what_fits_and_asks_again_for_the_rest() {
    let (mut live, _seen) = live_with(parsebox_host::HostOptions {
        host: HostPlacement::Inline,
        load_sources: false,
        max_transcript_bytes: 1 << 20,
        ..parsebox_host::HostOptions::default()
    });
    live.register_builtin("b", FakeBuiltin).unwrap();
    let core = shared(live);
    let mut p = Paperclip::new(Rc::clone(&core));
    // A line of 512 KiB may take 2 MiB with its copies: past the registry's 1 MiB.
    let big: &'static str = Box::leak(format!("{}\n", "y".repeat(512 << 10)).into_boxed_str());
    let mut list = List::new(&["a\n", big, "c\n"]);
    assert_eq!(list.build(&mut p, "b", 0), ["builtin:a"], "what fits");
    list.asked.clear();
    list.build(&mut p, "b", 0);
    assert_eq!(list.asked, [1], "the refused chunk is asked for again");
}

#[test]
fn a_chunk_the_page_cannot_encode_is_its_error_and_a_followed_list_that_does_not_go_on_starts_anew()
{
    let core = builtin_core();
    let mut run = FollowedRun::new(&core, "b", false).unwrap();
    let first = run.run();
    let refused = run.follow(&[1], false, |_| {
        Err::<ChunkIn, _>(TranscriptError::Chunk("no".into()))
    });
    assert_eq!(refused, Err(TranscriptError::Chunk("no".into())));
    let ok = |_| Ok::<_, TranscriptError>(ChunkIn::Text(Chunk::stdout("t", "a\n")));
    let mut copy = Vec::new();
    let mut show = |run: &mut FollowedRun<FakeExecutor>| {
        run.shown().unwrap().map(|s| {
            s.apply_to(&mut copy);
            texts_of(s.window(&copy))
        })
    };
    assert!(run.follow(&[1], false, ok).unwrap());
    assert_eq!(show(&mut run).unwrap(), ["builtin:a"]);
    assert_eq!(show(&mut run), None, "nothing new");
    assert!(run.follow(&[7], false, ok).unwrap(), "another list");
    assert_ne!(run.run(), first, "a new run");
    assert!(
        core.enter().unwrap().host().run_type(first).is_none(),
        "the old one ended"
    );
    assert_eq!(
        show(&mut run).unwrap(),
        ["builtin:a"],
        "the copy replaced whole"
    );
    assert!(
        !run.follow(&[7], false, ok).unwrap(),
        "the same list: no change"
    );
    assert_eq!(show(&mut run), None);
}

/// A small deterministic generator (xorshift), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn generated_lists_the_page_copy_always_equals_the_run_entries() {
    // Lists grow by chunks cut anywhere (mid-line too), slide (windows dropping chunks at their
    // start), switch redaction and now and then start over; after each render the page applies
    // what the core says changed, and its copy must be the run's entries exactly.
    let core = builtin_core();
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut generation = 0u64;
        let mut run = FollowedRun::new(&core, "b", false).unwrap();
        let mut copy = Vec::new();
        let mut chunks: Vec<String> = Vec::new();
        let mut start = 0usize;
        let mut redact = false;
        for step in 0..60 {
            match rng.below(10) {
                0 => {
                    // Another run's list.
                    chunks.clear();
                    generation += 1;
                    start = 0;
                }
                1 => start = (start + 1 + rng.below(3) as usize).min(chunks.len()),
                2 => redact = !redact,
                _ => {}
            }
            let text: String = (0..=rng.below(4))
                .map(|n| match rng.below(3) {
                    0 => format!("/Users/me/l{step}.{n}\n"),
                    1 => format!("part{step}"),
                    _ => format!("l{step}.{n}\n"),
                })
                .collect();
            chunks.push(text);
            // Ids: the chunk's index in the run's whole list, from 1 (a fresh list: new ids).
            let base = (seed * 1_000 + generation) * 10_000;
            let ids: Vec<u64> = (start..chunks.len()).map(|i| base + i as u64 + 1).collect();
            let list = &chunks[start..];
            run.follow::<TranscriptError>(&ids, redact, |i| {
                Ok(ChunkIn::Text(Chunk::stdout("t", &list[i])))
            })
            .unwrap();
            if let Some(shown) = run.shown().unwrap() {
                shown.apply_to(&mut copy);
            }
            assert_eq!(copy, *run.entries(), "seed {seed}, step {step}");
        }
    }
}
