// Following a run whose chunk list is handed over whole on every render (Paperclip's
// buildTranscript and the React hook): the JS numbers chunk objects and encodes the chunks the
// core asks for; which chunks are new, when the run starts anew, what can be let go and what a
// render shows are the core's (`FollowedRun`).
import { disposable } from "./dispose.js";
import { applyChanges } from "./changes.js";
import { chunkIds, encodeChunk } from "./chunk.js";
import { FollowedRunCore } from "./parsebox_wasm.js";
import { ParseboxDisposedError, callEach, guarded, lostCoreError } from "./errors.js";
import { holdsCore } from "./instance.js";

/**
 * Applies what the core says changed (`Shown`: `{ dropped, from, length, entries, first, keep,
 * tail }`) to `copy`, the page's copy of a followed run's entries, and returns the window a
 * render shows: the copy's entries from `first` on (the first `keep` of them, when the list
 * ends mid-line), then `tail`. Mechanical: the core decided every number.
 */
export function applyShown(copy, shown) {
  applyChanges(copy, shown);
  const { first, keep, tail } = shown;
  const window = keep === null ? copy.slice(first) : copy.slice(first, first + keep);
  for (const e of tail) window.push(e);
  return window;
}

/**
 * One followed run (the React hook's store). A later list that goes on from the same objects
 * costs only its new chunks, also when it is a window that dropped chunks at its start
 * (Paperclip's run view keeps the last 200); a list that does not starts the run anew. Late
 * answers from a Worker land in place, and `onUpdate` listeners hear of them.
 */
export class RunFollower {
  #registry;
  #core;
  #run;
  #entries = []; // the page's copy of the run's entries
  #window = [];
  #listeners = new Set();
  #disposed = false;
  #lost = false; // made on a core that trapped (instance.js)
  #releaseCore;

  constructor(registry, type, redact) {
    this.#registry = registry;
    this.#core = guarded(() => new FollowedRunCore(registry._core(), type, redact));
    this.#releaseCore = holdsCore(this);
    this.#route();
  }

  /** Routes the late answers of the core's run (another after a restart) here. */
  #route() {
    const run = this.#core.run();
    if (run === this.#run) return;
    if (this.#run !== undefined) this.#registry._builder(this.#run, null);
    this.#run = run;
    this.#registry._builder(run, this);
  }

  /** @internal The core this follower was made on trapped: let go of its object, call it no more. */
  _coreLost() {
    this.#lost = true;
    this.#core.__destroy_into_raw();
  }

  #live() {
    if (this.#disposed) throw new ParseboxDisposedError("RunFollower used after dispose()");
    if (this.#lost) throw lostCoreError("RunFollower");
    this.#registry._core(); // throws once the registry is disposed
  }

  /** Calls `listener` when late answers changed the transcript; returns unsubscribe. */
  onUpdate(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** @internal The registry's frame folded late answers into this run, and its window changed. */
  _changed() {
    if (!this.#disposed && !this.#lost) callEach(this.#listeners);
  }

  /**
   * Takes `chunks` as the list now followed, with home paths redacted when `redact`; returns
   * whether the transcript may have changed. `ids`: `chunkIds(chunks)`, when the caller has
   * them already.
   */
  follow(chunks, redact, ids = chunkIds(chunks)) {
    this.#live();
    const changed = guarded(() => this.#core.follow(ids, redact, (i) => encodeChunk(chunks[i])));
    this.#route();
    return changed;
  }

  /**
   * The transcript of the last list, as Paperclip's buildTranscript gives it (a partial last
   * line parsed as the end of the run, the run itself going on); the same array until something
   * changes.
   */
  transcript() {
    this.#live();
    const shown = guarded(() => this.#core.shown());
    if (shown !== undefined) this.#window = applyShown(this.#entries, JSON.parse(shown));
    return this.#window;
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    this.#releaseCore();
    if (this.#lost) return;
    this.#registry._builder(this.#run, null);
    try {
      this.#core.free(); // ends the run in the core
    } catch {
      // Freed from inside one of its own calls: the finalizer frees it later.
    }
  }
}
disposable(RunFollower);
