// ParserRegistry: the package's registry class. It converts calls for the trusted core
// (HostCore), performs the core's commands (loads, engines through the executor, late answers,
// change notifications) and delivers them to listeners at most once per frame.
import { disposable } from "./dispose.js";
import { HostCore } from "./parsebox_wasm.js";
import { ParseboxDisposedError, ParseboxOptionsError, callEach, guarded, lostCoreError, quietly } from "./errors.js";
import { Executor } from "./executor.js";
import { hasEngine, holdsCore, onEngine } from "./instance.js";
import { checkOptions, checkString, defaultLoadSource } from "./options.js";
import { Run } from "./run.js";
import { chunkIds, encodeChunk } from "./chunk.js";

/**
 * The parser registry: the generic parser answers every line at once; each adapter type's parser
 * loads in the background into an engine of its own; a line that fails falls back alone.
 */
export class ParserRegistry {
  #core;
  #executor;
  #loadSource;
  #listeners = new Set();
  #followedListeners = new Set();
  #disposed = false;
  #lost = false; // made on a core that trapped (instance.js)
  #releaseCore;
  #drainQueued = false;
  #builders = new Map(); // run id -> WeakRef of its TranscriptBuilder (a dropped builder is collected)
  #adapters = new Map(); // type -> { generation, adapter }: adapter(type) objects
  #stopWaitingForEngine = null;
  #options; // as given, for `_again()`

  constructor(options) {
    this.#options = options;
    const { loadSource, ...rest } = checkOptions("ParserRegistry", options);
    this.#loadSource = loadSource === undefined ? (typeof fetch === "function" ? defaultLoadSource : null) : loadSource;
    this.#executor = new Executor(() => this.#drain(), ParserRegistry.#waker(new WeakRef(this)));
    const engineReady = hasEngine();
    const json = JSON.stringify({ ...rest, loadSources: this.#loadSource !== null, workersAvailable: typeof Worker === "function", engineReady });
    this.#core = guarded(() => new HostCore(json, this.#executor.callbacks()));
    this.#executor.attach(this.#core, this.#core.engineConfig());
    this.#releaseCore = holdsCore(this);
    // Made before the engine module is compiled (and, in a browser, warmed): parsers stay
    // `loading` until it is.
    if (!engineReady) {
      this.#stopWaitingForEngine = onEngine((error) => {
        if (this.#disposed || this.#lost) return;
        quietly(() => (error ? this.#core.handleEngineModuleFailed(error.message) : this.#core.handleEngineModuleReady()));
        this.#drain();
      });
    }
  }

  /**
   * @internal The core this registry was made on trapped (instance.js): its engines end, its
   * object is let go of without a call into the core, and every later call throws
   * `ParseboxCoreError`.
   */
  _coreLost() {
    this.#lost = true;
    this.#stopWaitingForEngine?.();
    this.#executor.close();
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
    d.memoryBytes = this.#executor.memoryBytes(type ?? null);
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
  async idle() {
    this.#scheduleDrain(); // whatever the core has queued is under way before we wait on it
    for (;;) {
      await new Promise((r) => setTimeout(r, 0));
      // The core decides: no loader out, no engine starting, no line owed, no command or frame waiting.
      if (this.#disposed) return;
      if (this.#lost) throw lostCoreError("ParserRegistry");
      if (quietly(() => this.#core.isIdle())) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Frees the registry and every engine. Later calls throw `ParseboxDisposedError`. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    this.#followedListeners.clear();
    this.#stopWaitingForEngine?.();
    this.#releaseCore();
    if (this.#lost) return; // its engines ended when the core stopped
    // From inside a call (a built-in parser), the core finishes that call first.
    this.#core.dispose();
    this.#executor.close();
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
   * The core's wake callback. The core holds it, so it reaches this registry weakly, from a
   * scope of its own (a closure made in the constructor would share the constructor's scope,
   * which holds the registry).
   */
  static #waker(registry) {
    return () => registry.deref()?.#scheduleDrain();
  }

  #scheduleDrain() {
    if (this.#drainQueued || this.#disposed) return;
    this.#drainQueued = true;
    // A drain that runs first (after an engine's report) takes the commands: this one is off.
    queueMicrotask(() => this.#drainQueued && this.#drain());
  }

  /** Performs every command the core has queued, then re-arms the timer: one call to the core. */
  #drain() {
    this.#drainQueued = false;
    if (this.#disposed || this.#lost) return;
    const [polled, ...ops] = quietly(() => this.#core.poll()) ?? [];
    const { commands, timeoutMs } = polled === undefined ? { commands: [], timeoutMs: null } : JSON.parse(polled);
    let sent = 0; // each `send` command's ops frame travels beside the JSON, in order
    for (const c of commands) {
      if (this.#disposed || this.#lost) return;
      switch (c.kind) {
        case "load":
          this.#load(c.adapterType, c.token);
          break;
        case "frame":
          this.#scheduleFlush();
          break;
        case "notify":
          this.#emit(c.adapterType);
          break;
        default:
          this.#executor.perform(c, c.kind === "send" ? ops[sent++] : undefined);
      }
    }
    if (!this.#disposed && !this.#lost) this.#executor.arm(timeoutMs ?? undefined);
  }

  #load(type, token) {
    const loader = this.#loadSource;
    const report = (fn) => {
      if (this.#disposed || this.#lost) return;
      quietly(fn);
      this.#drain();
    };
    Promise.resolve()
      .then(() => loader(type))
      .then(
        (value) => report(() => this.#core.handleLoaded(type, token, value)),
        (error) => report(() => this.#core.handleLoadFailed(type, token, error instanceof Error ? error.message : String(error))),
      );
  }

  /** Late answers reach listeners and builders at most once per animation frame (the core asks once per frame). */
  #scheduleFlush() {
    if (this.#disposed) return;
    const flush = () => {
      if (this.#disposed || this.#lost) return;
      const taken = quietly(() => this.#core.takeFrame());
      if (taken === undefined) return;
      const [frame, ...strings] = taken;
      const { updates, followers, lines, followed } = JSON.parse(frame);
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
    };
    // Where there are no frames (Node; hidden tabs' timers still run) a macrotask.
    if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") {
      requestAnimationFrame(flush);
    } else {
      setTimeout(flush, 16);
    }
  }

  #emit(type, lines = null) {
    if (!this.#listeners.size || this.#disposed || this.#lost) return;
    const status = this.status(type);
    callEach(this.#listeners, type, status, lines);
  }
}
disposable(ParserRegistry);

