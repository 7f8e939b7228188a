//! Property tests: nothing is lost, and the incremental path is the from-scratch path, however
//! the transcript arrives (random chunkings, tails replaced from random indices, shrinking,
//! a finish in the middle) — and every update says exactly what changed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::collections::HashMap;

use common::entry;
use parsebox_timeline::{
    EntriesMoved, ItemId, LiveTimeline, Timeline, TimelineItem, TimelineItemType, TimelineUpdate,
};
use parsebox_transcript::{
    Chunk, EntryOrigin, LineAnswer, LineFailure, LineParser, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A small world of ids and names, so pairing, reuse, orphans and mismatches all happen.
fn arb_entry_json() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        Just(None),
        Just(Some("")),
        Just(Some("a")),
        Just(Some("b")),
        Just(Some("c")),
    ];
    let name = prop_oneof![Just("Bash"), Just("bash"), Just("Read"), Just("Edit")];
    let tool_name = prop_oneof![Just(None), name.clone().prop_map(Some)];
    let change = prop_oneof![Just("add"), Just("remove"), Just("hunk"), Just("context")];
    let text = prop_oneof![Just("x"), Just("y"), Just("")];
    prop_oneof![
        2 => text.clone().prop_map(|t| json!({"kind": "user", "text": t})),
        3 => (text.clone(), any::<bool>()).prop_map(|(t, d)| json!({"kind": "assistant", "text": t, "delta": d})),
        1 => text.clone().prop_map(|t| json!({"kind": "thinking", "text": t})),
        1 => text.clone().prop_map(|t| json!({"kind": "system", "text": t})),
        1 => text.clone().prop_map(|t| json!({"kind": "stdout", "text": t})),
        1 => text.clone().prop_map(|t| json!({"kind": "stderr", "text": t})),
        1 => Just(json!({"kind": "init", "model": "m", "sessionId": "s"})),
        1 => any::<bool>().prop_map(|e| json!({"kind": "result", "text": "r", "inputTokens": 1,
                "outputTokens": 2, "cachedTokens": 0, "costUsd": 0, "subtype": "s",
                "isError": e, "errors": []})),
        5 => (name, id.clone()).prop_map(|(n, id)| {
            let mut v = json!({"kind": "tool_call", "name": n, "input": {"path": "p"}});
            if let Some(id) = id { v["toolUseId"] = json!(id); }
            v
        }),
        5 => (id, tool_name, any::<bool>(), text.clone()).prop_map(|(id, tn, e, t)| {
            let mut v = json!({"kind": "tool_result", "toolUseId": id.unwrap_or(""),
                               "content": t, "isError": e});
            if let Some(tn) = tn { v["toolName"] = json!(tn); }
            v
        }),
        4 => (change, text).prop_map(|(c, t)| json!({"kind": "diff", "changeType": c, "text": t})),
    ]
}

fn arb_entries(max: usize) -> impl Strategy<Value = Vec<TranscriptEntry>> {
    prop::collection::vec(arb_entry_json(), 0..max).prop_map(|vs| {
        vs.into_iter()
            .enumerate()
            .map(|(i, mut v)| {
                v["ts"] = json!(format!("t{i}"));
                entry(v)
            })
            .collect()
    })
}

/// The seed's position rule, computed independently of the crate.
fn expected_positions(items: &[TimelineItem]) -> Vec<(bool, bool)> {
    let user = |i: Option<&TimelineItem>| i.is_some_and(|i| i.item_type == TimelineItemType::User);
    (0..items.len())
        .map(|k| {
            if items[k].item_type == TimelineItemType::User {
                return (true, true);
            }
            let first = k == 0 || user(items.get(k - 1));
            let last = k + 1 == items.len() || user(items.get(k + 1));
            (first, last)
        })
        .collect()
}

/// Every entry in exactly one item, ids from first entries, items in order, positions right.
fn assert_well_formed(items: &[TimelineItem], n: usize) {
    assert_window_well_formed(items, 0, n);
}

/// The update that turns `prev` into `next`, computed by comparing them.
fn diff_of(prev: &[TimelineItem], next: &[TimelineItem]) -> TimelineUpdate {
    diff_of_moved(prev, next, &[])
}

/// `prev` after `moved`: every entry index moved as the moves say, in order.
fn moved_items(prev: &[TimelineItem], moved: &[EntriesMoved]) -> Vec<TimelineItem> {
    let mut items = prev.to_vec();
    for item in &mut items {
        for e in &mut item.entries {
            *e = moved.iter().fold(*e, |e, m| m.apply(e));
        }
    }
    items
}

/// The update that turns `prev` into `next` when `moved` moved entry indices: what differs
/// from `prev` after those moves is named, and nothing else.
fn diff_of_moved(
    prev: &[TimelineItem],
    next: &[TimelineItem],
    moved: &[EntriesMoved],
) -> TimelineUpdate {
    let prev = moved_items(prev, moved);
    let old: HashMap<ItemId, &TimelineItem> = prev.iter().map(|i| (i.id, i)).collect();
    let new: HashMap<ItemId, &TimelineItem> = next.iter().map(|i| (i.id, i)).collect();
    TimelineUpdate {
        changed: next
            .iter()
            .filter(|i| old.get(&i.id).is_some_and(|o| *o != *i))
            .map(|i| i.id.to_string())
            .collect(),
        added: next
            .iter()
            .filter(|i| !old.contains_key(&i.id))
            .map(|i| i.id.to_string())
            .collect(),
        removed: prev
            .iter()
            .filter(|i| !new.contains_key(&i.id))
            .map(|i| i.id.to_string())
            .collect(),
        moved: moved.to_vec(),
    }
}

/// The moved items are the timeline's last: every item before the first moved entry (where it
/// is now) has all its entries before it.
fn assert_moves_are_a_suffix(items: &[TimelineItem], moved: &[EntriesMoved]) {
    if let Some(m) = moved.last() {
        let now_at = m.apply(m.at as usize);
        for item in items.iter().filter(|i| i.entries[0] < now_at) {
            assert!(
                item.entries.iter().all(|&e| e < now_at),
                "{item:?} reaches past {now_at}"
            );
        }
    }
}

/// What a renderer that held `prev` holds after taking in `update` as the README says: the
/// moves applied, the removed items gone, the changed and added ones taken whole from
/// `timeline`; in timeline order.
fn mirrored(
    prev: &[TimelineItem],
    update: &TimelineUpdate,
    timeline: &Timeline,
) -> Vec<TimelineItem> {
    let mut held: Vec<TimelineItem> = moved_items(prev, &update.moved)
        .into_iter()
        .filter(|i| !update.removed.contains(&i.id.to_string()))
        .collect();
    for id in update.changed.iter().chain(&update.added) {
        let now = timeline.item(id).unwrap().clone();
        match held.iter_mut().find(|i| i.id == *id) {
            Some(slot) => *slot = now,
            None => held.push(now),
        }
    }
    held.sort_by_key(|i| i.id);
    held
}

/// One edit of the transcript between two updates.
#[derive(Clone, Debug)]
enum Op {
    /// The next `n` entries of the final transcript arrive.
    Append(usize),
    /// The tail from `back` entries before the agreed prefix is replaced with other entries
    /// (a late answer, a rebuild with another parser).
    Replace(usize, Vec<TranscriptEntry>),
    /// The last `n` entries go.
    Truncate(usize),
    /// The run ends.
    Finish,
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1usize..6).prop_map(Op::Append),
        2 => (0usize..6, arb_entries(4)).prop_map(|(b, g)| Op::Replace(b, g)),
        1 => (0usize..4).prop_map(Op::Truncate),
        1 => Just(Op::Finish),
    ]
}

/// Feeds `ops` and then the rest of `target`, checking after every step that the timeline is
/// the from-scratch one and that the update named exactly what changed.
fn run_script(target: &[TranscriptEntry], ops: &[Op]) {
    let mut timeline = Timeline::new();
    let mut cur: Vec<TranscriptEntry> = Vec::new();
    let mut agreed = 0; // cur[..agreed] == target[..agreed]
    let mut finished = false;
    let steps = ops.iter().cloned().chain([Op::Append(target.len())]);
    for op in steps {
        let prev = timeline.items().to_vec();
        let update = match op {
            Op::Append(n) => {
                let end = (agreed + n).min(target.len());
                cur.truncate(agreed);
                cur.extend_from_slice(&target[agreed..end]);
                let start = agreed;
                agreed = end;
                timeline.update(&cur, start..cur.len())
            }
            Op::Replace(back, garbage) => {
                let k = agreed.saturating_sub(back);
                cur.truncate(k);
                cur.extend(garbage);
                agreed = k;
                timeline.update(&cur, k..cur.len())
            }
            Op::Truncate(n) => {
                let k = cur.len().saturating_sub(n);
                cur.truncate(k);
                agreed = agreed.min(k);
                timeline.update(&cur, k..k)
            }
            Op::Finish => {
                finished = true;
                timeline.finish()
            }
        };
        let scratch = Timeline::from_entries(&cur, finished);
        assert_eq!(timeline.items(), scratch.items(), "after {update:?}");
        assert_well_formed(timeline.items(), cur.len());
        assert_eq!(update, diff_of(&prev, timeline.items()));
        let named: Vec<&TimelineItem> = timeline
            .items()
            .iter()
            .filter(|i| update.changed.contains(&i.id.to_string()))
            .collect();
        assert_eq!(timeline.items_named(&update.changed), named);
    }
    assert_eq!(cur, target);
}

/// A line parser for the builder test: each line is an entry's JSON, or stdout.
fn json_line(line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
    let entry = match serde_json::from_str::<Value>(line) {
        Ok(mut v) => {
            v["ts"] = json!(ts);
            serde_json::from_value(v).unwrap_or_else(|_| TranscriptEntry::stdout(ts, line))
        }
        Err(_) => TranscriptEntry::stdout(ts, line),
    };
    Ok(vec![entry])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_entry_lands_in_exactly_one_item(entries in arb_entries(60), finished in any::<bool>()) {
        let timeline = Timeline::from_entries(&entries, finished);
        assert_well_formed(timeline.items(), entries.len());
    }

    #[test]
    fn chunked_updates_give_the_from_scratch_timeline(
        target in arb_entries(40),
        ops in prop::collection::vec(arb_op(), 0..16),
    ) {
        run_script(&target, &ops);
    }

    #[test]
    fn one_entry_at_a_time_gives_the_from_scratch_timeline(target in arb_entries(60)) {
        let mut timeline = Timeline::new();
        for n in 1..=target.len() {
            timeline.update(&target[..n], n - 1..n);
        }
        timeline.finish();
        let scratch = Timeline::from_entries(&target, true);
        prop_assert_eq!(timeline.items(), scratch.items());
    }

    #[test]
    fn the_builder_ranges_keep_the_timeline_exact(
        lines in prop::collection::vec(arb_entry_json(), 0..40),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        // Real change ranges, delta merges included: the log cut into chunks anywhere.
        let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.push(0);
        at.push(text.len());
        at.sort_unstable();
        at.dedup();
        let mut builder = TranscriptBuilder::new(json_line, TranscriptOptions::default());
        let mut timeline = Timeline::new();
        for w in at.windows(2) {
            let Some(piece) = text.get(w[0]..w[1]) else { continue };
            let changed = builder.push(&Chunk::stdout("t", piece));
            timeline.update(builder.entries(), changed);
            let scratch = Timeline::from_entries(builder.entries(), false);
            prop_assert_eq!(timeline.items(), scratch.items());
        }
        let changed = builder.finish();
        timeline.update(builder.entries(), changed);
        timeline.finish();
        let scratch = Timeline::from_entries(builder.entries(), true);
        prop_assert_eq!(timeline.items(), scratch.items());
        assert_well_formed(timeline.items(), builder.entries().len());
    }
}

/// A window's timeline: every entry from `base` to `n` in exactly one item, entries before
/// `base` in at most one, ids from first entries, items in order, positions right.
fn assert_window_well_formed(items: &[TimelineItem], base: usize, n: usize) {
    let mut owner = vec![None; n];
    let mut last_first = None;
    for (k, item) in items.iter().enumerate() {
        assert!(!item.entries.is_empty(), "empty item {item:?}");
        assert!(item.entries.windows(2).all(|w| w[0] < w[1]), "{item:?}");
        assert_eq!(item.id, format!("e{}", item.entries[0]));
        assert!(last_first < Some(item.entries[0]), "items out of order");
        last_first = Some(item.entries[0]);
        for &e in &item.entries {
            assert!(e < n, "entry {e} out of range in {item:?}");
            assert_eq!(owner[e], None, "entry {e} in two items");
            owner[e] = Some(k);
        }
    }
    assert!(
        owner[base..].iter().all(Option::is_some),
        "an entry of the window is in no item"
    );
    let got: Vec<(bool, bool)> = items.iter().map(|i| (i.is_first, i.is_last)).collect();
    assert_eq!(got, expected_positions(items));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Entries leaving a window's front take with them the items that showed only them, from
    /// the front: the rest of the timeline is the whole run's, ids included, and the update
    /// says exactly what went. The window then follows growth and late replacements.
    #[test]
    fn a_window_drops_whole_items_from_its_front(
        target in arb_entries(40),
        cut in any::<prop::sample::Index>(),
        later in any::<prop::sample::Index>(),
    ) {
        let base = cut.index(target.len() + 1);
        let end = base + later.index(target.len() - base + 1);
        let mut timeline = Timeline::from_entries(&target[..end], false);
        let whole = timeline.items().to_vec();
        let update = timeline.drop_front(&target[..base]);
        let gone = whole.iter().take_while(|i| i.entries.last().is_some_and(|&e| e < base)).count();
        let mut expected = whole[gone..].to_vec();
        let flags = expected_positions(&expected);
        for (item, (first, last)) in expected.iter_mut().zip(flags) {
            item.is_first = first;
            item.is_last = last;
        }
        prop_assert_eq!(timeline.items(), &expected[..]);
        prop_assert_eq!(&update, &diff_of(&whole, timeline.items()));
        for item in timeline.items() {
            prop_assert_eq!(timeline.item(&item.id.to_string()), Some(item));
        }
        // The window grows at the end.
        let before = timeline.items().to_vec();
        let update = timeline.update(&target[base..], end - base..target.len() - base);
        prop_assert_eq!(&update, &diff_of(&before, timeline.items()));
        assert_window_well_formed(timeline.items(), base, target.len());
        // Late answers replace the window's second half (a roll-back inside the window, of
        // items that may show entries from before it).
        let mut window = target[base..].to_vec();
        let mid = window.len() / 2;
        window[mid..].reverse();
        let before = timeline.items().to_vec();
        let update = timeline.update(&window, mid..window.len());
        prop_assert_eq!(&update, &diff_of(&before, timeline.items()));
        assert_window_well_formed(timeline.items(), base, target.len());
        // Dropping again, in steps, then everything.
        let mut all: Vec<TranscriptEntry> = target[..base].to_vec();
        all.extend(window.iter().cloned());
        let step = (all.len() - base) / 2;
        let before = timeline.items().to_vec();
        let update = timeline.drop_front(&all[base..base + step]);
        prop_assert_eq!(&update, &diff_of(&before, timeline.items()));
        assert_window_well_formed(timeline.items(), base + step, all.len());
        timeline.drop_front(&all[base + step..]);
        prop_assert!(timeline.items().iter().all(|i| i.entries.iter().all(|&e| e < all.len())));
    }
}

/// `item`'s wire form beside `window` (whose first entry is the run's entry `base`), resolved
/// as the receiver does: it must be the item's own JSON.
fn assert_shared_texts_resolve(item: &TimelineItem, window: &[TranscriptEntry], base: usize) {
    let mut wire = serde_json::to_value(item.sharing_texts(window, base)).unwrap();
    assert!(
        parsebox_timeline::shared_text::resolve(&mut wire, window),
        "{wire}"
    );
    assert_eq!(wire, serde_json::to_value(item).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The wire form that points at entries instead of repeating their texts gives back every
    /// item exactly, for a whole run and for a window whose kept cards show entries before it.
    #[test]
    fn shared_texts_resolve_to_the_items(
        target in arb_entries(40),
        cut in any::<prop::sample::Index>(),
        finished in any::<bool>(),
    ) {
        let whole = Timeline::from_entries(&target, finished);
        for item in whole.items() {
            assert_shared_texts_resolve(item, &target, 0);
        }
        let base = cut.index(target.len() + 1);
        let mut window = Timeline::from_entries(&target, finished);
        window.drop_front(&target[..base]);
        for item in window.items() {
            assert_shared_texts_resolve(item, &target[base..], base);
        }
    }
}

/// An entry of `arb_entry_json` with a ts.
fn stamped(mut v: Value) -> TranscriptEntry {
    v["ts"] = json!("t");
    entry(v)
}

/// Entries that never join an item nor are joined: what lines still waiting for a Worker show.
fn arb_lone_entry() -> impl Strategy<Value = TranscriptEntry> {
    let text = prop_oneof![Just("x"), Just("y")];
    prop_oneof![
        text.clone()
            .prop_map(|t| entry(json!({"kind": "stdout", "ts": "t", "text": t}))),
        text.clone()
            .prop_map(|t| entry(json!({"kind": "user", "ts": "t", "text": t}))),
        text.prop_map(|t| entry(json!({"kind": "assistant", "ts": "t", "text": t}))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Late answers replace a middle of the transcript and keep the tail (the lines still
    /// waiting): the bounded update gives the from-scratch timeline and names exactly what
    /// changed, whether the tail can keep its items (lone entries, same indices) or not.
    #[test]
    fn an_update_keeping_the_tail_gives_the_from_scratch_timeline(
        head in arb_entries(20),
        middle in prop::collection::vec(arb_entry_json().prop_map(stamped), 0..6),
        answers in prop::collection::vec(arb_entry_json().prop_map(stamped), 0..6),
        lone_tail in prop::collection::vec(arb_lone_entry(), 0..6),
        any_tail in arb_entries(4),
        same_count in any::<bool>(),
        lone in any::<bool>(),
        dropped in 0usize..4,
    ) {
        let tail = if lone { lone_tail } else { any_tail };
        let answers = if same_count {
            let mut a = answers;
            a.resize_with(middle.len(), || middle.first().cloned().unwrap_or_else(|| entry(json!({"kind": "stdout", "ts": "t", "text": "z"}))));
            a
        } else {
            answers
        };
        let old: Vec<TranscriptEntry> = head.iter().chain(&middle).chain(&tail).cloned().collect();
        let new: Vec<TranscriptEntry> = head.iter().chain(&answers).chain(&tail).cloned().collect();
        // As a builder names them: the head's lines one entry each, the answered line's
        // entries one line's, the tail's lines one entry each after it.
        let named = |line_entries: usize| {
            let h = head.len();
            move |i: usize| match i {
                i if i < h => EntryOrigin::of_index(i),
                i if i < h + line_entries => EntryOrigin { unit: h as u64, nth: i - h },
                i => EntryOrigin::of_index(i - line_entries + 1),
            }
        };
        let (before_origin, after_origin) = (named(middle.len()), named(answers.len()));
        // Sometimes a window: the first entries left the front before the answers came.
        let dropped = dropped.min(head.len());
        let mut timeline = Timeline::from_window(&old, 0, false, &before_origin);
        timeline.drop_front(&old[..dropped]);
        let mut unbounded = Timeline::from_window(&old, 0, false, &before_origin);
        unbounded.drop_front(&old[..dropped]);
        let prev = timeline.items().to_vec();
        let start = head.len() - dropped;
        let window = &new[dropped..];
        let origins = |i| after_origin(dropped + i);
        let update = timeline.update_keeping_tail(window, start..start + answers.len(), &origins);
        unbounded.update_with(window, start..window.len(), &origins);
        prop_assert_eq!(timeline.items(), unbounded.items());
        prop_assert_eq!(&update, &diff_of_moved(&prev, timeline.items(), &update.moved));
        prop_assert_eq!(mirrored(&prev, &update, &timeline), timeline.items());
        assert_moves_are_a_suffix(timeline.items(), &update.moved);
        if lone && answers.len() != middle.len() && !tail.is_empty() {
            prop_assert_eq!(update.moved.len(), 1, "lone kept entries are moved, not sent again");
        }
        if dropped == 0 {
            let scratch = Timeline::from_window(&new, 0, false, &after_origin);
            prop_assert_eq!(timeline.items(), scratch.items());
        }
        // The next entries join what they join after the unbounded update (pairing index and
        // diff targets kept right).
        let more = [entry(json!({"kind": "tool_result", "ts": "t", "toolUseId": "a", "content": "r", "isError": false})),
                    entry(json!({"kind": "tool_result", "ts": "t", "toolUseId": "", "toolName": "Read", "content": "r", "isError": false})),
                    entry(json!({"kind": "diff", "ts": "t", "changeType": "add", "text": "d"}))];
        let mut all = window.to_vec();
        all.extend(more.iter().cloned());
        timeline.update_with(&all, window.len()..all.len(), &origins);
        unbounded.update_with(&all, window.len()..all.len(), &origins);
        prop_assert_eq!(timeline.items(), unbounded.items());
    }
}

/// A parser for the late-answer test: a line is a JSON array of entries; the lines `defer`
/// picks (in turn, cycling) show the generic entry and wait in `pending` as (token, line, ts).
struct Deferring {
    defer: Vec<bool>,
    n: usize,
    pending: Vec<(u64, String, String)>,
}

fn array_line(line: &str, ts: &str) -> Vec<TranscriptEntry> {
    let values: Vec<Value> = serde_json::from_str(line).unwrap_or_default();
    values
        .into_iter()
        .map(|mut v| {
            v["ts"] = json!(ts);
            entry(v)
        })
        .collect()
}

impl LineParser for Deferring {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        Ok(array_line(line, ts))
    }
    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        self.n += 1;
        if !self.defer[self.n % self.defer.len()] {
            return LineAnswer::Now(self.parse_line(line, ts));
        }
        let token = self.n as u64;
        self.pending.push((token, line.to_owned(), ts.to_owned()));
        LineAnswer::Later {
            token,
            provisional: vec![TranscriptEntry::stdout(ts, line)],
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A run whose lines are answered late, in any order and in batches, by a parser that gives
    /// a line another number of entries than its generic one: after every answer the timeline
    /// fed with the builder's origins is the from-scratch one, ids included, its update names
    /// exactly what changed, and an item whose entries no answer touched keeps its id however
    /// far its entries moved.
    #[test]
    fn late_answers_move_entries_not_the_ids_of_the_items_they_did_not_touch(
        lines in prop::collection::vec(prop::collection::vec(arb_entry_json(), 0..4), 1..24),
        defer in prop::collection::vec(any::<bool>(), 1..8),
        order_seed in any::<u64>(),
    ) {
        let text: String = lines.iter().map(|l| format!("{}\n", Value::from(l.clone()))).collect();
        let options = TranscriptOptions { track_lines: true, ..TranscriptOptions::default() };
        let mut builder = TranscriptBuilder::new(Deferring { defer, n: 0, pending: Vec::new() }, options);
        let mut timeline = Timeline::new();
        let changed = builder.push(&Chunk::stdout("t", &text));
        timeline.update_keeping_tail(builder.entries(), changed, &|i| builder.entry_origin(i));
        let mut pending = std::mem::take(&mut builder.parser_mut().pending);
        let mut s = order_seed;
        while !pending.is_empty() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let take = 1 + (s >> 60) as usize % 3;
            let mut batch = Vec::new();
            for _ in 0..take.min(pending.len()) {
                let (token, line, ts) = pending.remove((s >> 33) as usize % pending.len());
                batch.push((token, array_line(&line, &ts)));
            }
            let prev = timeline.items().to_vec();
            let old_len = builder.entries().len();
            let changed = builder.replace_answers(batch);
            let origins = |i| builder.entry_origin(i);
            let update = timeline.update_keeping_tail(builder.entries(), changed.clone(), &origins);
            let scratch = Timeline::from_window(builder.entries(), 0, false, &origins);
            prop_assert_eq!(timeline.items(), scratch.items());
            prop_assert_eq!(&update, &diff_of_moved(&prev, timeline.items(), &update.moved));
            prop_assert_eq!(mirrored(&prev, &update, &timeline), timeline.items());
            assert_moves_are_a_suffix(timeline.items(), &update.moved);
            for ids in [&update.changed, &update.added] {
                let one_by_one: Vec<&TimelineItem> = ids.iter().filter_map(|id| timeline.item(id)).collect();
                prop_assert_eq!(timeline.items_named(ids), one_by_one);
            }
            for item in timeline.items() {
                prop_assert_eq!(item.id.to_string(), builder.entry_origin(item.entries[0]).to_string());
                prop_assert_eq!(timeline.item(&item.id.to_string()), Some(item));
            }
            // Items wholly in the untouched head or the kept tail are there under their ids.
            let moved = builder.entries().len() as isize - old_len as isize;
            for old in &prev {
                let untouched = old.entries.iter().all(|&e| e < changed.start)
                    || old.entries.iter().all(|&e| e >= old_len - (builder.entries().len() - changed.end));
                if untouched && !matches!(old.item_type, TimelineItemType::ToolCall | TimelineItemType::ToolResult | TimelineItemType::Diff) {
                    let now = timeline.item(&old.id.to_string());
                    prop_assert!(now.is_some(), "{} is gone", old.id);
                    let shift = if old.entries[0] < changed.start { 0 } else { moved };
                    prop_assert_eq!(now.unwrap().entries[0] as isize, old.entries[0] as isize + shift);
                }
            }
        }
        assert_well_formed_by(timeline.items(), builder.entries().len(), &|i| builder.entry_origin(i).to_string());
    }
}

/// [`assert_well_formed`] with ids from `id_of` (the item's first entry's).
fn assert_well_formed_by(items: &[TimelineItem], n: usize, id_of: &dyn Fn(usize) -> String) {
    let mut owner = vec![false; n];
    for item in items {
        assert_eq!(item.id, id_of(item.entries[0]));
        for &e in &item.entries {
            assert!(!owner[e], "entry {e} in two items");
            owner[e] = true;
        }
    }
    assert!(owner.iter().all(|&o| o), "an entry is in no item");
}

/// One step of a live run in [`a_live_timeline_waits_for_late_answers_at_most_a_frame`].
#[derive(Clone, Debug)]
enum LiveStep {
    /// The next `n` lines arrive, as one chunk.
    Push(usize),
    /// `n` of the lines still waiting are answered (which ones: the seed), in one batch.
    Answer(usize, u64),
    /// A frame of the page.
    Frame,
}

fn arb_live_step() -> impl Strategy<Value = LiveStep> {
    prop_oneof![
        3 => (1usize..5).prop_map(LiveStep::Push),
        3 => (1usize..4, any::<u64>()).prop_map(|(n, s)| LiveStep::Answer(n, s)),
        2 => Just(LiveStep::Frame),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A live timeline over a run whose lines are answered late: after every step it is the
    /// from-scratch timeline of the entries it has placed, which are all of them but those from
    /// the first line still waiting on (and never fewer than every line that waited across a
    /// frame); its update says exactly what changed and removes no item the transcript still
    /// has; two frames with nothing pushed between place everything; and once every line is
    /// answered and the run finished, it is the whole transcript's timeline.
    #[test]
    fn a_live_timeline_waits_for_late_answers_at_most_a_frame(
        lines in prop::collection::vec(prop::collection::vec(arb_entry_json(), 0..4), 1..24),
        defer in prop::collection::vec(any::<bool>(), 1..8),
        steps in prop::collection::vec(arb_live_step(), 0..30),
        window in prop::option::of(1usize..4),
    ) {
        let options = TranscriptOptions { track_lines: true, max_chunks: window, ..TranscriptOptions::default() };
        let mut builder = TranscriptBuilder::new(Deferring { defer, n: 0, pending: Vec::new() }, options);
        let mut live = LiveTimeline::new();
        let mut next_line = 0;
        let mut framed_since_push = 0;
        let finish = std::iter::once(LiveStep::Answer(usize::MAX, 0));
        for step in steps.into_iter().chain(finish) {
            let prev = live.timeline().items().to_vec();
            let update = match step {
                LiveStep::Push(n) => {
                    let text: String = lines.iter().skip(next_line).take(n)
                        .map(|l| format!("{}\n", Value::from(l.clone()))).collect();
                    next_line += n;
                    framed_since_push = 0;
                    let change = builder.push_change(&Chunk::stdout("t", &text));
                    live.sync(&builder, &change.dropped, change.changed, false)
                }
                LiveStep::Answer(n, mut s) => {
                    let pending = &mut builder.parser_mut().pending;
                    let mut batch = Vec::new();
                    for _ in 0..n.min(pending.len()) {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let (token, line, ts) = pending.remove((s >> 33) as usize % pending.len());
                        batch.push((token, array_line(&line, &ts)));
                    }
                    let changed = builder.replace_answers(batch);
                    live.sync(&builder, &[], changed, n == usize::MAX)
                }
                LiveStep::Frame => {
                    framed_since_push += 1;
                    live.sync_at_frame(&builder, builder.entries().len()..builder.entries().len(), false)
                }
            };
            let origins = |i| builder.entry_origin(i);
            let all = builder.entries();
            let placed = live.timeline().placed();
            let finished = live.timeline().is_finished();
            prop_assert_eq!(&update, &diff_of_moved(&prev, live.timeline().items(), &update.moved));
            prop_assert_eq!(mirrored(&prev, &update, live.timeline()), live.timeline().items());
            if window.is_some() {
                // A window's items may keep entries from before it (a call whose result is
                // in it); each placed entry of the window is in exactly one item.
                let base = builder.window_base();
                let mut owner = vec![0; placed];
                for item in live.timeline().items() {
                    for &e in item.entries.iter().filter(|&&e| e >= base) {
                        prop_assert!(e < base + placed, "entry {} is not placed yet", e);
                        owner[e - base] += 1;
                    }
                }
                prop_assert!(owner.iter().all(|&n| n == 1), "{:?}", owner);
            } else {
                let scratch = Timeline::from_window(&all[..placed], 0, finished, &origins);
                prop_assert_eq!(live.timeline().items(), scratch.items());
                let whole = Timeline::from_window(all, 0, finished, &origins);
                for id in &update.removed {
                    prop_assert!(whole.item(id).is_none(), "{} was taken back", id);
                }
            }
            prop_assert!(placed >= builder.first_waiting_entry(0));
            if framed_since_push >= 2 || builder.parser().pending.is_empty() {
                prop_assert_eq!(placed, all.len());
            }
        }
        if window.is_none() {
            let whole = Timeline::from_window(builder.entries(), 0, true, &|i| builder.entry_origin(i));
            prop_assert_eq!(live.timeline().items(), whole.items());
        }
    }
}

/// The live timeline's waits, step by step: it stops before the first line still waiting,
/// goes on when that line's answer comes, and places a line that waited across a frame as it
/// is (the generic entry), replaced when its answer comes.
#[test]
fn a_live_timeline_stops_at_the_first_waiting_line_until_its_answer_or_a_frame() {
    let options = TranscriptOptions {
        track_lines: true,
        ..TranscriptOptions::default()
    };
    // Lines 1 and 3 wait for their answers, line 2 is answered at once.
    let parser = Deferring {
        defer: vec![false, true],
        n: 0,
        pending: Vec::new(),
    };
    let mut builder = TranscriptBuilder::new(parser, options);
    let mut live = LiveTimeline::new();
    let text = r#"[{"kind":"user","text":"a"}]
[{"kind":"assistant","text":"b"}]
[{"kind":"user","text":"c"}]
"#;
    let change = builder.push_change(&Chunk::stdout("t", text));
    let update = live.sync(&builder, &change.dropped, change.changed, false);
    assert_eq!(live.timeline().placed(), 0);
    assert!(update.is_empty());
    assert!(live.lags(&builder));
    // Line 1's answer: the timeline goes on to line 3, which still waits.
    let first = builder.parser_mut().pending.remove(0);
    let changed = builder.replace_answers(vec![(first.0, array_line(&first.1, &first.2))]);
    let update = live.sync(&builder, &[], changed, false);
    assert_eq!(update.added, ["e0", "e1"]);
    assert_eq!(live.timeline().items()[0].item_type, TimelineItemType::User);
    // A frame: line 3 was pushed after the last frame, it may wait on; the next frame places
    // its generic entry.
    let end = builder.entries().len();
    assert!(live.sync_at_frame(&builder, end..end, false).is_empty());
    let update = live.sync_at_frame(&builder, end..end, false);
    assert_eq!(update.added, ["e2"]);
    assert_eq!(
        live.timeline().items()[2].item_type,
        TimelineItemType::Stdout
    );
    assert!(!live.lags(&builder));
    // Its answer replaces it under the same id.
    let third = builder.parser_mut().pending.remove(0);
    let changed = builder.replace_answers(vec![(third.0, array_line(&third.1, &third.2))]);
    let update = live.sync(&builder, &[], changed, false);
    assert!(update.changed.contains(&"e2".to_owned()));
    assert_eq!(live.timeline().items()[2].item_type, TimelineItemType::User);
}
