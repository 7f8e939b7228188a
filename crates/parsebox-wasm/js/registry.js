// ParserRegistry: the package's registry class around the core (RegistryCore), with what only
// JavaScript can do: the async loader, listeners, the worker hosts, and trap recovery.
import { RegistryCore } from "./parsebox_wasm.js";
import { WorkerHost } from "./worker-host.js";
import { ParseboxDisposedError, ParseboxError, ParseboxOptionsError, rethrow } from "./errors.js";
import { compiledModule, currentGeneration, isTrap, memoryBytes, reaper, recoverFromTrap, release, requireInit, track } from "./instance.js";
import { checkOptions, checkString, defaultLoadSource, generic, OPTION_TYPES } from "./options.js";
import { Run } from "./run.js";


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
    if (this.#core && this.#generation === currentGeneration()) return this.#core;
    requireInit();
    // A core existed before (it trapped, or the instance was re-made under it).
    const rebuilt = this.#generation !== 0;
    let core;
    try {
      core = track(new RegistryCore(this.#options));
    } catch (e) {
      rethrow(e);
    }
    reaper?.register(this, { obj: core, generation: currentGeneration() }, this);
    for (const [type, { source, contractVersion }] of this.#sources) core.registerSource(type, source, contractVersion ?? undefined);
    for (const [type, b] of this.#builtins) core.registerBuiltin(type, b.parseStdoutLine, b.createStdoutParser);
    for (const [type, reason] of this.#faults) core.markFaulted(type, reason);
    core.takeLoadRequests();
    core.takeChanges();
    core.takeOverruns();
    this.#events = core.eventCount();
    this.#core = core;
    this.#generation = currentGeneration();
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
    if (!core || this.#generation !== currentGeneration()) return;
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
      module: compiledModule(),
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
    d.memoryBytes = memoryBytes();
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
