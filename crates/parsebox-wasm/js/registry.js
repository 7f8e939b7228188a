// ParserRegistry: the package's registry class. It checks and converts calls for the trusted
// core (RegistryCore) and hands what a frame or a status change brings to builders and listeners;
// its driver (driver.js) performs what the core asks and reports what happens back.
import { disposable } from "./dispose.js";
import { RegistryCore } from "./parsebox_wasm.js";
import { ParseboxDisposedError, ParseboxOptionsError, callEach, guarded, lostCoreError, quietly } from "./errors.js";
import { Driver } from "./driver.js";
import { hasEngine, holdsCore } from "./instance.js";
import { checkOptions, checkString, defaultLoadSource } from "./options.js";
import { Run } from "./run.js";
import { chunkIds, encodeChunk } from "./chunk.js";

/**
 * The parser registry: the generic parser answers every line at once; each adapter type's parser
 * loads in the background into an engine of its own; a line that fails falls back alone.
 */
export class ParserRegistry {
  #core;
  #driver;
  #listeners = new Set();
  #followedListeners = new Set();
  #disposed = false;
  #lost = false; // made on a core that trapped (instance.js)
  #releaseCore;
  #builders = new Map(); // run id -> WeakRef of its TranscriptBuilder (a dropped builder is collected)
  #adapters = new Map(); // type -> { generation, adapter }: adapter(type) objects
  #options; // as given, for `_again()`

  constructor(options) {
    this.#options = options;
    const { loadSource, ...rest } = checkOptions("ParserRegistry", options);
    const loader = loadSource === undefined ? (typeof fetch === "function" ? defaultLoadSource : null) : loadSource;
    this.#driver = new Driver(loader, ParserRegistry.#page(this));
    // Made before the engine module is compiled (and, in JavaScriptCore, warmed): parsers stay
    // `loading` until it is (the driver tells the core).
    const json = JSON.stringify({
      ...rest,
      loadSources: loader !== null,
      workersAvailable: typeof Worker === "function",
      hardwareConcurrency: typeof globalThis.navigator?.hardwareConcurrency === "number" ? globalThis.navigator.hardwareConcurrency : undefined,
      engineReady: hasEngine(),
    });
    this.#core = guarded(() => new RegistryCore(json, this.#driver.callbacks()));
    this.#driver.attach(this.#core);
    this.#releaseCore = holdsCore(this);
  }

  /**
   * @internal The core this registry was made on trapped (instance.js): its engines end, its
   * object is let go of without a call into the core, and every later call throws
   * `ParseboxCoreError`.
   */
  _coreLost() {
    this.#lost = true;
    this.#driver.close(lostCoreError("ParserRegistry"));
    this.#core.__destroy_into_raw();
  }

  /**
   * Parses one line of `type`'s output, synchronously, in the type's default run: one
   * `createStdoutParser()` instance that keeps its state from line to line when the module
   * exports the factory (it takes priority over `parseStdoutLine`, as the contract says), the
   * module's `parseStdoutLine` otherwise. Never throws for parser failures.
   */
  parseLine(type, line, ts) {
    return this.#parseIn("parseDefault", type, line, ts);
  }

  /** A line of one of the type's long-lived runs: `parseDefault`, or `parseStateless` (Paperclip's `parseStdoutLine`: the module's own function, no instance state). */
  #parseIn(run, type, line, ts) {
    checkString(type, "type");
    checkString(line, "line");
    checkString(ts, "ts");
    return JSON.parse(this.#live(() => this.#core[run](type, line, ts))).entries;
  }

  /** Registers `source` as `type`'s parser now and returns the resulting status. */
  registerSource(type, source, contractVersion) {
    checkString(type, "type");
    checkString(source, "source");
    if (contractVersion !== undefined && contractVersion !== null) checkString(contractVersion, "contractVersion");
    const json = this.#live(() => this.#core.registerSource(type, source, contractVersion ?? undefined));
    return this.#status(json);
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
    const parse = pick("parseStdoutLine");
    const create = pick("createStdoutParser");
    const json = this.#live(() => this.#core.registerBuiltin(type, parse, create));
    return this.#status(json);
  }

  /**
   * A drop-in for Paperclip's `getUIAdapter(type)` parser source. The same object for a type
   * until its parser changes (its status `generation`), so a React dependency on it holds; its
   * functions work detached. Each `createStdoutParser()` call is a fresh run with its own state.
   */
  adapter(type) {
    checkString(type, "type");
    const { generation } = this.status(type);
    const known = this.#adapters.get(type);
    if (known?.generation === generation) return known.adapter;
    const adapter = Object.freeze({
      parseStdoutLine: (line, ts) => this.#parseIn("parseStateless", type, line, ts),
      createStdoutParser: () => new Run(this, type),
    });
    this.#adapters.set(type, { generation, adapter });
    return adapter;
  }

  /** The status of `type`. */
  status(type) {
    checkString(type, "type");
    return this.#status(this.#live(() => this.#core.status(type)));
  }

  #status(json) {
    return JSON.parse(json);
  }

  /** Counters for `type`, or for all types. */
  diagnostics(type) {
    if (type !== undefined) checkString(type, "type");
    const d = JSON.parse(this.#live(() => this.#core.diagnostics(type)));
    d.memoryBytes = this.#driver.memoryBytes(type ?? null);
    return d;
  }

  /**
   * Removes `type`'s top layer, as Paperclip does when an external adapter is paused or
   * removed: an external parser gives way to the built-in beneath it; a built-in (or an external
   * parser with nothing beneath) gives way to the generic parser until `reload` or a new
   * registration.
   */
  unregister(type) {
    checkString(type, "type");
    const json = this.#live(() => this.#core.unregister(type));
    return this.#status(json);
  }

  /** Clears a failure and loads `type` again; a built-in type keeps answering until an external parser arrives to lie over it. */
  reload(type) {
    checkString(type, "type");
    const json = this.#live(() => this.#core.reload(type));
    return this.#status(json);
  }

  /** Calls `listener(type, status, lines)` on changes; returns unsubscribe. */
  onChange(listener) {
    if (typeof listener !== "function") throw new ParseboxOptionsError("onChange needs a function");
    this.#live(() => undefined);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when nothing is pending: no load, no engine starting, no line waiting, no news untold. */
  idle() {
    if (this.#lost) return Promise.reject(lostCoreError("ParserRegistry"));
    return this.#driver.idle();
  }

  /** Frees the registry and every engine. Later calls throw `ParseboxDisposedError`. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    this.#followedListeners.clear();
    this.#releaseCore();
    if (this.#lost) return; // its engines ended when the core stopped
    // From inside a call (a built-in parser), the core finishes that call first.
    this.#core.dispose();
    this.#driver.close();
  }

  /** Calls the core; throws `ParseboxDisposedError` once disposed. */
  #live(fn) {
    if (this.#disposed) throw new ParseboxDisposedError("ParserRegistry used after dispose()");
    if (this.#lost) throw lostCoreError("ParserRegistry");
    return guarded(fn);
  }

  /** @internal Whether the core this registry was made on stopped (the Paperclip functions then make a new one). */
  get _lost() {
    return this.#lost;
  }

  /** @internal A new registry with this one's options (the Paperclip functions' after a core stopped). */
  _again() {
    return new ParserRegistry(this.#options);
  }

  /** @internal The core, for builders. */
  _core() {
    return this.#live(() => this.#core);
  }

  /** @internal A new run of `type` (a createStdoutParser() instance). */
  _createRun(type) {
    return this.#live(() => this.#core.createRun(type));
  }

  /** @internal Parses a line of `run`. */
  _runParse(run, line, ts) {
    return JSON.parse(this.#live(() => this.#core.parseLine(run, line, ts))).entries;
  }

  /**
   * @internal Paperclip's `buildTranscript` of `chunks` for `type`: the core keeps the run
   * between renders and asks for the chunks that are new.
   */
  _buildTranscript(type, chunks, redact) {
    const ids = chunkIds(chunks);
    return JSON.parse(this.#live(() => this.#core.buildTranscript(type, ids, redact, (i) => encodeChunk(chunks[i]))));
  }

  /** @internal Lets go of the runs `buildTranscript` keeps (another registry takes this one's place). */
  _forgetFollowed() {
    if (!this.#disposed && !this.#lost) quietly(() => this.#core.forgetFollowed());
  }

  /** @internal Calls `listener()` when a Worker's late answers changed a run `buildTranscript` keeps; returns unsubscribe. */
  _onFollowed(listener) {
    this.#followedListeners.add(listener);
    return () => this.#followedListeners.delete(listener);
  }

  /** @internal Paperclip's `loadDynamicParser`: whether to wait for `idle()` (the core decides). */
  _loadDynamic(type) {
    checkString(type, "type");
    return this.#live(() => this.#core.loadDynamic(type));
  }

  /** @internal Paperclip's `invalidateDynamicParser`: whether an external parser was ready. */
  _invalidateDynamic(type) {
    checkString(type, "type");
    return this.#live(() => this.#core.invalidateDynamic(type));
  }

  /** @internal */
  _resetRun(run) {
    this.#live(() => this.#core.resetRun(run));
  }

  /** @internal Forgets a run (nothing to do once disposed). */
  _dropRun(run) {
    if (!this.#disposed && !this.#lost) quietly(() => this.#core.dropRun(run));
  }

  /** @internal Routes the late answers of `run` to `builder` (null: unroute). */
  _builder(run, builder) {
    if (builder) this.#builders.set(run, new WeakRef(builder));
    else this.#builders.delete(run);
  }

  /**
   * What the driver hands this registry: a taken frame (each builder takes its update, then
   * followers, listeners and Paperclip's notifier are told) and a status change. It reaches the
   * registry weakly: Workers' handlers hold the driver.
   */
  static #page(registry) {
    const ref = new WeakRef(registry);
    return {
      frame: (frame, strings) => ref.deref()?.#deliver(frame, strings),
      notify: (type) => ref.deref()?.#emit(type),
    };
  }

  #deliver({ updates, followers, lines, followed }, strings) {
    // The core folded every builder's late answers in: each takes its own strings.
    let at = 0;
    for (const [run, n] of updates) {
      const result = strings.slice(at, (at += n));
      // A builder's listener may dispose the registry: the rest then have nothing to take.
      if (this.#disposed || this.#lost) return;
      quietly(() => this.#builders.get(run)?.deref()?._applyUpdate(result));
    }
    for (const run of followers) {
      if (this.#disposed || this.#lost) return;
      quietly(() => this.#builders.get(run)?.deref()?._changed());
    }
    for (const [type, updates] of lines) this.#emit(type, updates);
    if (followed && !this.#disposed && !this.#lost) callEach(this.#followedListeners);
  }

  #emit(type, lines = null) {
    if (!this.#listeners.size || this.#disposed || this.#lost) return;
    const status = this.status(type);
    callEach(this.#listeners, type, status, lines);
  }
}
disposable(ParserRegistry);

