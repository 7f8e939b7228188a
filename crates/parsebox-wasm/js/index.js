// parsebox: the package entry. It wraps the wasm-bindgen classes (parsebox_wasm.js) with what
// only JavaScript can do: load parser sources asynchronously, notify listeners, dispose, and
// survive a wasm trap by re-instantiating the module behind the same objects.
import {
  initSync as initWasmSync,
  RegistryCore,
  TranscriptBuilderCore,
} from "./parsebox_wasm.js";
import { WorkerHost } from "./worker-host.js";

/** Base class of every error parsebox throws (host misuse only; guest failures are data). */
export class ParseboxError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}
/** Bad options or arguments. */
export class ParseboxOptionsError extends ParseboxError {}
/** A registry, builder or parser used after `dispose()`. */
export class ParseboxDisposedError extends ParseboxError {}
/** A malformed run-log chunk given to `TranscriptBuilder.push`. */
export class ParseboxChunkError extends ParseboxError {}
/** `parseLine`/`push` called before `init()`/`initSync()`. */
export class ParseboxInitError extends ParseboxError {}

const ERRORS = { ParseboxError, ParseboxOptionsError, ParseboxDisposedError, ParseboxChunkError, ParseboxInitError, ParseboxRunError: ParseboxError };

let compiled = null; // the WebAssembly.Module, kept to re-instantiate after a trap
let instanceGeneration = 0; // bumps at each (re)instantiation; objects rebuild when stale

/**
 * Loads the wasm module (browser or Node with fetch). `input` may be a URL, a Response, bytes or
 * a compiled `WebAssembly.Module`; by default the `.wasm` file next to this one.
 */
export default async function init(input) {
  if (compiled) return;
  let source = input ?? new URL("./parsebox_wasm_bg.wasm", import.meta.url);
  if (source instanceof WebAssembly.Module) {
    instantiate(source);
    return;
  }
  if (typeof source === "string" || source instanceof URL) source = fetch(source);
  const response = await source;
  if (typeof Response === "function" && response instanceof Response) {
    if (!response.ok) throw new ParseboxInitError(`could not load parsebox wasm: ${response.status} ${response.statusText}`);
    instantiate(await WebAssembly.compile(await response.arrayBuffer()));
  } else {
    instantiate(await WebAssembly.compile(response));
  }
}

/** Synchronous init, e.g. in Node: `initSync({ module: fs.readFileSync(wasmPath) })`. */
export function initSync(options) {
  if (compiled) return;
  const module = options?.module;
  if (!module) throw new ParseboxOptionsError("initSync needs { module }: the .wasm bytes or a WebAssembly.Module");
  instantiate(module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module));
}

function instantiate(module) {
  initWasmSync({ module });
  compiled = module;
  instanceGeneration += 1;
}

function requireInit() {
  if (!compiled) throw new ParseboxInitError("parsebox is not initialised: await init() (browser) or initSync({ module }) (Node) first");
}

/** A wasm trap (panic, unreachable, out of memory) or a stack overflow inside the engine. */
function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
}

/** Rethrows a named error from the Rust side as our own class, so `instanceof` works. */
function rethrow(e) {
  if (e instanceof Error && e.name in ERRORS && !(e instanceof ParseboxError)) {
    throw new ERRORS[e.name](e.message);
  }
  throw e;
}

// Every wasm-bindgen object alive in the current instance. Held strongly so that wasm-bindgen's
// own finalizers can never run for an object of a dead instance: after a trap they would free
// a stale pointer inside the new instance. Our wrappers free them (dispose, or their own
// finalizer below), and a trap detaches them all without touching wasm.
const live = new Set();
function track(obj) {
  live.add(obj);
  return obj;
}
function release(obj, generation) {
  if (live.delete(obj) && generation === instanceGeneration) obj.free();
}
const reaper = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(({ obj, generation }) => release(obj, generation)) : null;

/** The wasm instance is gone: make a fresh one from the compiled module. */
function recoverFromTrap() {
  for (const obj of live) obj.__destroy_into_raw();
  live.clear();
  if (compiled) initWasmSync({ module: compiled, __parseboxReinit: true });
  instanceGeneration += 1;
}

const OPTION_TYPES = {
  lineBudgetMs: "number",
  hardDeadlineMs: "number",
  initBudgetMs: "number",
  maxSourceBytes: "number",
  maxLineBytes: "number",
  maxEntriesPerLine: "number",
  maxStringBytes: "number",
};

function checkOptions(options, allowed, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") throw new ParseboxOptionsError(`${what} options must be an object`);
  for (const key of Object.keys(options)) {
    if (!(key in allowed)) throw new ParseboxOptionsError(`unknown ${what} option "${key}" (known: ${Object.keys(allowed).join(", ")})`);
    const want = allowed[key];
    const v = options[key];
    if (v === undefined) continue;
    if (want === "number" && !(typeof v === "number" && Number.isFinite(v) && v > 0)) {
      throw new ParseboxOptionsError(`${what} option "${key}" must be a positive number, got ${String(v)}`);
    }
    if (want === "boolean" && typeof v !== "boolean") throw new ParseboxOptionsError(`${what} option "${key}" must be a boolean`);
    if (want === "host" && !["inline", "worker", "auto"].includes(v)) {
      throw new ParseboxOptionsError(`${what} option "${key}" must be "inline", "worker" or "auto", got ${JSON.stringify(v)}`);
    }
    if (want === "function?" && v !== null && typeof v !== "function") {
      throw new ParseboxOptionsError(`${what} option "${key}" must be a function or null`);
    }
  }
  return options;
}

function checkString(value, name) {
  if (typeof value !== "string") throw new ParseboxOptionsError(`${name} must be a string, got ${value === null ? "null" : typeof value}`);
}

/** Paperclip's default loader: `GET /api/adapters/:type/ui-parser.js`. */
async function defaultLoadSource(type) {
  const url = `/api/adapters/${encodeURIComponent(type)}/ui-parser.js`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${response.statusText}`.trim());
  return response.text();
}

const generic = (line, ts) => [{ kind: "stdout", ts, text: line }];

/**
 * The parser registry: the generic parser answers every line at once; each adapter type's parser
 * loads in the background into a sandbox; a line that fails falls back alone.
 */
export class ParserRegistry {
  #options;
  #loadSource;
  #core = null;
  #generation = 0;
  #sources = new Map(); // type -> { source, contractVersion }: re-registered after a trap
  #builtins = new Map(); // type -> { parseStdoutLine, createStdoutParser }
  #faults = new Map(); // type -> reason: types whose engine trapped
  #seen = new Set();
  #listeners = new Set();
  #drainQueued = false;
  #disposed = false;
  #host; // "inline" | "worker" | "auto"
  #hardDeadlineMs;
  #workerOptions;
  #workers = new Map(); // type -> { host: WorkerHost, reason }
  #events = 0; // the core's event counter when last looked at
  #pendingLoads = 0;
  #lineUpdates = new Map(); // type -> [{ line, ts, entries }] delivered by workers, not yet told
  #flushQueued = false;
  #nextRunKey = 1;
  #depth = 0; // calls into the core on the stack (re-entrant ones are refused)

  constructor(options) {
    const o = checkOptions(options, { ...OPTION_TYPES, loadSource: "function?", host: "host" }, "ParserRegistry");
    this.#loadSource = o.loadSource === undefined ? (typeof fetch === "function" ? defaultLoadSource : null) : o.loadSource;
    this.#host = o.host ?? (typeof Worker === "function" ? "auto" : "inline");
    if (this.#host !== "inline" && typeof Worker !== "function") {
      throw new ParseboxOptionsError(`host "${this.#host}" needs Web Workers, which this environment lacks; use host: "inline"`);
    }
    const { loadSource: _ignored, host: _host, hardDeadlineMs, ...rest } = o;
    this.#hardDeadlineMs = hardDeadlineMs ?? 2 * (rest.lineBudgetMs ?? 50);
    // Ranges are checked by the core (hardDeadlineMs too, though only the worker host uses it).
    this.#options = JSON.stringify({ ...rest, hardDeadlineMs, loadSources: this.#loadSource !== null });
    this.#workerOptions = JSON.stringify({ ...rest, loadSources: false });
    requireInit();
    this.#ensureCore();
  }

  /** The live core, rebuilt after a trap (sources and built-ins re-registered). */
  #ensureCore() {
    if (this.#disposed) throw new ParseboxDisposedError("ParserRegistry used after dispose()");
    if (this.#core && this.#generation === instanceGeneration) return this.#core;
    requireInit();
    // A core existed before (it trapped, or the instance was re-made under it).
    const rebuilt = this.#generation !== 0;
    let core;
    try {
      core = track(new RegistryCore(this.#options));
    } catch (e) {
      rethrow(e);
    }
    reaper?.register(this, { obj: core, generation: instanceGeneration }, this);
    for (const [type, { source, contractVersion }] of this.#sources) core.registerSource(type, source, contractVersion ?? undefined);
    for (const [type, b] of this.#builtins) core.registerBuiltin(type, b.parseStdoutLine, b.createStdoutParser);
    for (const [type, reason] of this.#faults) core.markFaulted(type, reason);
    core.takeLoadRequests();
    core.takeChanges();
    core.takeOverruns();
    this.#events = core.eventCount();
    this.#core = core;
    this.#generation = instanceGeneration;
    if (rebuilt) {
      // Every run's state was in the lost instance: tell viewers to rebuild their transcripts.
      for (const type of new Set([...this.#seen, ...this.#sources.keys(), ...this.#builtins.keys()])) this.#emit(type);
    }
    return core;
  }

  /**
   * Calls into the core; a trap marks `type` faulted, re-instantiates, and returns `undefined`.
   * A call made while another is on the stack (a built-in parser or a getter calling back into
   * the registry) is refused with a `ParseboxError`: the core is busy, and entering it again
   * would corrupt it. A built-in's line then falls back like any line whose parser threw.
   */
  #call(type, fn) {
    const core = this.#ensureCore();
    if (this.#depth > 0) {
      throw new ParseboxError("ParserRegistry called re-entrantly (from inside a built-in parser or while it was busy): the call was refused");
    }
    this.#depth += 1;
    try {
      return fn(core);
    } catch (e) {
      if (!isTrap(e)) rethrow(e);
      if (type !== null) this.#faults.set(type, `${e.name}: ${e.message}`);
      this.#core = null;
      recoverFromTrap();
      this.#depth -= 1;
      this.#ensureCore();
      this.#depth += 1;
      return undefined;
    } finally {
      this.#depth -= 1;
      if (this.#depth === 0 && this.#disposed) this.#release();
    }
  }

  /** Parses one line of `type`'s output, synchronously. Never throws for parser failures. */
  parseLine(type, line, ts) {
    checkString(type, "type");
    checkString(line, "line");
    checkString(ts, "ts");
    const worker = this.#workers.get(type);
    if (worker) return this._workerParse(type, `default:${type}`, this.#defaultCache(type), line, ts, null);
    const json = this.#call(type, (core) => core.parseLine(type, line, ts));
    this.#noteType(type);
    this._afterCall();
    return json === undefined ? generic(line, ts) : JSON.parse(json);
  }

  #defaultCaches = new Map();
  #defaultCache(type) {
    let c = this.#defaultCaches.get(type);
    if (!c) this.#defaultCaches.set(type, (c = new Map()));
    return c;
  }

  /**
   * @internal A line of a worker-hosted type: the known answer, or the generic entry now and
   * the answer later (cached, told through onChange once per frame, and to `onAnswer`).
   */
  _workerParse(type, runKey, cache, line, ts, onAnswer) {
    const key = `${ts}\n${line}`;
    const known = cache?.get(key);
    if (known) return known.slice();
    const worker = this.#workers.get(type);
    if (!worker) return generic(line, ts);
    worker.host.parse(runKey, line, ts, (outcome) => {
      if (this.#disposed) return;
      // The one line rule, with this registry's limits, counted once, here.
      const json = outcome === null ? undefined : this.#call(type, (core) => core.settleAnswer(type, line, ts, outcome));
      const entries = json === undefined ? generic(line, ts) : JSON.parse(json);
      if (cache) {
        if (cache.size > 10_000) cache.delete(cache.keys().next().value);
        cache.set(key, entries);
      }
      onAnswer?.(entries);
      this.#queueLineUpdate(type, { line, ts, entries });
    });
    return generic(line, ts);
  }

  /** @internal The worker host of `type`, if it runs there. */
  _worker(type) {
    return this.#workers.get(type)?.host ?? null;
  }

  /** @internal A fresh key for a run in a worker host. */
  _runKey() {
    return `run:${this.#nextRunKey++}`;
  }

  /** @internal After an inline call: look at what the core queued (overruns, changes). */
  _afterCall() {
    const core = this.#core;
    if (!core || this.#generation !== instanceGeneration) return;
    const n = core.eventCount();
    if (n !== this.#events) {
      this.#events = n;
      this.#scheduleDrain();
    }
  }

  /**
   * Resolves when nothing is pending: no source loading, no line waiting for a worker's
   * answer, no change notification still to be delivered.
   */
  async idle() {
    for (;;) {
      await Promise.all([...this.#workers.values()].map((w) => w.host.idle()));
      await new Promise((r) => setTimeout(r, 0));
      const busy = this.#pendingLoads > 0 || this.#flushQueued || [...this.#workers.values()].some((w) => w.host.pending > 0);
      if (!busy || this.#disposed) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  #queueLineUpdate(type, update) {
    let list = this.#lineUpdates.get(type);
    if (!list) this.#lineUpdates.set(type, (list = []));
    list.push(update);
    this.#scheduleFlush();
  }

  #scheduleFlush() {
    if (this.#flushQueued || this.#disposed) return;
    this.#flushQueued = true;
    const flush = () => {
      this.#flushQueued = false;
      if (this.#disposed) return;
      const updates = this.#lineUpdates;
      this.#lineUpdates = new Map();
      for (const [type, lines] of updates) this.#emit(type, lines);
      for (const f of this.#frameHooks) f();
    };
    // At most once per animation frame; where there are no frames (Node, hidden tabs' timers
    // still run) a macrotask.
    if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") {
      requestAnimationFrame(flush);
    } else {
      setTimeout(flush, 16);
    }
  }

  #frameHooks = new Set();
  /** @internal Called once per flushed frame (TranscriptBuilders deliver their updates). */
  _onFrame(hook) {
    this.#frameHooks.add(hook);
    return () => this.#frameHooks.delete(hook);
  }
  /** @internal */
  _requestFrame() {
    this.#scheduleFlush();
  }

  /** Moves `type` to the worker host (its parser must be a registered source). */
  #moveToWorker(type, reason) {
    if (this.#workers.has(type) || this.#host === "inline" || this.#disposed) return;
    const src = this.#sources.get(type);
    if (!src) return;
    const host = new WorkerHost({
      module: compiled,
      type,
      source: src.source,
      contractVersion: src.contractVersion ?? undefined,
      optionsJson: this.#workerOptions,
      deadlineMs: this.#hardDeadlineMs,
      onGiveUp: (why) => {
        this.#workers.delete(type);
        this.#faults.set(type, `worker host: ${why}`);
        this.#call(type, (core) => core.markFaulted(type, `worker host: ${why}`));
        this.#emit(type);
      },
    });
    this.#workers.set(type, { host, reason });
    this.#defaultCaches.delete(type);
    this.#emit(type);
  }

  #closeWorker(type) {
    const w = this.#workers.get(type);
    if (!w) return;
    w.host.close();
    this.#workers.delete(type);
    this.#defaultCaches.delete(type);
  }

  /** Compiles `source` as `type`'s parser now and returns the resulting status. */
  registerSource(type, source, contractVersion) {
    checkString(type, "type");
    checkString(source, "source");
    if (contractVersion !== undefined && contractVersion !== null) checkString(contractVersion, "contractVersion");
    this.#faults.delete(type);
    this.#builtins.delete(type);
    this.#closeWorker(type);
    const json = this.#call(type, (core) => core.registerSource(type, source, contractVersion ?? undefined));
    let status = json === undefined ? this.status(type) : JSON.parse(json);
    if (status.state === "ready") {
      this.#sources.set(type, { source, contractVersion: contractVersion ?? null });
      if (this.#host === "worker") {
        this.#moveToWorker(type, 'the registry runs every parser in the worker host (host: "worker")');
        status = this.status(type);
      }
    } else this.#sources.delete(type);
    this.#seen.add(type);
    this.#scheduleDrain();
    return status;
  }

  /** Registers trusted first-party parser functions for `type`, called directly. */
  registerBuiltin(type, parser) {
    checkString(type, "type");
    const p = parser ?? {};
    const pick = (name) => {
      const f = p[name];
      if (f !== undefined && typeof f !== "function") throw new ParseboxOptionsError(`registerBuiltin: ${name} must be a function`);
      return f;
    };
    const b = { parseStdoutLine: pick("parseStdoutLine"), createStdoutParser: pick("createStdoutParser") };
    if (!b.parseStdoutLine && !b.createStdoutParser) {
      throw new ParseboxOptionsError("registerBuiltin needs parseStdoutLine or createStdoutParser");
    }
    this.#faults.delete(type);
    this.#sources.delete(type);
    this.#closeWorker(type);
    this.#builtins.set(type, b);
    const json = this.#call(type, (core) => core.registerBuiltin(type, b.parseStdoutLine, b.createStdoutParser));
    this.#seen.add(type);
    this.#scheduleDrain();
    return json === undefined ? this.status(type) : JSON.parse(json);
  }

  /**
   * A drop-in for Paperclip's `getUIAdapter(type)` parser source. Each `createStdoutParser()`
   * call is a fresh run with its own state.
   */
  adapter(type) {
    checkString(type, "type");
    this.#ensureCore();
    return {
      parseStdoutLine: (line, ts) => this.parseLine(type, line, ts),
      createStdoutParser: () => new Run(this, type),
    };
  }

  /** The status of `type`. */
  status(type) {
    checkString(type, "type");
    const status = JSON.parse(this.#call(null, (core) => core.status(type)));
    const w = this.#workers.get(type);
    status.host = w ? "worker" : "inline";
    status.hostReason = w ? w.reason : null;
    return status;
  }

  /** Counters for `type`, or for all types. */
  diagnostics(type) {
    if (type !== undefined) checkString(type, "type");
    const d = JSON.parse(this.#call(null, (core) => core.diagnostics(type)));
    const hosts = type === undefined ? [...this.#workers.values()] : [this.#workers.get(type)].filter(Boolean);
    d.worker = hosts.length ? { linesParsed: 0, deadlineKills: 0, faults: 0, respawns: 0, replayedLines: 0, stateLost: 0, pendingLines: 0 } : null;
    for (const { host } of hosts) {
      for (const k of Object.keys(host.stats)) d.worker[k] += host.stats[k];
      d.worker.pendingLines += host.pending;
    }
    return d;
  }

  /** Clears a failure and loads `type` again (also after an engine fault). */
  reload(type) {
    checkString(type, "type");
    this.#faults.delete(type);
    this.#sources.delete(type);
    this.#closeWorker(type);
    const status = JSON.parse(this.#call(type, (core) => core.reload(type)));
    this.#scheduleDrain();
    return status;
  }

  /** Calls `listener(type, status)` whenever a type's status changes; returns unsubscribe. */
  onChange(listener) {
    if (typeof listener !== "function") throw new ParseboxOptionsError("onChange needs a function");
    this.#ensureCore();
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Frees the registry. Later calls throw `ParseboxDisposedError`. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    for (const type of [...this.#workers.keys()]) this.#closeWorker(type);
    reaper?.unregister(this);
    // Disposed from inside a call (a built-in parser, a getter): the core is freed when that
    // call returns, not under it.
    if (this.#depth === 0) this.#release();
  }

  #release() {
    if (this.#core) release(this.#core, this.#generation);
    this.#core = null;
  }

  [Symbol.dispose]() {
    this.dispose();
  }

  /** @internal */
  _core() {
    return this.#ensureCore();
  }

  /** @internal */
  _call(type, fn) {
    return this.#call(type, fn);
  }

  /** @internal */
  _generation() {
    return this.#generation;
  }

  /** @internal Test-only fault trigger: makes `type`'s engine trap, as a real fault would. */
  _faultForTest(type) {
    return this.#call(type, (core) => core.faultForTest(type));
  }

  /** @internal */
  _noteType(type) {
    this.#noteType(type);
  }

  #noteType(type) {
    if (!this.#seen.has(type)) {
      this.#seen.add(type);
      this.#scheduleDrain();
    }
    if (this.#faults.size && this.#faults.has(type)) this.#scheduleDrain();
  }

  #scheduleDrain() {
    if (this.#drainQueued || this.#disposed) return;
    this.#drainQueued = true;
    queueMicrotask(() => {
      this.#drainQueued = false;
      if (!this.#disposed) this.#drain();
    });
  }

  #drain() {
    const core = this.#ensureCore();
    const requests = JSON.parse(core.takeLoadRequests());
    for (const { adapterType, token } of requests) this.#load(adapterType, token);
    for (const type of JSON.parse(core.takeOverruns())) {
      if (this.#host === "auto") this.#moveToWorker(type, "it ran over its line budget inline; the worker host can stop what boa cannot interrupt");
    }
    const changes = JSON.parse(core.takeChanges());
    this.#events = core.eventCount();
    // A listener may dispose the registry: the rest of the changes are then not told.
    for (const type of changes) this.#emit(type);
  }

  #load(type, token) {
    const loader = this.#loadSource;
    this.#pendingLoads += 1;
    Promise.resolve()
      .then(() => loader(type))
      .then(
        (result) => {
          if (result === null || result === undefined) return ["none"];
          if (typeof result === "string") return ["source", result];
          if (typeof result === "object" && typeof result.source === "string") {
            const v = result.contractVersion;
            return ["source", result.source, typeof v === "string" ? v : undefined];
          }
          return ["failed", `loadSource(${JSON.stringify(type)}) returned ${typeof result}, expected source text, { source, contractVersion } or null`];
        },
        (error) => ["failed", error instanceof Error ? error.message : String(error)],
      )
      .then(([kind, text, version]) => {
        this.#pendingLoads -= 1;
        if (this.#disposed) return;
        const json = this.#call(type, (core) => core.completeLoad(type, token, kind, text, version));
        if (json) {
          const status = JSON.parse(json);
          if (status.state === "ready") {
            this.#sources.set(type, { source: text, contractVersion: version ?? null });
            if (this.#host === "worker") this.#moveToWorker(type, 'the registry runs every parser in the worker host (host: "worker")');
          }
        }
        if (!this.#disposed) this.#drain();
      });
  }

  #emit(type, lines = null) {
    if (!this.#listeners.size || this.#disposed) return;
    const status = this.status(type);
    for (const listener of [...this.#listeners]) {
      if (this.#disposed) return;
      try {
        listener(type, status, lines);
      } catch (e) {
        // A listener's bug must not stop the others; report it without throwing.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}

/** One `createStdoutParser()` instance: a run with its own state, replayed after a trap. */
class Run {
  #registry;
  #type;
  #id = null;
  #generation = -1;
  #journal = []; // lines since the last reset, to restore state in a fresh instance
  #disposed = false;
  #worker = null; // the worker host this run was moved to
  #runKey = null;

  constructor(registry, type) {
    this.#registry = registry;
    this.#type = type;
    this.#bind();
  }

  #bind() {
    const id = this.#registry._call(this.#type, (core) => core.createRun(this.#type));
    this.#registry._noteType(this.#type);
    this.#id = id ?? null;
    this.#generation = this.#registry._generation();
    if (this.#id !== null) {
      for (const [line, ts] of this.#journal) this.#registry._call(this.#type, (core) => core.runParseLine(this.#id, line, ts));
    }
  }

  parseLine(line, ts) {
    if (this.#disposed) throw new ParseboxDisposedError("parser used after dispose()");
    checkString(line, "line");
    checkString(ts, "ts");
    this.#registry._core();
    const worker = this.#registry._worker(this.#type);
    if (worker) {
      // Moved to the worker host: bring a worker run to this run's state, then answer later
      // (the generic entry now; the answer through onChange).
      if (worker !== this.#worker) {
        this.#worker = worker;
        this.#runKey = this.#registry._runKey();
        worker.prime(this.#runKey, this.#journal);
      }
      this.#journal.push([line, ts]);
      return this.#registry._workerParse(this.#type, this.#runKey, null, line, ts, null);
    }
    if (this.#id === null || this.#generation !== this.#registry._generation()) this.#bind();
    const json = this.#id === null ? undefined : this.#registry._call(this.#type, (core) => core.runParseLine(this.#id, line, ts));
    this.#registry._afterCall();
    this.#journal.push([line, ts]);
    return json === undefined ? generic(line, ts) : JSON.parse(json);
  }

  reset() {
    if (this.#disposed) throw new ParseboxDisposedError("parser used after dispose()");
    this.#journal = [];
    this.#registry._core();
    if (this.#worker) this.#worker.reset(this.#runKey);
    if (this.#id === null || this.#generation !== this.#registry._generation()) this.#bind();
    else this.#registry._call(this.#type, (core) => core.resetRun(this.#id));
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#worker?.drop(this.#runKey);
    if (this.#id !== null && this.#generation === this.#registry._generation()) {
      try {
        this.#registry._call(null, (core) => core.dropRun(this.#id));
      } catch {
        // The registry itself was disposed: nothing left to free.
      }
    }
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}

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
    reaper?.register(this, { obj: this.#core, generation: instanceGeneration }, this);
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
