// The registry's one driver: everything that happens to a registry's core from outside a call
// goes through it. It performs what the core asks after each event, in one `poll()` (loads,
// Worker engine commands with their ops frames, a frame, notifications, the next timeout),
// reports back what happened (a Worker's messages, a loader's answer, the timer, the engine
// module compiled), takes the frame once per animation frame, and resolves `idle()` when a
// poll says nothing is under way. Every rule is the core's (crates/parsebox-live, which a Rust
// test covers); what is left here is I/O: which timer, which frame source, a microtask to
// gather the wakes of one task, a promise per loader.
import { Engines } from "./engines.js";
import { quietly } from "./errors.js";
import { hasEngine, onEngine } from "./instance.js";

/** Calls `run` at the page's next frame; where there are no frames (Node, a hidden tab, whose timers still run) after 16 ms. */
function atNextFrame(run) {
  if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") {
    requestAnimationFrame(run);
  } else {
    setTimeout(run, 16);
  }
}

export class Driver {
  #core = null;
  #engines;
  #loadSource;
  /** The registry: `frame(frame, strings)` delivers a taken frame, `notify(type)` a status change. */
  #page;
  #timer = null;
  #drainQueued = false;
  #closed = false;
  /** The `idle()` promises waiting: [resolve, reject] of each. */
  #idleWaiters = new Set();
  #stopWaitingForEngine = null;

  /**
   * @param {((type: string) => unknown) | null} loadSource the registry's loader (null: none)
   * @param {{ frame(frame: object, strings: string[]): void, notify(type: string): void }} page
   */
  constructor(loadSource, page) {
    this.#loadSource = loadSource;
    this.#page = page;
    this.#engines = new Engines(this);
  }

  /**
   * The callbacks the core is made with. They reach this driver weakly, from a scope of their
   * own: the core holds them, and must not hold the registry.
   */
  callbacks() {
    return this.#engines.callbacks(Driver.#waker(new WeakRef(this)));
  }

  static #waker(driver) {
    return () => driver.deref()?.#scheduleDrain();
  }

  /** Binds the core made with `callbacks()`; waits for the engine module if it is not ready. */
  attach(core) {
    this.#core = core;
    this.#engines.configure(core.engineConfig());
    if (!hasEngine()) {
      this.#stopWaitingForEngine = onEngine((error) =>
        this.report((c) => (error ? c.handleEngineModuleFailed(error.message) : c.handleEngineModuleReady())),
      );
    }
  }

  /** Reports an event to the core (`fn(core)`), then performs what follows. */
  report(fn) {
    if (this.#closed) return;
    quietly(() => fn(this.#core));
    this.#drain();
  }

  /** A Worker engine began a line: the core moves its deadline and says when the timer fires next. */
  began(engine, seq) {
    if (!this.#closed) this.#arm(quietly(() => this.#core.handleBegan(engine, seq)));
  }

  /** A Worker engine's work moved on during a line: the core moves its deadline, as for `began`. */
  progress(engine) {
    if (!this.#closed) this.#arm(quietly(() => this.#core.handleProgress(engine)));
  }

  /** Resolves when a poll says nothing is under way (at once if the driver is closed). */
  idle() {
    if (this.#closed) return Promise.resolve();
    const waiting = new Promise((resolve, reject) => this.#idleWaiters.add([resolve, reject]));
    this.#scheduleDrain(); // whatever the core has queued is under way before we wait on it
    return waiting;
  }

  /** Bytes of linear memory held by the engines of `type` in this thread (all types: null). */
  memoryBytes(type) {
    return this.#engines.memoryBytes(type);
  }

  /**
   * Ends every engine and the timer; `idle()` waiters resolve, or reject with `error` (the
   * core trapped). Nothing is performed or reported from then on.
   */
  close(error) {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopWaitingForEngine?.();
    clearTimeout(this.#timer);
    this.#engines.close();
    const waiters = [...this.#idleWaiters];
    this.#idleWaiters.clear();
    for (const [resolve, reject] of waiters) (error ? reject(error) : resolve());
  }

  /** The core woke the driver from inside a call: it drains once that task's calls are done. */
  #scheduleDrain() {
    if (this.#drainQueued || this.#closed) return;
    this.#drainQueued = true;
    // A drain that runs first (after a report) takes the commands: this one is off.
    queueMicrotask(() => this.#drainQueued && this.#drain());
  }

  /** Performs every command the core has queued, re-arms the timer, and tells idle() waiters: one call to the core. */
  #drain() {
    this.#drainQueued = false;
    if (this.#closed) return;
    const [polled, ...ops] = quietly(() => this.#core.poll()) ?? [];
    if (polled === undefined) return;
    const { commands, timeoutMs, idle } = JSON.parse(polled);
    let sent = 0; // each `send` command's ops frame travels beside the JSON, in order
    for (const c of commands) {
      if (this.#closed) return;
      switch (c.kind) {
        case "load":
          this.#load(c.adapterType, c.token);
          break;
        case "frame":
          atNextFrame(() => this.#frame());
          break;
        case "notify":
          this.#page.notify(c.adapterType);
          break;
        default:
          this.#engines.perform(c, c.kind === "send" ? ops[sent++] : undefined);
      }
    }
    if (this.#closed) return;
    this.#arm(timeoutMs ?? undefined);
    if (idle && this.#idleWaiters.size) {
      const waiters = [...this.#idleWaiters];
      this.#idleWaiters.clear();
      for (const [resolve] of waiters) resolve();
    }
  }

  /** Asks the registry's loader for `type`'s source and reports what it answered. */
  #load(type, token) {
    const loader = this.#loadSource;
    Promise.resolve()
      .then(() => loader(type))
      .then(
        (value) => this.report((core) => core.handleLoaded(type, token, value)),
        (error) => this.report((core) => core.handleLoadFailed(type, token, error instanceof Error ? error.message : String(error))),
      );
  }

  /** The page's frame: takes it from the core and hands it to the registry. */
  #frame() {
    if (this.#closed) return;
    const taken = quietly(() => this.#core.takeFrame());
    if (taken === undefined) return;
    const [frame, ...strings] = taken;
    this.#page.frame(JSON.parse(frame), strings);
    // The frame taken may be the last thing under way.
    if (this.#idleWaiters.size) this.#drain();
  }

  /** Keeps the one timer at the core's next deadline (`at`: ms on performance.now()). */
  #arm(at) {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (at === undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.report((core) => core.handleTimeout());
    }, Math.max(0, at - performance.now()));
  }
}
