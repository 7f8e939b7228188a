// TranscriptBuilder: a run's transcript built chunk by chunk (TranscriptBuilderCore), with late
// answers from the worker host folded in once per frame.
import { TranscriptBuilderCore } from "./parsebox_wasm.js";
import { ParseboxChunkError, ParseboxDisposedError, ParseboxOptionsError, rethrow } from "./errors.js";
import { currentGeneration, reaper, release, track } from "./instance.js";
import { checkOptions, checkString } from "./options.js";
import { ParserRegistry } from "./registry.js";


const STREAMS = new Set(["stdout", "stderr", "system"]);

/**
 * A run's transcript, built chunk by chunk with Paperclip's `buildTranscript` semantics; each
 * `push` costs work proportional to the chunk and returns what changed.
 */
export class TranscriptBuilder {
  #registry;
  #type;
  #options;
  #core = null;
  #generation = -1;
  #chunks = [];
  #finished = false;
  #entries = [];
  #disposed = false;
  #worker = null; // the worker host answering this builder's lines, once the type moved there
  #runKey = null;
  #updateFrom = Infinity; // smallest entry index changed by late answers since the last frame
  #answers = []; // [generation, item, entriesJson] from the worker, applied once per frame
  #listeners = new Set();
  #unhookFrame;

  constructor(registry, type, options) {
    if (!(registry instanceof ParserRegistry)) throw new ParseboxOptionsError("TranscriptBuilder needs a ParserRegistry");
    checkString(type, "type");
    this.#options = JSON.stringify(checkOptions(options, { redactHomePaths: "boolean" }, "TranscriptBuilder"));
    this.#registry = registry;
    this.#type = type;
    this.#unhookFrame = registry._onFrame(() => this.#flushUpdates());
    this.#bind();
  }

  /**
   * Calls `listener({ from, entries })` (at most once per animation frame) when late answers
   * from the worker host changed entries in place: `entries` are those from index `from` on.
   */
  onUpdate(listener) {
    if (typeof listener !== "function") throw new ParseboxOptionsError("onUpdate needs a function");
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #flushUpdates() {
    if (this.#disposed) return;
    if (this.#answers.length) {
      // One fold for the whole frame's answers (each answer alone would re-fold the tail).
      const generation = this.#core.generation();
      const current = this.#answers.filter(([g]) => g === generation);
      this.#answers = [];
      if (current.length) {
        // [[item, line, ts, outcome], …]: the core settles each with the registry's limits.
        const payload = `[${current.map(([, item, line, ts, outcome]) => `[${item},${JSON.stringify(line)},${JSON.stringify(ts)},${outcome}]`).join(",")}]`;
        const { from } = this.#apply(this.#core.replaceLines(generation, payload));
        this.#updateFrom = Math.min(this.#updateFrom, from);
      }
    }
    if (this.#updateFrom === Infinity) return;
    const from = this.#updateFrom;
    this.#updateFrom = Infinity;
    const update = { from, entries: this.#entries.slice(from) };
    for (const l of [...this.#listeners]) l(update);
  }

  /** Follows the type to the worker host: later lines are answered there, in place. */
  #syncWorker() {
    const worker = this.#registry._worker(this.#type);
    if (worker === this.#worker) return;
    this.#worker = worker;
    if (worker) {
      this.#runKey = this.#registry._runKey();
      this.#core.setDeferred(true);
      worker.prime(this.#runKey, JSON.parse(this.#core.lineHistory()));
    } else {
      this.#runKey = null;
      this.#core.setDeferred(false);
    }
  }

  /** Sends the lines answered "later" to the worker; their answers replace entries in place. */
  #sendDeferred() {
    const worker = this.#worker;
    if (!worker) return;
    const core = this.#core;
    const generation = core.generation();
    for (const { item, line, ts } of JSON.parse(core.takeDeferred())) {
      worker.parse(this.#runKey, line, ts, (outcome) => {
        // null: the worker host was closed first; the line keeps its generic entry.
        if (outcome === null || this.#disposed || this.#core !== core) return;
        this.#answers.push([generation, item, line, ts, outcome]);
        this.#registry._requestFrame();
      });
    }
  }


  #bind() {
    const registryCore = this.#registry._core();
    try {
      this.#core = track(new TranscriptBuilderCore(registryCore, this.#type, this.#options));
    } catch (e) {
      rethrow(e);
    }
    reaper?.unregister(this);
    reaper?.register(this, { obj: this.#core, generation: currentGeneration() }, this);
    this.#generation = this.#registry._generation();
    this.#registry._noteType(this.#type);
    this.#entries = [];
    this.#worker = null;
    this.#syncWorker();
    for (const c of this.#chunks) this.#apply(this.#core.push(JSON.stringify(c)));
    if (this.#finished) this.#apply(this.#core.finish());
    this.#sendDeferred();
  }

  #live() {
    if (this.#disposed) throw new ParseboxDisposedError("TranscriptBuilder used after dispose()");
    this.#registry._core();
    if (this.#generation !== this.#registry._generation()) this.#bind();
  }

  #apply(json) {
    const { from, length, entries } = JSON.parse(json);
    this.#entries.length = from;
    for (const e of entries) this.#entries.push(e);
    this.#entries.length = length;
    return { from, entries };
  }

  /** Appends a chunk; returns `{ from, entries }`: the entries from index `from` that changed. */
  push(chunk) {
    this.#live();
    if (!chunk || typeof chunk !== "object" || typeof chunk.ts !== "string" || typeof chunk.chunk !== "string" || !STREAMS.has(chunk.stream)) {
      throw new ParseboxChunkError('a chunk is { ts: string, stream: "stdout" | "stderr" | "system", chunk: string, seq?: number }');
    }
    const c = chunk.seq === undefined ? { ts: chunk.ts, stream: chunk.stream, chunk: chunk.chunk } : { ts: chunk.ts, stream: chunk.stream, chunk: chunk.chunk, seq: chunk.seq };
    this.#chunks.push(c);
    this.#syncWorker();
    let json;
    try {
      json = this.#registry._call(this.#type, () => this.#core.push(JSON.stringify(c)));
    } catch (e) {
      this.#chunks.pop(); // refused: it must not be replayed into a rebuilt builder
      throw e;
    }
    if (json === undefined) {
      this.#bind(); // the instance trapped: rebuilt from the chunks, this one included
      return { from: 0, entries: this.#entries.slice() };
    }
    const update = this.#apply(json);
    this.#sendDeferred();
    this.#registry._afterCall();
    return update;
  }

  /** Ends the run: flushes the partial last line. */
  finish() {
    this.#live();
    this.#finished = true;
    this.#syncWorker();
    const json = this.#registry._call(this.#type, () => this.#core.finish());
    if (json === undefined) {
      this.#bind();
      return { from: 0, entries: this.#entries.slice() };
    }
    const update = this.#apply(json);
    this.#sendDeferred();
    return update;
  }

  /** Re-parses the whole run (call it when `onChange` says the adapter's parser is ready). */
  rebuild() {
    this.#live();
    this.#syncWorker();
    if (this.#worker) this.#worker.reset(this.#runKey);
    const json = this.#registry._call(this.#type, () => this.#core.rebuild());
    if (json === undefined) this.#bind();
    else this.#apply(json);
    if (this.#finished) this.#apply(this.#core.finish());
    this.#sendDeferred();
    return this.entries();
  }

  /** The whole transcript so far. */
  entries() {
    this.#live();
    return this.#entries.slice();
  }

  /** Frees the builder and its run. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#unhookFrame();
    this.#listeners.clear();
    this.#worker?.drop(this.#runKey);
    reaper?.unregister(this);
    if (this.#core) release(this.#core, this.#generation);
    this.#core = null;
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}
