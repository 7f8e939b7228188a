// TranscriptBuilder: a run's transcript built chunk by chunk (TranscriptBuilderCore, over a run
// of the registry's core), with late answers from Worker engines folded in once per frame. The
// core keeps the run's timeline beside it; this file only hands its changes on.
import { disposable } from "./dispose.js";
import { TranscriptBuilderCore } from "./parsebox_wasm.js";
import { applyChanges } from "./changes.js";
import { encodeChunk } from "./chunk.js";
import { ParseboxDisposedError, ParseboxOptionsError, callEach, guarded, lostCoreError } from "./errors.js";
import { holdsCore } from "./instance.js";
import { checkOptions, checkString } from "./options.js";
import { ParserRegistry } from "./registry.js";

/** The text an entry shows: a tool result's `content`, any other entry's `text`. */
const textOf = (entry) => (entry.kind === "tool_result" ? entry.content : entry.text);

/**
 * Puts back the texts the core did not repeat: in an item off the wire, a number where a text
 * belongs (`content`, the `text` of its card's pieces and of its diff lines) is the index in
 * `entries` of the entry whose text it is, and a number as `timestamp` the entry whose `ts` it
 * is (`TimelineItem::sharing_texts` in the core).
 */
function withTexts(item, entries) {
  if (typeof item.timestamp === "number") item.timestamp = entries[item.timestamp].ts;
  if (typeof item.content === "number") item.content = textOf(entries[item.content]);
  for (const piece of item.toolCall?.content ?? []) if (typeof piece.text === "number") piece.text = textOf(entries[piece.text]);
  for (const line of item.diff ?? []) if (typeof line.text === "number") line.text = textOf(entries[line.text]);
}

/**
 * A run's transcript, built chunk by chunk with Paperclip's `buildTranscript` semantics, and its
 * render-ready timeline; each `push` costs work proportional to the chunk and returns what
 * changed in both.
 */
export class TranscriptBuilder {
  #registry;
  #core;
  #run;
  #entries = [];
  #disposed = false;
  #lost = false; // made on a core that trapped (instance.js)
  #releaseCore;
  #listeners = new Set();

  constructor(registry, type, options) {
    if (!(registry instanceof ParserRegistry)) throw new ParseboxOptionsError("TranscriptBuilder needs a ParserRegistry");
    checkString(type, "type");
    const json = JSON.stringify(checkOptions("TranscriptBuilder", options));
    this.#registry = registry;
    this.#core = guarded(() => new TranscriptBuilderCore(registry._core(), type, json));
    this.#run = this.#core.run();
    this.#releaseCore = holdsCore(this);
    registry._builder(this.#run, this);
  }

  /** @internal The core this builder was made on trapped: let go of its object, call it no more. */
  _coreLost() {
    this.#lost = true;
    this.#core.__destroy_into_raw();
  }

  /**
   * Calls `listener({ from, entries, timeline })` (at most once per animation frame) when late
   * answers from a Worker engine changed entries in place, or the timeline placed lines it had
   * waited for: `entries` are those from index `from` on, `timeline` the items that changed,
   * were added or removed, and the entry indices that moved (`moved`: an answer gave its line
   * another number of entries than the generic one).
   */
  onUpdate(listener) {
    if (typeof listener !== "function") throw new ParseboxOptionsError("onUpdate needs a function");
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * @internal The registry's frame: the core folded in this run's late answers (and went on
   * with a rebuild under way, and placed the lines the timeline waited for); `result` is what
   * changed, shaped as `push`'s.
   */
  _applyUpdate(result) {
    if (this.#disposed || this.#lost) return;
    callEach(this.#listeners, this.#apply(result));
  }

  #live() {
    if (this.#disposed) throw new ParseboxDisposedError("TranscriptBuilder used after dispose()");
    if (this.#lost) throw lostCoreError("TranscriptBuilder");
    this.#registry._core(); // throws once the registry is disposed
  }

  /** Takes in what a call of the core returned: the entries' changes and the timeline's (JSON). */
  #apply([changes, timelineChanges]) {
    const change = JSON.parse(changes);
    const { dropped, from } = change;
    let { entries } = change;
    if (applyChanges(this.#entries, change) > 0) entries = this.#entries.slice(from); // an update says every entry from `from` on
    if (timelineChanges === undefined) return { dropped, from, entries };
    const timeline = JSON.parse(timelineChanges);
    for (const item of timeline.changed) withTexts(item, this.#entries);
    for (const item of timeline.added) withTexts(item, this.#entries);
    return { dropped, from, entries, timeline };
  }

  #call(fn) {
    this.#live();
    const update = this.#apply(guarded(fn));
    return update;
  }

  /**
   * Appends a chunk; returns `{ dropped, from, entries, timeline }`: how many entries left the
   * front of the window (`maxChunks`, `maxRetainedBytes`), the entries from index `from` that
   * changed, and the timeline's `{ changed, added, removed, moved? }` (items, items, ids, index
   * moves).
   */
  push(chunk) {
    this.#live();
    const [json, units] = encodeChunk(chunk);
    return this.#call(() => (units ? this.#core.pushUtf16(json, units) : this.#core.push(json)));
  }

  /** @internal This builder's run in the core. */
  get _run() {
    return this.#run;
  }

  /**
   * Turns redaction of home paths on or off without re-parsing the run; returns the update
   * (every entry, when the setting changed).
   */
  setRedactHomePaths(on) {
    if (typeof on !== "boolean") throw new ParseboxOptionsError("setRedactHomePaths needs a boolean");
    return this.#call(() => this.#core.setRedactHomePaths(on));
  }

  /** What the builder holds and has let go of (the window, dropped and duplicate chunks), and the slices rebuilds went on with. */
  counts() {
    this.#live();
    return JSON.parse(guarded(() => this.#core.counts()));
  }

  /** Ends the run: flushes the partial last line; calls never answered become `unanswered`. */
  finish() {
    return this.#call(() => this.#core.finish());
  }

  /**
   * Re-parses the whole run (call it when `onChange` says the adapter's parser changed) and
   * returns the transcript; `timeline()` then gives the rebuilt timeline. With the registry's
   * `rebuildSliceMs` (the browser's default: 8 ms) it returns what was re-parsed within that
   * time, and the rest arrives through `onUpdate` in later frames (`registry.idle()` waits for
   * it); chunks pushed meanwhile are parsed in their turn.
   */
  rebuild() {
    this.#call(() => this.#core.rebuild(true));
    return this.entries();
  }

  /** The whole transcript so far (after the core stopped, what the builder held then). */
  entries() {
    if (!this.#lost) this.#live();
    else if (this.#disposed) throw new ParseboxDisposedError("TranscriptBuilder used after dispose()");
    return this.#entries.slice();
  }

  /** The whole timeline so far: every item, in order (throws when made with `timeline: false`). */
  timeline() {
    this.#live();
    return JSON.parse(guarded(() => this.#core.timeline()));
  }

  /** Frees the builder and its run. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    this.#releaseCore();
    if (this.#lost) return; // nothing of it is left in the fresh core
    this.#registry._builder(this.#run, null);
    try {
      this.#core.free(); // drops the run in the core
    } catch {
      // Freed from inside one of its own calls: the finalizer frees it later.
    }
  }
}
disposable(TranscriptBuilder);
