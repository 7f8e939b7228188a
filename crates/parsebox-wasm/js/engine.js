// The engine module's page side: compiles parsebox_engine.wasm (crates/parsebox-engine-wasm, a
// raw-ABI module without wasm-bindgen) and gives each adapter an EngineInstance of its own: its
// own WebAssembly.Instance and linear memory with a hard maximum, so a trap or an out-of-memory
// ends that instance and nothing else. Plain JS, no dependencies beyond errors.js; runs in
// browsers, Web Workers and Node (crypto.getRandomValues, performance.now, TextEncoder).
//
// The ABI (crates/parsebox-engine-wasm/src/lib.rs): JSON bytes in a buffer from
// parsebox_alloc, handed over to parsebox_start / parsebox_run (which free it); each returns
// the length of its JSON answer, found at parsebox_result_ptr(). Pointers are u32: read `>>> 0`.
import { disposable } from "./dispose.js";
import { ParseboxDisposedError, ParseboxError, ParseboxInitError, ParseboxOptionsError } from "./errors.js";

const PAGE_BYTES = 65536;
/** wasm32's largest memory: 4 GiB. */
const MAX_PAGES = 65536;
/** crypto.getRandomValues fills at most 64 KiB per call. */
const RANDOM_CHUNK = 65536;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Whether this is Node (its file: URLs and worker threads). */
export const inNode = () => typeof process === "object" && !!process.versions?.node;

/**
 * Compiles a wasm module of the package from a URL, Response, bytes or a Module: the one loader
 * both modules go through (`init()` and `compileEngine`).
 * @param {URL | string | Response | PromiseLike<Response> | BufferSource | WebAssembly.Module} source
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileWasm(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === "string" || source instanceof URL) {
    const url = new URL(source, import.meta.url);
    // Node's fetch does not read file: URLs; read the file instead (no bundler follows this).
    if (url.protocol === "file:" && inNode()) {
      const fs = "node:fs/promises";
      const { readFile } = await import(/* @vite-ignore */ fs);
      return WebAssembly.compile(await readFile(url));
    }
    source = fetch(url);
  }
  const response = await source;
  if (typeof Response === "function" && response instanceof Response) {
    if (!response.ok) throw new ParseboxInitError(`could not load ${response.url || "parsebox wasm"}: ${response.status} ${response.statusText}`);
    // Compiled as it downloads, and a browser may keep the compiled code with the cached
    // response (Chromium's code cache for wasm), so a page that loads the module again does not
    // compile it again. Streaming needs the response served as application/wasm; any other
    // type is read whole and compiled, as before.
    if (typeof WebAssembly.compileStreaming === "function" && isWasmType(response)) return WebAssembly.compileStreaming(response);
    return WebAssembly.compile(await response.arrayBuffer());
  }
  return WebAssembly.compile(response);
}

/** Whether `response` is served as `application/wasm` (what `compileStreaming` accepts). */
const isWasmType = (response) => /^application\/wasm\s*(;|$)/i.test(response.headers.get("Content-Type") ?? "");

/**
 * Compiles the engine module (URL, Response, bytes or a Module). Default:
 * `new URL("./parsebox_engine.wasm", import.meta.url)`.
 * @param {URL | string | Response | PromiseLike<Response> | BufferSource | WebAssembly.Module} [input]
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileEngine(input) {
  return compileWasm(input ?? new URL("./parsebox_engine.wasm", import.meta.url));
}

/** @type {WeakMap<WebAssembly.Module, number>} */
const initialPagesOf = new WeakMap();

/**
 * The memory an instance of `module` starts with, in pages: the prepared memory's size, which
 * snapshot.mjs records in the custom section `parsebox_initial_pages` (u32, little-endian).
 * Throws `ParseboxInitError` for a module without it: not the package's engine module, or one
 * built without build.sh.
 * @param {WebAssembly.Module} module
 */
export function initialPages(module) {
  let pages = initialPagesOf.get(module);
  if (pages === undefined) {
    const [section] = WebAssembly.Module.customSections(module, "parsebox_initial_pages");
    if (section?.byteLength !== 4) {
      throw new ParseboxInitError("the engine module has no parsebox_initial_pages section: it is not parsebox_engine.wasm as crates/parsebox-engine-wasm/build.sh builds it");
    }
    pages = new DataView(section).getUint32(0, true);
    initialPagesOf.set(module, pages);
  }
  return pages;
}

/** Fills `len` bytes at `ptr` with crypto.getRandomValues; 0 on success (the getrandom hook). */
function fillRandom(memory, ptr, len) {
  const crypto = globalThis.crypto;
  if (!crypto || typeof crypto.getRandomValues !== "function") return 1;
  for (let done = 0; done < len; done += RANDOM_CHUNK) {
    crypto.getRandomValues(new Uint8Array(memory.buffer, ptr + done, Math.min(RANDOM_CHUNK, len - done)));
  }
  return 0;
}

/**
 * @typedef {object} EngineInstanceOptions
 * @property {number} maxMemoryBytes The instance's hard memory maximum, in bytes (rounded down
 *   to whole 64 KiB pages; at least the module's initial memory, ~10 MiB; at most 4 GiB). Past it
 *   the instance traps.
 * @property {(seq: number) => void} [onBegan] Called with its seq before a live (not
 *   replayed) line starts whose deadline the core arms from it: the first of a batch, or one
 *   after the engine's own realm work (a new run, a rebuild after a failed line). An exception it throws propagates out of `run()` and ends the
 *   instance.
 * @property {number} [lineDeadlineMs] Stops each live line itself once it has run this long
 *   (from its start, after any realm work of the engine's own, to the end of the call: a
 *   Worker runs one record a call; replayed lines and that realm work are not stopped): the
 *   call throws an `EngineStoppedError` and the instance is dead. A
 *   Worker engine's (the core's `hardDeadlineMs`), so the page ends an idle Worker, not one in
 *   the middle of its work (`EngineStoppedError` says why). Default: none.
 */

/**
 * One adapter's engine: a WebAssembly.Instance of the engine module with its own memory.
 * Any exception out of `start()`/`run()` (a trap: `WebAssembly.RuntimeError`, or an
 * `EngineMemoryError` when its memory reached the maximum) ends the instance: later calls
 * throw a `ParseboxError`.
 */
export class EngineInstance {
  /** @type {WebAssembly.Memory | null} */
  #memory;
  /** @type {WebAssembly.Exports | null} the instance's exports, null once disposed */
  #exports;
  /** @type {((seq: number) => void) | undefined} */
  #onBegan;
  /** @type {number} ms (performance.now()) past which the line running now is stopped */
  #stopAt = Infinity;
  /** @type {number} ms (performance.now()) when the engine's work is read next, during a line */
  #checkAt = Infinity;
  /** @type {number} the engine's count of work at the last reading */
  #work = 0;
  /** @type {(() => void) | undefined} */
  #onProgress;
  /** @type {number} ms without the engine's work moving after which a line is stopped */
  #lineDeadlineMs = Infinity;
  /** "live" | "busy" (inside a call) | "dead" (a call threw) | "disposed" */
  #state = "live";
  /** @type {unknown} why the instance died */
  #cause;

  /**
   * Synchronous: a new instance with its own memory.
   * @param {WebAssembly.Module} module The compiled engine module (`compileEngine`).
   * @param {EngineInstanceOptions} options
   */
  constructor(module, options) {
    if (!(module instanceof WebAssembly.Module)) {
      throw new ParseboxOptionsError("EngineInstance needs the compiled engine module (compileEngine())");
    }
    const maxMemoryBytes = options?.maxMemoryBytes;
    const maximum = Math.floor(maxMemoryBytes / PAGE_BYTES);
    const initial = initialPages(module);
    if (typeof maxMemoryBytes !== "number" || !(maximum >= initial && maximum <= MAX_PAGES)) {
      throw new ParseboxOptionsError(
        `maxMemoryBytes must be a number of bytes from ${initial * PAGE_BYTES} to ${MAX_PAGES * PAGE_BYTES}, got ${maxMemoryBytes}`,
      );
    }
    if (options.onBegan !== undefined && typeof options.onBegan !== "function") {
      throw new ParseboxOptionsError("onBegan must be a function");
    }
    const lineDeadlineMs = options.lineDeadlineMs ?? Infinity;
    if (typeof lineDeadlineMs !== "number" || !(lineDeadlineMs > 0)) {
      throw new ParseboxOptionsError(`lineDeadlineMs must be a positive number of milliseconds, got ${options.lineDeadlineMs}`);
    }
    if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
      throw new ParseboxOptionsError("onProgress must be a function");
    }
    this.#onBegan = options.onBegan;
    this.#onProgress = options.onProgress;
    this.#lineDeadlineMs = lineDeadlineMs;
    const memory = new WebAssembly.Memory({ initial, maximum });
    const env = {
      memory,
      parsebox_now_ms: () => performance.now(),
      // Every live line starts here, after the engine's own realm work; `report` 1 for those
      // the core arms a deadline from.
      parsebox_began: (seq, report) => {
        const now = performance.now();
        this.#stopAt = now + lineDeadlineMs;
        this.#checkAt = now + lineDeadlineMs / 4;
        this.#work = this.#exports?.parsebox_work_done?.() ?? 0;
        if (report === 1) this.#onBegan?.(seq);
      },
      parsebox_random: (ptr, len) => fillRandom(memory, ptr >>> 0, len >>> 0),
      // Called every 16,384 loop turns (crates/parsebox-preempt says why): JavaScriptCore stops
      // a terminated Worker's wasm only where it calls into the browser. A function that does
      // nothing was not enough (WebKitGTK 2.50, measured); one that reads the clock is. Every
      // quarter of `lineDeadlineMs` during a line it reads the engine's count of work: moved
      // on, the engine is making progress (its budget, counted in work, bounds it), the line's
      // deadline moves and `onProgress` says so (the page moves its own); not moved past the
      // deadline, the engine is stuck in one native step and the line is stopped: the
      // exception unwinds the instance's frames.
      parsebox_poll: () => {
        const now = performance.now();
        if (now < this.#checkAt) return;
        this.#checkAt = now + lineDeadlineMs / 4;
        const work = this.#exports.parsebox_work_done();
        if (work !== this.#work) {
          this.#work = work;
          this.#stopAt = now + lineDeadlineMs;
          this.#onProgress?.();
        } else if (now >= this.#stopAt) {
          throw new EngineStoppedError(lineDeadlineMs);
        }
      },
    };
    this.#memory = memory;
    this.#exports = new WebAssembly.Instance(module, { env }).exports;
  }

  /**
   * Loads the parser source with the host's engine config (JSON `EngineConfig`).
   * @param {string} source The `ui-parser.js` text.
   * @param {string} configJson `{"lineBudgetMs","initBudgetMs","maxSourceBytes","maxLineBytes","maxMemoryBytes","screenRegexes"?}`.
   * @returns {string} JSON of `Result<Started, LoadError>`: `{"Ok":{"entryPoint":"createStdoutParser","module":…}}` or
   *   `{"Err":{"code","message","line","column"}}`.
   */
  start(source, configJson) {
    // The module's evaluation is stopped as a line is: when its count of work stops moving
    // for `lineDeadlineMs` (it has its own budget of work besides).
    const now = performance.now();
    this.#stopAt = now + this.#lineDeadlineMs;
    this.#checkAt = now + this.#lineDeadlineMs / 4;
    this.#work = this.#exports?.parsebox_work_done?.() ?? 0;
    return this.#call((x, memory) => {
      const [src, srcLen] = pass(x, memory, String(source));
      let cfg;
      try {
        cfg = pass(x, memory, String(configJson));
      } catch (e) {
        x.parsebox_free(src, srcLen);
        throw e;
      }
      return answer(x, memory, x.parsebox_start(src, srcLen, cfg[0], cfg[1]));
    });
  }

  /**
   * Performs a batch of engine ops (JSON `[{"op":"newRun","run":1}, {"op":"line",…}, …]`).
   * @param {string} opsJson
   * @param {boolean} [batchStart] these ops open a batch the core sent (its first live line
   *   reports `began`); false for the later records of a batch run a record at a time
   * @returns {string} JSON `[[seq, outcome], …]`, outcome `{"Ok":value}` or `{"Err":{"code","message"}}`.
   */
  run(opsJson, batchStart = true) {
    return this.#call((x, memory) => {
      const [ops, len] = pass(x, memory, String(opsJson));
      return answer(x, memory, x.parsebox_run(ops, len, batchStart ? 1 : 0));
    });
  }

  /**
   * `run` on bytes: the core's ops frame (records, crates/parsebox-protocol/src/wire.rs) or JSON
   * as UTF-8. No string is decoded or encoded on the way, and the answer is not copied.
   * @param {Uint8Array} opsBytes
   * @param {boolean} [batchStart] as for `run`
   * @returns {Uint8Array} the answer's JSON bytes: a view of the instance's memory, valid until
   *   its next call (copy what you keep)
   */
  runBytes(opsBytes, batchStart = true) {
    return this.#call((x, memory) => {
      const [ops, len] = passBytes(x, memory, opsBytes);
      return answerBytes(x, memory, x.parsebox_run(ops, len, batchStart ? 1 : 0));
    });
  }

  /**
   * Takes the core's ops frame whole, to perform a record at a time with `runNext` (a Worker
   * posts answers between records without reading the frame's layout).
   * @param {Uint8Array} opsBytes
   * @param {number} answerBatchMs how long answers may wait before `postDue` says to post them
   */
  queue(opsBytes, answerBatchMs) {
    this.#call((x, memory) => {
      const [ops, len] = passBytes(x, memory, opsBytes);
      x.parsebox_queue(ops, len, answerBatchMs);
    });
  }

  /** Whether the queued frame has records left. */
  get hasNext() {
    return this.#exports?.parsebox_has_next() === 1;
  }

  /**
   * Performs the queued frame's next record (the first opens the batch).
   * @returns {Uint8Array} the answer's JSON bytes, as `runBytes` gives them; empty when the
   *   record answered no line
   */
  runNext() {
    return this.#call((x, memory) => {
      return answerBytes(x, memory, x.parsebox_run_next());
    });
  }

  /**
   * Whether to post the answers held now (the engine decides: realm work of its own comes
   * next, the frame is done, or `answerBatchMs` has passed since the last time it said so).
   */
  get postDue() {
    return this.#exports?.parsebox_post_due() === 1;
  }

  /**
   * Loads the engine's built-in warm-up parser and parses a few lines (`parsebox_warm_up`), so
   * the module's code is compiled before a real parser loads. Answers JSON `[started, answers]`.
   * @param {number} maxMemoryBytes this instance's `maxMemoryBytes` (the engine configures the
   *   warm-up's parser by it)
   */
  warmUp(maxMemoryBytes) {
    return this.#call((x, memory) => answer(x, memory, x.parsebox_warm_up(maxMemoryBytes)));
  }

  /** Bytes of linear memory this instance holds now (0 once disposed). */
  get memoryBytes() {
    return this.#memory ? this.#memory.buffer.byteLength : 0;
  }

  /** Drops the instance and its memory (idempotent); later calls throw. */
  dispose() {
    this.#state = "disposed";
    this.#exports = null;
    this.#memory = null;
    this.#onBegan = undefined;
    this.#onProgress = undefined;
  }

  #call(body) {
    if (this.#state === "disposed") throw new ParseboxDisposedError("engine instance used after dispose()");
    if (this.#state === "dead") {
      const why = this.#cause instanceof Error ? `${this.#cause.name}: ${this.#cause.message}` : String(this.#cause);
      throw new ParseboxError(`engine instance is dead: an earlier call threw (${why})`);
    }
    if (this.#state === "busy") throw new ParseboxError("engine instance called from inside its own call (onBegan)");
    this.#state = "busy";
    try {
      const out = body(this.#exports, this.#memory);
      if (this.#state === "busy") this.#state = "live";
      return out;
    } catch (e) {
      // A trap, or an exception thrown through wasm frames, leaves the instance half-done.
      if (this.#state !== "busy") throw e;
      this.#state = "dead";
      this.#cause = e instanceof EngineStoppedError ? e : (ranOutOfMemory(this.#exports, this.#memory, e) ?? e);
      throw this.#cause;
    } finally {
      // A line's stop applies to that line only: the next call's realm work is not stopped.
      this.#stopAt = Infinity;
      this.#checkAt = Infinity;
    }
  }
}
disposable(EngineInstance);

/**
 * The instance's memory reached its maximum: an allocation of `requestedBytes` did not fit and
 * the instance trapped. It is reported to the core as out-of-memory (the line falls
 * back as `memory_exceeded`), not as any other fault.
 */
export class EngineMemoryError extends ParseboxError {
  constructor(requestedBytes, memoryBytes, cause) {
    super(`the engine instance's memory reached its maximum (${memoryBytes} bytes): ${requestedBytes} more did not fit`);
    this.requestedBytes = requestedBytes;
    this.memoryBytes = memoryBytes;
    this.cause = cause;
  }
}

/**
 * A live line ran past the instance's `lineDeadlineMs` and the instance stopped it itself (in
 * a loop of the engine's, `parsebox_poll`): the instance is dead, and its Worker idle. The
 * page can then end that Worker, or reuse it, rather than end one still at work: in WebKit
 * (JavaScriptCore, WebKitGTK 2.50) a Worker ended while the engine module's code was being
 * compiled for a faster tier left that code in the interpreter for every later instance of the
 * module, 4-25x slower (BENCHMARKS.md, session 32).
 */
export class EngineStoppedError extends ParseboxError {
  constructor(lineDeadlineMs) {
    super(`the engine stopped a line that ran past its ${lineDeadlineMs} ms deadline`);
    this.lineDeadlineMs = lineDeadlineMs;
  }
}

/** An `EngineMemoryError` when the instance noted a failed allocation before `e`, else null. */
function ranOutOfMemory(x, memory, e) {
  let failed = 0;
  try {
    failed = x?.parsebox_alloc_failed?.() ?? 0;
  } catch {
    // an instance that cannot even say: not known to be out of memory
  }
  return failed > 0 ? new EngineMemoryError(failed, memory?.buffer.byteLength ?? 0, e) : null;
}

/** Copies `text` as UTF-8 into a fresh buffer of the instance: [ptr, len]. */
function pass(x, memory, text) {
  return passBytes(x, memory, encoder.encode(text));
}

/** Copies `bytes` into a fresh buffer of the instance: [ptr, len]. */
function passBytes(x, memory, bytes) {
  const ptr = x.parsebox_alloc(bytes.length) >>> 0;
  if (ptr === 0) throw new RangeError(`the engine instance's memory cannot hold ${bytes.length} more bytes`);
  // memory.buffer is read after the allocation: growing the memory replaces it.
  new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
  return [ptr, bytes.length];
}

/** The call's JSON answer as bytes: a view of the `len` bytes at parsebox_result_ptr(). */
function answerBytes(x, memory, len) {
  return new Uint8Array(memory.buffer, x.parsebox_result_ptr() >>> 0, len >>> 0);
}

/** The call's JSON answer: `len` bytes at parsebox_result_ptr(). */
function answer(x, memory, len) {
  return decoder.decode(answerBytes(x, memory, len));
}

/** Memory of a warm-up instance (given to the engine too, which configures the warm-up by it). */
const WARM_UP_MEMORY_BYTES = 64 << 20;

/**
 * Warms the engine module's code (in a Worker, right after the module compiles): browsers
 * compile a wasm function the first time it runs, and loading the first parser runs most of
 * the engine's code. The compiled code belongs to the module, so every later instance, on any
 * thread, runs it at once. Runs in a throwaway instance; returns its answer (JSON
 * `[started, answers]`) for a test. Throws what the instance throws: a warm-up only saves time,
 * so the caller carries on either way.
 * @param {WebAssembly.Module} module
 * @returns {string}
 */
export function warmUp(module) {
  const engine = new EngineInstance(module, { maxMemoryBytes: WARM_UP_MEMORY_BYTES });
  try {
    return engine.warmUp(WARM_UP_MEMORY_BYTES);
  } finally {
    engine.dispose();
  }
}
