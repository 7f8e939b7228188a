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
  #seen = []; // every chunk object pushed, in order
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
      this.#builder.rebuild();
      changed = true;
    }
    for (let i = this.#seen.length - k; i < chunks.length; i++) {
      this.#builder.push(chunks[i]);
      this.#seen.push(chunks[i]);
      changed = true;
    }
    this.#start = k;
    if (changed) this.#transcript = null;
    return changed;
  }

  /**
   * The transcript of the last list, as Paperclip's buildTranscript gives it (a partial last
   * line parsed as the end of the run); the same array until something changes. Finishing would
   * end this builder, so a partial line is finished on a throwaway one.
   */
  transcript() {
    if (this.#transcript) return this.#transcript;
    if (!this.#builder._hasPendingLine()) return (this.#transcript = this.#window(this.#builder));
    const once = this.#make();
    try {
      for (const c of this.#seen) once.push(c);
      once.finish();
      return (this.#transcript = this.#window(once));
    } finally {
      once.dispose();
    }
  }

  #window(builder) {
    const entries = builder.entries();
    return this.#start === 0 ? entries : entries.slice(builder._firstEntryOfChunk(this.#start));
  }

  dispose() {
    this.#listeners.clear();
    this.#builder.dispose();
  }
}
