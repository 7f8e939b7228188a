//! `TranscriptBuilderCore`: the incremental transcript builder over one run of the host core,
//! with the run's timeline beside it, fed by the same change ranges.

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_host::AdapterState;
use parsebox_timeline::{EntriesMoved, LiveTimeline, Timeline, TimelineItem, TimelineUpdate};
use parsebox_transcript::{
    Chunk, ChunkTrail, FailedLineEntry, PushChange, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::boundary::{chunk_ids, into_error, now_ms, to_json};
use crate::host_core::HostCore;
use crate::js_executor::{enter, HostLine};

/// Most bytes the reused output buffer keeps between calls (a rebuild of a long run may grow it
/// far past what a push needs).
const KEPT_OUTPUT_BYTES: usize = 1 << 20;

/// Serialises `value` as JSON into `buf` (cleared first, its capacity reused from call to call:
/// no regrowth per update) and hands it to JS as one string.
fn encode(buf: &mut Vec<u8>, value: &impl Serialize) -> Result<js_sys::JsString, JsValue> {
    buf.clear();
    if buf.capacity() > KEPT_OUTPUT_BYTES {
        buf.shrink_to(KEPT_OUTPUT_BYTES);
    }
    serde_json::to_writer(&mut *buf, value)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))?;
    // serde_json writes UTF-8 only; the check is a formality.
    let text = std::str::from_utf8(buf)
        .map_err(|e| into_error("ParseboxError", format!("could not encode a result: {e}")))?;
    Ok(js_sys::JsString::from(text))
}

/// A rebuild slice's `go_on`: true until `slice_ms` has passed from now (always, without one).
fn slice_limit(slice_ms: Option<f64>) -> impl FnMut() -> bool {
    let deadline = slice_ms.map(|ms| now_ms() + ms);
    move || deadline.is_none_or(|d| now_ms() < d)
}

/// `TranscriptBuilder` options ([`crate::option_kinds`] checked their keys and kinds).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BuilderOptions {
    redact_home_paths: Option<bool>,
    /// What a line whose parser failed shows; Paperclip's parse-error entry unless given.
    failed_line_entry: Option<FailedLineEntry>,
    timeline: Option<bool>,
    max_chunks: Option<f64>,
    max_retained_bytes: Option<f64>,
    drop_duplicate_chunks: Option<bool>,
    max_transcript_bytes: Option<f64>,
}

/// `value` of option `name` as a count: a whole number from 1 up, or a clear error.
fn count_option(name: &str, value: Option<f64>) -> Result<Option<usize>, JsValue> {
    match value {
        None => Ok(None),
        Some(v) if v >= 1.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_991.0 => {
            Ok(Some(v as usize))
        }
        Some(v) => Err(into_error(
            "ParseboxOptionsError",
            format!(
                "TranscriptBuilder option \"{name}\" must be a whole number from 1 up, got {}",
                parsebox_host::shown_number(v)
            ),
        )),
    }
}

/// What one call changed in the transcript, as the JS side reads it: the entries that changed,
/// from `from` on, and the transcript's new length; entries after the changed ones (`length -
/// from - entries.len()`, late answers leave the lines still waiting after them as they were)
/// are the last ones the JS side holds already. The timeline's changes travel as a second string (see
/// [`TranscriptBuilderCore::changed`]).
#[derive(Serialize)]
struct Changes<'a> {
    /// Entries that left the front of the window first (`from` counts after them).
    dropped: usize,
    from: usize,
    length: usize,
    entries: &'a [TranscriptEntry],
}

/// A [`TimelineUpdate`] with the items themselves instead of their ids (only those items are
/// serialised: the cost follows the change, not the run), each in its wire form beside the
/// entries the JS side holds: a text an entry of the window holds is that entry's index
/// ([`TimelineItem::sharing_texts`]), which `builder.js` turns back into the text.
#[derive(Serialize)]
struct TimelineChanges<'a> {
    changed: SharedItems<'a>,
    added: SharedItems<'a>,
    removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    moved: Vec<EntriesMoved>,
}

impl<'a> TimelineChanges<'a> {
    fn of(
        timeline: &'a Timeline,
        update: TimelineUpdate,
        window: &'a [TranscriptEntry],
        base: usize,
    ) -> Self {
        let items = |ids: &[String]| SharedItems {
            items: timeline.items_named(ids),
            window,
            base,
        };
        Self {
            changed: items(&update.changed),
            added: items(&update.added),
            removed: update.removed,
            moved: update.moved,
        }
    }
}

/// Items, serialised as [`TimelineItem::sharing_texts`] beside `window` (the run's entries from
/// `base` on: what the JS side holds after the update).
struct SharedItems<'a> {
    items: Vec<&'a TimelineItem>,
    window: &'a [TranscriptEntry],
    base: usize,
}

impl Serialize for SharedItems<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.items
                .iter()
                .map(|item| item.sharing_texts(self.window, self.base)),
        )
    }
}

/// One transcript of one adapter type, built chunk by chunk.
#[wasm_bindgen]
pub struct TranscriptBuilderCore {
    inner: TranscriptBuilder<HostLine>,
    /// The run's timeline, unless the options turned it off. It waits (a frame at most) for
    /// lines a Worker answers late, so it places each line once.
    timeline: Option<LiveTimeline>,
    /// The JSON of the last result, reused (see [`encode`]).
    out: Vec<u8>,
    /// A rebuild in slices of a finished run is under way: the timeline ends when it does.
    finish_when_rebuilt: bool,
    /// The chunks given with an id, of the lists a follower (`follow.js`) handed over whole;
    /// shared with the core's kept runs ([`keep`](Self::keep)).
    trail: Rc<RefCell<ChunkTrail>>,
    /// The run's parser at the last [`follow_parser`](Self::follow_parser) (or when made).
    parser_seen: Option<(u64, AdapterState)>,
    /// What the run's failed lines show (a finished tail's run shows the same).
    style: FailedLineEntry,
    /// This transcript's own budget (`maxTranscriptBytes`); the registry's shared one may
    /// leave it less ([`narrow`](Self::narrow)).
    max_bytes: usize,
    /// `counts().overBudgetLines` when the core was last told.
    over_budget_told: u64,
    /// How many entries the JS side holds: the length in the last changes it was given. A
    /// late answer that takes the last line's entries away changes no entry that stays, and
    /// only this says the JS side must still hear of it.
    shown_len: usize,
}

/// The error of a builder whose registry is disposed.
fn disposed() -> JsValue {
    into_error(
        "ParseboxDisposedError",
        "ParserRegistry used after dispose()",
    )
}

/// A chunk as the page gave it (`{ts, stream, chunk, seq?}` as JSON): the one check both
/// `push` paths make, so a chunk refused on one is refused on the other.
fn chunk_from_json(chunk_json: &str) -> Result<Chunk, JsValue> {
    serde_json::from_str(chunk_json).map_err(|e| {
        into_error(
            "ParseboxChunkError",
            format!("invalid chunk: {e} (a chunk is {{ ts: string, stream: \"stdout\" | \"stderr\" | \"system\", chunk: string, seq?: number }})"),
        )
    })
}

#[wasm_bindgen]
impl TranscriptBuilderCore {
    /// A builder with its own run of `adapter_type` in `host`.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types; `ParseboxDisposedError`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: &HostCore,
        adapter_type: &str,
        options_json: &str,
    ) -> Result<TranscriptBuilderCore, JsValue> {
        let options: BuilderOptions = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid TranscriptBuilder options: {e}"),
            )
        })?;
        let style = options
            .failed_line_entry
            .unwrap_or(FailedLineEntry::ParseError);
        let (run, parser_seen) = {
            let mut s = enter(&host.core)?;
            let run = s
                .host_mut()
                .create_run_showing(adapter_type, style)
                .map_err(|_| disposed())?;
            s.own_run(run);
            s.pump();
            (run, s.host().parser_of(run))
        };
        let parser = HostLine::new(Rc::clone(&host.core), run);
        let timeline = options.timeline.unwrap_or(true).then(LiveTimeline::new);
        let max_bytes = count_option("maxTranscriptBytes", options.max_transcript_bytes)?
            .unwrap_or(parsebox_host::DEFAULT_TRANSCRIPT_BYTES);
        let options = TranscriptOptions {
            redact_home_paths: options.redact_home_paths.unwrap_or(false),
            retain_chunks: true,
            track_lines: true,
            // Unused: the host core settles every line (with the run's style) before the
            // builder sees it, so no line reaches the builder as a failure.
            failed_line_entry: FailedLineEntry::Generic,
            max_chunks: count_option("maxChunks", options.max_chunks)?,
            max_retained_bytes: count_option("maxRetainedBytes", options.max_retained_bytes)?,
            drop_duplicate_chunks: options.drop_duplicate_chunks.unwrap_or(false),
            max_held_bytes: Some(max_bytes),
        };
        Ok(Self {
            inner: TranscriptBuilder::new(parser, options),
            timeline,
            out: Vec::new(),
            finish_when_rebuilt: false,
            trail: Rc::default(),
            parser_seen,
            style,
            max_bytes,
            over_budget_told: 0,
            shown_len: 0,
        })
    }

    /// The run's id in the host core (late answers name it).
    pub fn run(&self) -> f64 {
        self.inner.parser().run().0 as f64
    }

    /// Appends a chunk (`{ts, stream, chunk, seq?}` as JSON); returns two JSON strings,
    /// `{"dropped":n,"from":n,"length":n,"entries":[…]}` (the entries from `from` on changed)
    /// and `{"changed":[…],"added":[…],"removed":[…]}` (the timeline items that changed or were
    /// added, in their wire form, and the ids of those removed); the second is absent when the
    /// builder keeps no timeline. The timeline stops before the first line a Worker has yet to
    /// answer, and goes on when the answer comes or at the next frame ([`LiveTimeline`]).
    ///
    /// # Errors
    /// `ParseboxChunkError` for a malformed chunk.
    ///
    /// `given`: the chunk's id in the list a follower hands over (see
    /// [`follow_from`](Self::follow_from)).
    pub fn push(
        &mut self,
        chunk_json: &str,
        given: Option<f64>,
    ) -> Result<Vec<js_sys::JsString>, JsValue> {
        let chunk = chunk_from_json(chunk_json)?;
        self.make_room(chunk.chunk.len())?;
        self.begin_call();
        let change = self.inner.push_change(&chunk);
        if let Some(id) = given {
            self.trail
                .borrow_mut()
                .give(id as u64, chunk.stream, chunk.chunk.contains('\n'));
        }
        self.changed_going_on(change, false)
    }

    /// Appends a chunk whose text is not well-formed UTF-16 (it holds half a surrogate pair):
    /// `chunk_json` is the chunk as for `push` with an empty text, `units` its text's code
    /// units. A pair split between two stdout chunks is joined, a lone half becomes U+FFFD.
    /// Same result shape as `push`.
    ///
    /// # Errors
    /// `ParseboxChunkError` for a malformed chunk, as `push`.
    #[wasm_bindgen(js_name = pushUtf16)]
    pub fn push_utf16(
        &mut self,
        chunk_json: &str,
        units: &[u16],
        given: Option<f64>,
    ) -> Result<Vec<js_sys::JsString>, JsValue> {
        let chunk = chunk_from_json(chunk_json)?;
        self.make_room(units.len())?;
        self.begin_call();
        let change = self
            .inner
            .push_utf16(&chunk.ts, chunk.stream, units, chunk.seq);
        if let Some(id) = given {
            self.trail.borrow_mut().give(
                id as u64,
                chunk.stream,
                units.contains(&u16::from(b'\n')),
            );
        }
        self.changed_going_on(change, false)
    }

    /// The index in `ids` (a list of chunk ids the page handed over whole) of its first chunk
    /// not pushed yet, or -1 when the list does not go on from the chunks pushed with ids
    /// ([`ChunkTrail::new_from`]).
    #[wasm_bindgen(js_name = followFrom)]
    pub fn follow_from(&self, ids: &[f64]) -> i32 {
        self.trail
            .borrow()
            .new_from(&chunk_ids(ids))
            .and_then(|from| i32::try_from(from).ok())
            .unwrap_or(-1)
    }

    /// Takes `ids` as the list now followed, its new chunks pushed: where it begins, and the
    /// chunks before its first line let go when they are half of those held
    /// ([`ChunkTrail::settle`]). Returns `[moved, ...changes]`: whether the list begins at
    /// another chunk than the last one, then `push`'s result shape when chunks were let go.
    ///
    /// # Errors
    /// `ParseboxChunkError` when the list does not go on from the chunks pushed.
    #[wasm_bindgen(
        js_name = followSettle,
        unchecked_return_type = "[moved: boolean, ...changes: string[]]"
    )]
    pub fn follow_settle(&mut self, ids: &[f64]) -> Result<Vec<JsValue>, JsValue> {
        let settled = self.trail.borrow_mut().settle(&chunk_ids(ids));
        let settled = settled.ok_or_else(|| {
            into_error(
                "ParseboxChunkError",
                "the chunks do not go on from those pushed",
            )
        })?;
        let mut out = vec![JsValue::from_bool(settled.moved)];
        if settled.cut > 0 {
            let cut = self.trail.borrow().cut();
            let change = self.inner.drop_chunks_before(self.retained(cut));
            out.extend(
                self.changed(change, false, false)?
                    .into_iter()
                    .map(JsValue::from),
            );
        }
        Ok(out)
    }

    /// Keeps this builder's run among the runs `buildTranscript` keeps between renders
    /// (`HostCore.keptFollowing` finds it by the lists it was given). Returns the run let go
    /// to stay within the limit (its builder is to be disposed), or -1.
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    pub fn keep(&self) -> Result<f64, JsValue> {
        let run = self.inner.parser().run();
        let mut s = enter(self.inner.parser().core())?;
        let adapter_type = s
            .host()
            .run_type(run)
            .map(str::to_owned)
            .ok_or_else(disposed)?;
        let gone = s.keep_run(run, &adapter_type, Rc::clone(&self.trail));
        Ok(gone.map_or(-1.0, |r| r.0 as f64))
    }

    /// The followed window: `[first]`, the index of its first entry (the entries before it
    /// came from chunks the page no longer hands over); and when the run ends mid-line,
    /// `[first, keep, entriesJson]`: the window as a finish would end it, the run itself going
    /// on (a re-render shows its pending line as Paperclip's finish would), is its first
    /// `keep` entries then these ([`TranscriptBuilder::finished_tail`]). A fresh run of the
    /// type parses the pending line again from where the followed list's first line starts,
    /// or, when the run's lines are answered late, from where the pending line starts
    /// ([`ChunkTrail::replay_from`]).
    ///
    /// # Errors
    /// `ParseboxDisposedError`; `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(
        js_name = followWindow,
        unchecked_return_type = "[first: number, keep?: number, entries?: string]"
    )]
    pub fn follow_window(&mut self) -> Result<Vec<JsValue>, JsValue> {
        let first = self.first_followed_entry();
        let mut out = vec![JsValue::from_f64(first as f64)];
        if !self.inner.has_pending_line() {
            return Ok(out);
        }
        // The replay is a call of the page of its own: its parser time is summed against
        // `callBudgetMs` from here, as a push's is.
        self.begin_call();
        let run = self.inner.parser().run();
        let core = Rc::clone(self.inner.parser().core());
        let (later, tail_run) = {
            let mut s = enter(&core)?;
            let later = s.host().answers_later(run);
            let adapter_type = s
                .host()
                .run_type(run)
                .map(str::to_owned)
                .ok_or_else(disposed)?;
            let tail_run = s
                .host_mut()
                .create_run_showing(&adapter_type, self.style)
                .map_err(|_| disposed())?;
            s.pump();
            (later, tail_run)
        };
        let from = {
            let trail = self.trail.borrow();
            self.retained(trail.cut() + trail.replay_from(later))
        };
        // The tail's run ends with its parser, when `finished_tail` returns.
        let tail = self
            .inner
            .finished_tail(from, HostLine::new(core, tail_run));
        let window = self.inner.entries().len().saturating_sub(first);
        let keep = window - tail.replaced.min(window);
        out.push(JsValue::from_f64(keep as f64));
        out.push(encode(&mut self.out, &tail.entries)?.into());
        Ok(out)
    }

    /// The index of the first entry of the followed list.
    fn first_followed_entry(&self) -> usize {
        let first = {
            let trail = self.trail.borrow();
            trail.cut() + trail.start()
        };
        if first == 0 {
            0
        } else {
            self.inner.first_entry_of_chunk(self.retained(first))
        }
    }

    /// Flushes the pending partial line and ends the timeline's run (calls still pending
    /// become unanswered), completing a rebuild under way first; same result shape as `push`.
    pub fn finish(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        self.narrow();
        self.begin_call();
        self.finish_when_rebuilt = false;
        let changed = self.inner.finish();
        self.changed(PushChange::from_range(changed), true, false)
    }

    /// Re-parses every chunk from scratch (after the adapter's parser changed) and rebuilds
    /// the timeline from it; returns `[{"dropped":0,"from":0,"length":n,"entries":[…]}]` (no
    /// timeline changes: `timeline()` gives the rebuilt one whole). `sliced`: for at most the
    /// registry's `rebuildSliceMs` (when it has one); the rest goes on at the JS side's next
    /// frames (`applyLate`), each slice's changes shaped as `push`'s.
    pub fn rebuild(&mut self, sliced: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        self.narrow();
        self.begin_call();
        let finished = self
            .timeline
            .as_ref()
            .is_some_and(|live| live.timeline().is_finished());
        let mut go_on = slice_limit(self.slice_ms().filter(|_| sliced));
        let complete = self.inner.rebuild_within(&mut go_on);
        self.finish_when_rebuilt = finished && !complete;
        if !complete {
            self.call_back();
        }
        self.record();
        let all = self.inner.entries();
        self.shown_len = all.len();
        if let Some(live) = self.timeline.as_mut() {
            live.rebuilt(&self.inner, finished && complete);
        }
        Ok(vec![encode(
            &mut self.out,
            &Changes {
                dropped: 0,
                from: 0,
                length: all.len(),
                entries: all,
            },
        )?])
    }

    /// Re-parses every chunk when the run's parser is another than at the last call or when
    /// the builder was made ([`Host::parser_of`](parsebox_host::Host::parser_of)): then
    /// `rebuild(false)`'s result, else `[]`. A follower calls it on each render.
    ///
    /// # Errors
    /// `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = followParser)]
    pub fn follow_parser(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        let run = self.inner.parser().run();
        let now = enter(self.inner.parser().core())?.host().parser_of(run);
        if now == self.parser_seen {
            return Ok(Vec::new());
        }
        self.parser_seen = now;
        self.rebuild(false)
    }

    /// The JS side's frame: folds in the late answers the core holds for this builder's run
    /// (one fold for all of them), goes on with a rebuild under way for one slice, and places
    /// in the timeline the lines that have waited across a frame; same result shape as
    /// `push`, or `[]` when nothing changed (no listener needs to hear of it).
    #[wasm_bindgen(js_name = applyLate)]
    pub fn apply_late(&mut self) -> Result<Vec<js_sys::JsString>, JsValue> {
        let (answers, more) = {
            let run = self.inner.parser().run();
            let mut s = enter(self.inner.parser().core())?;
            s.take_answers(run)
        };
        if more {
            // The rest of a big frame's worth is folded in at the next frame.
            self.call_back();
        }
        self.narrow();
        let changed = self.inner.replace_answers(answers);
        self.changed_going_on(PushChange::from_range(changed), true)
    }

    /// Turns redaction of home paths on or off without re-parsing; same result shape as
    /// `push` (every entry changed when the setting did).
    #[wasm_bindgen(js_name = setRedactHomePaths)]
    pub fn set_redact_home_paths(&mut self, on: bool) -> Result<Vec<js_sys::JsString>, JsValue> {
        let changed = self.inner.set_redact_home_paths(on);
        self.changed(PushChange::from_range(changed), false, false)
    }

    /// What the builder holds and has let go of (`BuilderCounts` as JSON).
    pub fn counts(&self) -> Result<String, JsValue> {
        to_json(&self.inner.counts())
    }

    /// The index among the retained chunks of the chunk given with `n` before it (the builder
    /// may have let go of fewer chunks than the trail: it keeps whole entries).
    fn retained(&self, n: usize) -> usize {
        let dropped = usize::try_from(self.inner.counts().dropped_chunks).unwrap_or(usize::MAX);
        n.saturating_sub(dropped)
    }

    /// Narrows the transcript's budget to what it may hold now: its own `maxTranscriptBytes`,
    /// or less when the registry's `maxTranscriptBytesTotal`, shared with its other
    /// transcripts, leaves it less ([`Host::transcript_room`](parsebox_host::Host::transcript_room)).
    /// A line past it shows its generic entry. Returns what the registry leaves it.
    fn narrow(&mut self) -> usize {
        let run = self.inner.parser().run();
        let room = self
            .inner
            .parser()
            .core()
            .enter()
            .map_or(self.max_bytes, |s| s.host().transcript_room(run));
        self.inner
            .set_max_held_bytes(Some(self.max_bytes.min(room)));
        room
    }

    /// [`narrow`](Self::narrow), then refuses a chunk of `bytes` that cannot fit, before any
    /// line of it is parsed (counted in the type's `host.refusedChunks`).
    fn make_room(&mut self, bytes: usize) -> Result<(), JsValue> {
        let room = self.narrow();
        if self.inner.has_room_for(bytes) {
            return Ok(());
        }
        let run = self.inner.parser().run();
        let (held, max) = (self.inner.held_bytes(), self.max_bytes);
        if let Ok(mut s) = self.inner.parser().core().enter() {
            s.host_mut().record_refused_chunk(run);
        }
        let mib = |b: usize| format!("{:.1} MiB", b as f64 / f64::from(1 << 20));
        Err(into_error(
            "ParseboxMemoryError",
            format!(
                "this transcript holds {} and may hold {} ({}); a chunk of {} more does not fit. Dispose transcripts no longer shown, or raise the budget",
                mib(held),
                mib(max.min(room)),
                if room < max {
                    "what the registry's maxTranscriptBytesTotal leaves it beside its other transcripts"
                } else {
                    "maxTranscriptBytes"
                },
                mib(bytes)
            ),
        ))
    }

    /// Tells the core what the transcript holds now, and how many more lines its budget showed
    /// generic.
    fn record(&mut self) {
        let run = self.inner.parser().run();
        let counts = self.inner.counts();
        let over = counts
            .over_budget_lines
            .saturating_sub(self.over_budget_told);
        if let Ok(mut s) = self.inner.parser().core().enter() {
            s.host_mut().record_transcript(run, counts.held_bytes, over);
            self.over_budget_told = counts.over_budget_lines;
        }
    }

    /// Tells the core a call of the page begins: the parser time of what follows is summed
    /// against the registry's `callBudgetMs`.
    fn begin_call(&self) {
        if let Ok(mut s) = self.inner.parser().core().enter() {
            s.host_mut().begin_call();
        }
    }

    /// The registry's `rebuildSliceMs` (`None`: rebuilds run whole, or the registry is gone).
    fn slice_ms(&self) -> Option<f64> {
        let s = self.inner.parser().core().enter().ok()?;
        s.host().options().rebuild_slice_ms
    }

    /// Whether a rebuild under way may re-parse its next slice now (the host core holds it
    /// while a Worker is far behind on the run's lines: [`parsebox_host::Host::rebuild_may_go_on`]).
    fn may_go_on(&self) -> bool {
        let run = self.inner.parser().run();
        self.inner
            .parser()
            .core()
            .enter()
            .is_ok_and(|s| s.host().rebuild_may_go_on(run))
    }

    /// Asks to be called back (`applyLate`) at the JS side's next frame.
    fn call_back(&self) {
        let run = self.inner.parser().run();
        if let Ok(mut s) = self.inner.parser().core().enter() {
            s.call_builder_back(run);
        }
    }

    /// [`changed`](Self::changed) after one more slice of a rebuild under way (if any), which
    /// may end the timeline's run (a rebuild of a finished run) or ask for the next frame.
    fn changed_going_on(
        &mut self,
        mut change: PushChange,
        at_frame: bool,
    ) -> Result<Vec<js_sys::JsString>, JsValue> {
        if self.inner.is_rebuilding() && self.may_go_on() {
            let resumed = self.inner.resume(&mut slice_limit(self.slice_ms()));
            change.changed = if change.changed.is_empty() {
                resumed
            } else {
                change.changed.start.min(resumed.start)..self.inner.entries().len()
            };
        }
        if self.inner.is_rebuilding() {
            self.call_back();
        }
        let finishing =
            !self.inner.is_rebuilding() && std::mem::take(&mut self.finish_when_rebuilt);
        self.changed(change, finishing, at_frame)
    }

    /// The whole transcript as a JSON array.
    pub fn entries(&self) -> Result<String, JsValue> {
        to_json(&self.inner.entries())
    }

    /// The whole timeline as a JSON array of items.
    ///
    /// # Errors
    /// `ParseboxOptionsError` when the builder was made with `timeline: false`.
    pub fn timeline(&self) -> Result<String, JsValue> {
        match &self.timeline {
            Some(live) => to_json(&live.timeline().items()),
            None => Err(into_error(
                "ParseboxOptionsError",
                "this TranscriptBuilder keeps no timeline (it was made with timeline: false)",
            )),
        }
    }

    /// Brings the timeline up to date with the transcript after a change to `range` (at a
    /// frame of the JS side with `at_frame`; ends its run with `finishing`), asks for the next
    /// frame while it waits for lines still to be answered, and serialises what changed:
    /// `[changes]`, or with a timeline `[changes, timelineChanges]`; at a frame, `[]` when
    /// nothing did. Two strings, not one: the items' wire form is mostly ASCII (their texts are
    /// references to entries), so JS decodes and parses it as a one-byte string, which an
    /// entry's one non-Latin-1 character would prevent in a shared string (measured: a fifth
    /// less time to decode and parse).
    fn changed(
        &mut self,
        change: PushChange,
        finishing: bool,
        at_frame: bool,
    ) -> Result<Vec<js_sys::JsString>, JsValue> {
        self.record();
        let PushChange {
            dropped,
            changed: range,
        } = change;
        let base = self.inner.window_base();
        let inner = &self.inner;
        let mut lags = false;
        let timeline = self.timeline.as_mut().map(|live| {
            let update = if at_frame {
                live.sync_at_frame(inner, range.clone(), finishing)
            } else {
                live.sync(inner, &dropped, range.clone(), finishing)
            };
            lags = live.lags(inner);
            update
        });
        if lags {
            self.call_back();
        }
        let all = self.inner.entries();
        let quiet = range.is_empty()
            && range.start > 0
            && dropped.is_empty()
            && all.len() == self.shown_len;
        if at_frame && quiet && timeline.as_ref().is_none_or(TimelineUpdate::is_empty) {
            return Ok(Vec::new());
        }
        self.shown_len = all.len();
        let mut out = vec![encode(
            &mut self.out,
            &Changes {
                dropped: dropped.len(),
                from: range.start,
                length: all.len(),
                entries: all.get(range).unwrap_or(&[]),
            },
        )?];
        if let Some((live, update)) = self.timeline.as_ref().zip(timeline) {
            let changes = TimelineChanges::of(live.timeline(), update, all, base);
            out.push(encode(&mut self.out, &changes)?);
        }
        Ok(out)
    }
}
