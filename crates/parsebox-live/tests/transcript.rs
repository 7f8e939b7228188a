//! A live transcript driven as the binding's `TranscriptBuilderCore` drives it, with the fake
//! executor: what each call hands the page (which entries changed, which timeline items, and at
//! a frame whether anything did), late answers folded in at the frame, rebuilds in slices,
//! the budget, and following a chunk list handed over whole on every render.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::rc::Rc;

use common::*;
use parsebox_host::{HostOptions, HostPlacement};
use parsebox_live::{
    ExecutorCommand, LiveCore, LiveTranscript, SharedCore, TranscriptError, TranscriptSettings,
    Update,
};
use parsebox_transcript::{Chunk, Stream};
use serde_json::Value;

type Core = Rc<SharedCore<FakeExecutor>>;

fn shared(live: LiveCore<FakeExecutor>) -> Core {
    Rc::new(SharedCore::new(live))
}

fn chunk(text: &str) -> Chunk {
    Chunk {
        ts: "t".into(),
        stream: Stream::Stdout,
        chunk: text.into(),
        seq: None,
    }
}

fn transcript(core: &Core, adapter_type: &str) -> LiveTranscript<FakeExecutor> {
    LiveTranscript::new(core, adapter_type, TranscriptSettings::default()).unwrap()
}

/// What an update hands the page, as the page reads it: `(dropped, from, length, texts)` and
/// the timeline's change as JSON.
fn read(update: &Update<'_>) -> ((usize, usize, usize, Vec<String>), Value) {
    let c = &update.changes;
    let timeline = update
        .timeline
        .as_ref()
        .map_or(Value::Null, |t| serde_json::to_value(t).unwrap());
    ((c.dropped, c.from, c.length, texts(&c.entries)), timeline)
}

fn count(timeline: &Value, key: &str) -> usize {
    timeline[key].as_array().map_or(0, Vec::len)
}

/// A core whose type `b` has a built-in parser.
fn builtin_core() -> Core {
    let (mut live, _seen) = live(HostPlacement::Inline);
    live.register_builtin("b", FakeBuiltin).unwrap();
    shared(live)
}

#[test]
fn a_push_hands_the_page_the_entries_it_changed_and_the_timeline_items_it_added() {
    let core = builtin_core();
    let mut t = transcript(&core, "b");
    let (changes, timeline) = read(&t.push(&chunk("one\ntw"), None).unwrap());
    assert_eq!(changes, (0, 0, 1, vec!["builtin:one".to_owned()]));
    assert_eq!(count(&timeline, "added"), 1);
    // The second half of a line: only the new entry changed.
    let (changes, timeline) = read(&t.push(&chunk("o\n"), None).unwrap());
    assert_eq!(changes, (0, 1, 2, vec!["builtin:two".to_owned()]));
    assert_eq!(count(&timeline, "added"), 1);
    assert_eq!(texts(&t.entries()), ["builtin:one", "builtin:two"]);
    assert_eq!(t.timeline_items().unwrap().len(), 2);
}

#[test]
fn a_worker_line_shows_its_generic_entry_then_its_answer_at_the_frame_and_a_quiet_frame_hands_nothing(
) {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let core = shared(live);
    let mut t = transcript(&core, "w");
    let (changes, timeline) = read(&t.push(&chunk("a\n"), None).unwrap());
    assert_eq!(changes.3, ["a"], "the generic entry, at once");
    assert_eq!(
        count(&timeline, "added"),
        0,
        "the timeline waits for the Worker's answer"
    );
    let mut commands = Vec::new();
    let seq = {
        let mut s = core.enter().unwrap();
        commands.extend(s.take_commands());
        sent_lines(&s.take_ops(engine))[0].0
    };
    {
        let mut s = core.enter().unwrap();
        answer(&mut s, engine, seq, "A");
        commands.extend(s.take_commands());
        assert_eq!(
            commands
                .iter()
                .filter(|c| **c == ExecutorCommand::Frame)
                .count(),
            1,
            "one frame asked for: {commands:?}"
        );
        let frame = s.take_frame();
        assert_eq!(frame.builders, [t.run().0]);
    }
    let update = t
        .apply_late()
        .unwrap()
        .expect("the answer changed the entry");
    let (changes, timeline) = read(&update);
    assert_eq!(changes, (0, 0, 1, vec!["A".to_owned()]));
    assert_eq!(count(&timeline, "added"), 1, "placed once, answered");
    assert!(
        t.apply_late().unwrap().is_none(),
        "nothing more to hand over"
    );
}

#[test]
fn a_rebuild_runs_in_slices_of_the_registrys_slice_time_and_goes_on_at_each_frame() {
    let (mut live, seen) = live_with(HostOptions {
        host: HostPlacement::Inline,
        load_sources: false,
        rebuild_slice_ms: Some(2.5),
        ..HostOptions::default()
    });
    live.register_source("i", SOURCE, None).unwrap();
    let core = shared(live);
    let mut t = transcript(&core, "i");
    for n in 0..10 {
        t.push(&chunk(&format!("{n}\n")), None).unwrap();
    }
    core.enter().unwrap().take_commands();
    // Each line the inline engine answers takes 1 ms on the page's clock.
    seen.borrow_mut().tick = 1.0;
    let first = t.rebuild(true).length;
    assert!(
        (1..10).contains(&first),
        "a slice of 2.5 ms re-parses part of the run, not {first} of 10 entries"
    );
    assert!(core
        .enter()
        .unwrap()
        .take_commands()
        .contains(&ExecutorCommand::Frame));
    let mut frames = 0;
    while frames < 20 && t.entries().len() < 10 {
        core.enter().unwrap().take_frame();
        t.apply_late().unwrap();
        frames += 1;
    }
    assert_eq!(
        texts(&t.entries()),
        (0..10).map(|n| format!("inline:{n}")).collect::<Vec<_>>()
    );
    assert!(frames >= 2, "went on over {frames} frames");
    // A whole rebuild (a follower's) does not slice.
    let whole = t.rebuild(false).length;
    assert_eq!(whole, 10);
}

#[test]
fn a_chunk_past_the_budget_is_refused_before_any_line_of_it_is_parsed_and_counted() {
    let core = builtin_core();
    let settings = TranscriptSettings {
        max_transcript_bytes: Some(f64::from(1 << 20)),
        ..TranscriptSettings::default()
    };
    let mut t = LiveTranscript::new(&core, "b", settings).unwrap();
    t.push(&chunk("small\n"), None).unwrap();
    let big = "x".repeat(512 << 10) + "\n";
    match t.push(&chunk(&big), None) {
        Err(TranscriptError::Memory(m)) => {
            assert!(m.to_string().contains("maxTranscriptBytes"), "{m}")
        }
        other => panic!("refused, not {:?}", other.map(|u| read(&u))),
    }
    assert_eq!(texts(&t.entries()), ["builtin:small"]);
    let refused = core
        .enter()
        .unwrap()
        .host()
        .diagnostics(Some("b"))
        .host
        .refused_chunks;
    assert_eq!(refused, 1);
}

#[test]
fn settings_out_of_range_and_a_missing_timeline_are_clear_errors() {
    let core = builtin_core();
    for (settings, part) in [
        (
            TranscriptSettings {
                max_chunks: Some(0.0),
                ..TranscriptSettings::default()
            },
            "\"maxChunks\" must be a whole number from 1 up, got 0",
        ),
        (
            TranscriptSettings {
                max_retained_bytes: Some(1.5),
                ..TranscriptSettings::default()
            },
            "\"maxRetainedBytes\" must be a whole number from 1 up, got 1.5",
        ),
    ] {
        match LiveTranscript::new(&core, "b", settings) {
            Err(TranscriptError::Options(m)) => assert!(m.contains(part), "{m}"),
            Err(e) => panic!("an options error, not {e:?}"),
            Ok(_) => panic!("refused: {part}"),
        }
    }
    let settings = TranscriptSettings {
        timeline: Some(false),
        ..TranscriptSettings::default()
    };
    let mut t = LiveTranscript::new(&core, "b", settings).unwrap();
    let update = t.push(&chunk("a\n"), None).unwrap();
    assert!(update.timeline.is_none(), "no timeline changes without one");
    assert!(matches!(t.timeline(), Err(TranscriptError::Options(_))));
}

#[test]
fn a_disposed_registry_and_a_call_from_inside_another_are_refused() {
    let core = builtin_core();
    let mut t = transcript(&core, "b");
    {
        let _held = core.enter().unwrap();
        assert!(matches!(t.apply_late(), Err(TranscriptError::Reentered)));
        assert!(matches!(
            LiveTranscript::new(&core, "b", TranscriptSettings::default()),
            Err(TranscriptError::Reentered)
        ));
    }
    core.dispose();
    assert!(matches!(
        LiveTranscript::new(&core, "b", TranscriptSettings::default()),
        Err(TranscriptError::Disposed)
    ));
    // A builder that outlives its registry still answers (generic entries) and does not throw.
    let update = t.push(&chunk("late\n"), None).unwrap();
    assert_eq!(texts(&update.changes.entries), ["late"]);
}

#[test]
fn a_followed_list_costs_only_its_new_chunks_and_shows_its_pending_line_finished() {
    let core = builtin_core();
    let mut t = transcript(&core, "b");
    t.push(&chunk("one\n"), Some(1)).unwrap();
    t.push(&chunk("tw"), Some(2)).unwrap();
    assert!(
        !t.follow_settle(&[1, 2]).unwrap().0,
        "the list begins where it did"
    );
    assert_eq!(t.follow_from(&[1, 2, 3]), Some(2), "only chunk 3 is new");
    assert_eq!(t.follow_from(&[9]), None, "another list");
    let window = t.follow_window().unwrap();
    assert_eq!(window.first, 0);
    let pending = window.pending.expect("the list ends mid-line");
    assert_eq!(pending.keep, 1);
    assert_eq!(texts(&pending.entries), ["builtin:tw"]);
    // The run itself goes on: the line's other half joins it.
    t.push(&chunk("o\n"), Some(3)).unwrap();
    assert_eq!(texts(&t.entries()), ["builtin:one", "builtin:two"]);
    assert_eq!(t.follow_window().unwrap().pending, None);
}

#[test]
fn a_window_that_moved_on_begins_at_its_first_chunk_and_lets_the_chunks_before_it_go() {
    let core = builtin_core();
    let mut t = transcript(&core, "b");
    for id in 1..=4 {
        t.push(&chunk(&format!("l{id}\n")), Some(id)).unwrap();
    }
    t.follow_settle(&[1, 2, 3, 4]).unwrap();
    // Paperclip keeps the last chunks: the list now begins at chunk 4.
    t.push(&chunk("l5\n"), Some(5)).unwrap();
    let (moved, update) = t.follow_settle(&[4, 5]).unwrap();
    assert!(moved, "the list begins at another chunk");
    let dropped = update.map_or(0, |u| u.changes.dropped);
    let window = t.follow_window().unwrap();
    let shown: Vec<String> = texts(&t.entries()[window.first..]);
    assert_eq!(shown, ["builtin:l4", "builtin:l5"], "dropped {dropped}");
}

#[test]
fn a_new_parser_for_the_type_re_parses_a_followed_run_once() {
    let (mut live, _seen) = live(HostPlacement::Inline);
    live.register_builtin("b", FakeBuiltin).unwrap();
    let core = shared(live);
    let mut t = transcript(&core, "b");
    t.push(&chunk("a\n"), Some(1)).unwrap();
    assert!(t.follow_parser().unwrap().is_none(), "the same parser");
    core.enter()
        .unwrap()
        .register_source("b", SOURCE, None)
        .unwrap();
    let changes = t.follow_parser().unwrap().expect("a re-parse");
    assert_eq!(texts(&changes.entries), ["inline:a"]);
    assert!(t.follow_parser().unwrap().is_none(), "once");
}

#[test]
fn a_transcript_dropped_lets_its_run_go() {
    let core = builtin_core();
    let t = transcript(&core, "b");
    let run = t.run();
    drop(t);
    assert!(core.enter().unwrap().host().run_type(run).is_none());
}

#[test]
fn a_frame_folds_every_transcripts_late_answers_in_one_call_and_leaves_the_runs_it_does_not_hold() {
    let (mut live, _seen) = live(HostPlacement::Worker);
    let engine = worker_type(&mut live);
    let core = shared(live);
    let mut transcripts = parsebox_live::Transcripts::new(Rc::clone(&core));
    let a = Rc::new(std::cell::RefCell::new(transcript(&core, "w")));
    let b = Rc::new(std::cell::RefCell::new(transcript(&core, "w")));
    transcripts.add(&a);
    transcripts.add(&b);
    a.borrow_mut().push(&chunk("a\n"), None).unwrap();
    b.borrow_mut().push(&chunk("b\n"), None).unwrap();
    let sent = {
        let mut s = core.enter().unwrap();
        s.take_commands();
        sent_lines(&s.take_ops(engine))
    };
    for ((seq, _), text) in sent.into_iter().zip(["A", "B"]) {
        answer(&mut core.enter().unwrap(), engine, seq, text);
    }
    let mut runs = core.enter().unwrap().take_frame().builders;
    runs.push(999);
    let mut folded = Vec::new();
    transcripts
        .at_frame::<()>(&mut runs, |run, update| {
            folded.push((run, texts(&update.changes.entries)));
            Ok(())
        })
        .unwrap();
    assert_eq!(
        folded,
        [
            (a.borrow().run(), vec!["A".to_owned()]),
            (b.borrow().run(), vec!["B".to_owned()])
        ]
    );
    assert_eq!(runs, [999], "a run no transcript here holds is the page's");
    // A transcript let go is forgotten: its run is the page's to ignore.
    let gone = b.borrow().run();
    drop(b);
    let mut runs = vec![gone.0];
    transcripts
        .at_frame::<()>(&mut runs, |_, _| Ok(()))
        .unwrap();
    assert_eq!(runs, [gone.0]);
}
