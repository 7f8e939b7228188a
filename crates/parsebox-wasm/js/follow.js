// Following a run whose chunk list is handed over whole on every render (Paperclip's
// buildTranscript and the React hook): one TranscriptBuilder, fed only the chunks it has not seen.
import { TranscriptBuilder } from "./builder.js";

/**
 * One run's builder and the chunk objects it was given. A later list that begins with the same
 * objects costs only its new chunks; late answers from a Worker land in the builder in place.
 */
export class RunFollower {
  #registry;
  #type;
  #redact;
  #builder;
  #chunks = [];
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

  #make() {
    return new TranscriptBuilder(this.#registry, this.#type, { redactHomePaths: this.#redact });
  }

  /** Whether this follows `type` with `redact`, and `chunks` begins with the chunks seen so far. */
  continues(type, redact, chunks) {
    if (type !== this.#type || redact !== this.#redact || this.#chunks.length > chunks.length) return false;
    return this.#chunks.every((c, i) => c === chunks[i]);
  }

  /** Calls `listener` when late answers changed the transcript; returns unsubscribe. */
  onUpdate(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Takes `chunks` (which `continues` from what was seen): pushes the new ones, re-parsing the
   * run when the type's parser changed since. Returns whether the transcript may have changed.
   */
  follow(chunks) {
    const parser = this.#parser();
    let changed = false;
    if (parser !== this.#parserSeen) {
      this.#parserSeen = parser;
      this.#builder.rebuild();
      changed = true;
    }
    for (let i = this.#chunks.length; i < chunks.length; i++) this.#builder.push(chunks[i]);
    if (chunks.length !== this.#chunks.length) changed = true;
    this.#chunks = chunks.slice();
    if (changed) this.#transcript = null;
    return changed;
  }

  /**
   * The transcript so far with a partial last line parsed as the end of the run, as Paperclip's
   * buildTranscript gives it; the same array until something changes. Finishing would end this
   * builder, so a partial line is finished on a throwaway one.
   */
  transcript() {
    if (this.#transcript) return this.#transcript;
    if (!this.#builder._hasPendingLine()) return (this.#transcript = this.#builder.entries());
    const once = this.#make();
    try {
      for (const c of this.#chunks) once.push(c);
      once.finish();
      return (this.#transcript = once.entries());
    } finally {
      once.dispose();
    }
  }

  dispose() {
    this.#listeners.clear();
    this.#builder.dispose();
  }
}
