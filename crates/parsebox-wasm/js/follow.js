// Following a run whose chunk list is handed over whole on every render (Paperclip's
// buildTranscript and the React hook): one TranscriptBuilder, fed only the chunks it has not seen.
import { TranscriptBuilder } from "./builder.js";
import { ParseboxMemoryError, callEach } from "./errors.js";

const idOfChunk = new WeakMap();
let nextChunkId = 1;

/**
 * The chunks' ids: one number per chunk object, the same every time it is handed over (0 for
 * what is no object: no chunk pushed has it, and pushing it throws).
 */
export function chunkIds(chunks) {
  const ids = new Float64Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i];
    if (c === null || typeof c !== "object") continue;
    let id = idOfChunk.get(c);
    if (id === undefined) idOfChunk.set(c, (id = nextChunkId++));
    ids[i] = id;
  }
  return ids;
}

/**
 * One run's builder. A later list that goes on from the same
 * objects costs only its new chunks, also when it is a window that dropped chunks at its start
 * (Paperclip's run view keeps the last 200): the run goes on, and the transcript is the entries
 * of the window's chunks. Late answers from a Worker land in the builder in place. Which chunks
 * are new, where the list begins, what can be let go and how the pending line shows are the
 * core's to say (`ChunkTrail`, `finished_tail`).
 */
export class RunFollower {
  #redact;
  #builder;
  #transcript = null;
  #listeners = new Set();

  constructor(registry, type, redact) {
    this.#redact = redact;
    // Paperclip's callers read entries only: no timeline (with a built-in parser it adds a fifth to each push).
    this.#builder = new TranscriptBuilder(registry, type, { redactHomePaths: redact, timeline: false });
    this.#builder.onUpdate(() => {
      this.#transcript = null;
      callEach(this.#listeners);
    });
  }

  /** Whether the chunks named `ids` (`chunkIds`) go on from the chunks seen. */
  continues(ids) {
    return this.#builder._followFrom(ids) >= 0;
  }

  /** The run this follows, in the registry's core. */
  get run() {
    return this.#builder._run;
  }

  /** Keeps the run for `buildTranscript` (the core); returns the run let go past its limit, or -1. */
  keep() {
    return this.#builder._keep();
  }

  /** Calls `listener` when late answers changed the transcript; returns unsubscribe. */
  onUpdate(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Takes `chunks` (which `continues` from what was seen): pushes the new ones, re-parsing the
   * run when the type's parser changed since, and switching redaction (without a re-parse) to
   * `redact`. Returns whether the transcript may have changed. `ids`: `chunkIds(chunks)`, when
   * the caller has them already.
   */
  follow(chunks, redact = this.#redact, ids = chunkIds(chunks)) {
    const from = this.#builder._followFrom(ids);
    if (from < 0) throw new RangeError("RunFollower.follow: the chunks do not go on from those seen");
    let changed = from < chunks.length;
    if (redact !== this.#redact) {
      this.#redact = redact;
      this.#builder.setRedactHomePaths(redact);
      changed = true;
    }
    // A new parser for the type (or one now ready) re-parses the run: the core decides.
    if (this.#builder._followParser()) changed = true;
    try {
      for (let i = from; i < chunks.length; i++) this.#builder._pushGiven(chunks[i], ids[i]);
    } catch (e) {
      // The transcript is full (its budget, counted in diagnostics): it shows what it holds,
      // and a render does not throw. The chunks not taken are asked for again next time.
      if (!(e instanceof ParseboxMemoryError)) throw e;
      this.#transcript = null;
      return true;
    }
    const moved = this.#builder._followSettle(ids);
    if (changed || moved) this.#transcript = null;
    return changed || moved;
  }

  /**
   * The transcript of the last list, as Paperclip's buildTranscript gives it (a partial last
   * line parsed as the end of the run); the same array until something changes. Finishing would
   * end this run, so the partial line is finished on a throwaway builder fed the list from where
   * its first line began: a render costs work in proportion to the list, as it does in Paperclip
   * (Paperclip's server cuts chunks every 8,192 code units, so most lists end mid-line), never a
   * replay of the run. The entries of complete lines are this run's; the finish's own change
   * (the last line's entries, and a streamed entry it joins) is the throwaway's, whose parser
   * state is the list's, as in Paperclip, where each render parses the list with a fresh parser.
   */
  transcript() {
    if (this.#transcript) return this.#transcript;
    const all = this.#builder.entries();
    const { first, keep, last } = this.#builder._followWindow();
    const entries = first === 0 ? all : all.slice(first);
    // A window ending mid-line shows its pending line as Paperclip's finish would, the run
    // going on: the core parses it again in a fresh run.
    return (this.#transcript = last ? entries.slice(0, keep).concat(last) : entries);
  }

  dispose() {
    this.#listeners.clear();
    this.#builder.dispose();
  }
}
