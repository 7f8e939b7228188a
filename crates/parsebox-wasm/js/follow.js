// Following a run whose chunk list is handed over whole on every render (Paperclip's
// buildTranscript and the React hook): one TranscriptBuilder, fed only the chunks it has not seen.
import { TranscriptBuilder } from "./builder.js";

/**
 * One run's builder and the chunk objects it was given. A later list that goes on from the same
 * objects costs only its new chunks, also when it is a window that dropped chunks at its start
 * (Paperclip's run view keeps the last 200): the run goes on, and the transcript is the entries
 * of the window's chunks. Late answers from a Worker land in the builder in place.
 */
export class RunFollower {
  #registry;
  #type;
  #redact;
  #builder;
  #seen = []; // the chunk objects pushed, in order, from the first one a list may still need
  #base = 0; // chunks pushed before #seen[0]
  #start = 0; // where in #seen the last list began
  #parserSeen;
  #transcript = null;
  #listeners = new Set();

  constructor(registry, type, redact) {
    this.#registry = registry;
    this.#type = type;
    this.#redact = redact;
    this.#builder = this.#make();
    this.#parserSeen = this.#parser();
    this.#builder.onUpdate(() => {
      this.#transcript = null;
      for (const l of [...this.#listeners]) l();
    });
  }

  /** Which parser answers the type: a new one (or one now ready) means re-parsing the run. */
  #parser() {
    const { generation, state } = this.#registry.status(this.#type);
    return `${generation}:${state}`;
  }

  /** Paperclip's callers read entries only: no timeline (with a built-in parser it adds a fifth to each push). */
  #make() {
    return new TranscriptBuilder(this.#registry, this.#type, { redactHomePaths: this.#redact, timeline: false });
  }

  /**
   * Where `chunks` begins in the chunks seen, when it goes on from them (every chunk they share
   * is the same object, in order, and it reaches their end or beyond); -1 otherwise.
   */
  #offset(chunks) {
    if (chunks.length === 0) return this.#seen.length === 0 ? 0 : -1;
    if (this.#seen.length === 0) return 0;
    const k = this.#seen.indexOf(chunks[0], this.#start);
    if (k < 0) return -1;
    const shared = this.#seen.length - k;
    if (chunks.length < shared) return -1;
    for (let i = 1; i < shared; i++) if (this.#seen[k + i] !== chunks[i]) return -1;
    return k;
  }

  /** Whether this follows `type`, and `chunks` goes on from the chunks seen. */
  continues(type, chunks) {
    return type === this.#type && this.#offset(chunks) >= 0;
  }

  /** Calls `listener` when late answers changed the transcript; returns unsubscribe. */
  onUpdate(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Takes `chunks` (which `continues` from what was seen): pushes the new ones, re-parsing the
   * run when the type's parser changed since, and switching redaction (without a re-parse) to
   * `redact`. Returns whether the transcript may have changed.
   */
  follow(chunks, redact = this.#redact) {
    const k = this.#offset(chunks);
    if (k < 0) throw new RangeError("RunFollower.follow: the chunks do not go on from those seen");
    let changed = k !== this.#start;
    if (redact !== this.#redact) {
      this.#redact = redact;
      this.#builder.setRedactHomePaths(redact);
      changed = true;
    }
    const parser = this.#parser();
    if (parser !== this.#parserSeen) {
      this.#parserSeen = parser;
      this.#builder._rebuildWhole(); // its chunks are about the list's: no need to slice
      changed = true;
    }
    for (let i = this.#seen.length - k; i < chunks.length; i++) {
      this.#builder.push(chunks[i]);
      this.#seen.push(chunks[i]);
      changed = true;
    }
    this.#start = k;
    // Chunks before the line the list begins in are never read again: let go of them, here
    // and in the builder (in halves, so the copying stays in proportion to the pushes). A
    // rebuild then re-parses from there, as Paperclip parses the list with a fresh parser.
    const cut = this.#lineStart(k);
    if (cut > 0 && cut * 2 >= this.#seen.length) {
      this.#builder._dropChunksBefore(this.#base + cut - this.#builder.counts().droppedChunks);
      this.#seen.splice(0, cut);
      this.#base += cut;
      this.#start -= cut;
    }
    if (changed) this.#transcript = null;
    return changed;
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
    const entries = this.#window();
    if (!this.#builder._hasPendingLine()) return (this.#transcript = entries);
    // Where a Worker answers, the throwaway's lines show the generic entry (their answers come
    // after it is gone): it is fed the last line's chunks only. Fed the list, it would hand the
    // Worker the whole list again on every render, faster than it can answer.
    const { host, state } = this.#registry.status(this.#type);
    const later = host === "worker" && state === "ready";
    const first = this.#lineStart(later ? this.#seen.length : this.#start);
    const once = this.#make();
    try {
      for (let i = first; i < this.#seen.length; i++) once.push(this.#seen[i]);
      const before = once.entries().length;
      const { from, entries: last } = once.finish();
      const kept = entries.length - Math.min(before - from, entries.length);
      return (this.#transcript = entries.slice(0, kept).concat(last));
    } finally {
      once.dispose();
    }
  }

  /** The index in the chunks seen where the line that chunk `k` goes on with began. */
  #lineStart(k) {
    for (let i = k - 1; i >= 0; i--) {
      const c = this.#seen[i];
      if (c.stream === "stdout" && c.chunk.includes("\n")) return i;
    }
    return 0;
  }

  /** This run's entries of the last list's chunks. */
  #window() {
    const entries = this.#builder.entries();
    // As the builder counts its retained chunks (it drops none before the first cut).
    const first = this.#base + this.#start - (this.#base && this.#builder.counts().droppedChunks);
    return first === 0 ? entries : entries.slice(this.#builder._firstEntryOfChunk(first));
  }

  dispose() {
    this.#listeners.clear();
    this.#builder.dispose();
  }
}
