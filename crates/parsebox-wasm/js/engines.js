// A registry's engines: engine instances in this thread (the core calls them synchronously
// through `callbacks()`) and Worker engines (the driver hands them the core's `startWorker`,
// `send` and `end` commands). What a Worker says is reported to the core through the driver.
// It decides nothing: placement, deadlines, replays and answers are the core's
// (crates/parsebox-host), which a Rust test covers.
import { EngineInstance } from "./engine.js";
import { engineModule } from "./instance.js";
import { endWorker, takeWorker } from "./workers.js";

/** Posts an ops frame to Worker `engine`, if it has one and the frame is not empty. */
function postFrame(workers, engine, ops) {
  // The frame is a fresh buffer: transferred, not copied.
  if (ops?.length) workers.get(engine)?.worker.postMessage({ ops }, [ops.buffer]);
}

export class Engines {
  // What the core's callbacks reach: the engines of this thread, the Workers, and the memory
  // cap. Kept apart from this object so the core (which holds the callbacks) does not hold
  // it. inline: engine id -> { instance, type }; workers: engine id -> { worker,
  // lineDeadlineMs } (the deadline its Worker stops lines at).
  #local = { inline: new Map(), workers: new Map(), maxMemoryBytes: 0 };
  /** The driver: `report(fn)` calls `fn(core)` and performs what follows; `began(engine, seq)`. */
  #driver;
  #closed = false;

  constructor(driver) {
    this.#driver = driver;
  }

  /** Sizes engine memories by the engines' config (JSON; each start brings its own config). */
  configure(configJson) {
    this.#local.maxMemoryBytes = JSON.parse(configJson).maxMemoryBytes;
  }

  /** The callbacks the core calls, synchronously, for engines in this thread; `wake` is the core's wake(). */
  callbacks(wake) {
    const local = this.#local;
    return {
      startInline: (engine, type, source, config) => {
        // The engine stops a line (or the module's evaluation) whose count of work stopped
        // moving for the config's clock backstop: one native step that does not return, such
        // as a regex backtracking without end, cannot hold this thread longer than that.
        const lineDeadlineMs = JSON.parse(config).clockBackstopMs;
        const instance = new EngineInstance(engineModule(), { maxMemoryBytes: local.maxMemoryBytes, lineDeadlineMs });
        local.inline.set(engine, { instance, type });
        return instance.start(source, config);
      },
      // A trap throws through to the core: that engine died, nothing else did.
      runInline: (engine, ops) => local.inline.get(engine).instance.runBytes(ops),
      endInline: (engine) => {
        local.inline.get(engine)?.instance.dispose();
        local.inline.delete(engine);
      },
      // A frame the core posts at once, from inside a call.
      postOps: (engine, ops) => postFrame(local.workers, engine, ops),
      wake,
    };
  }

  /** Performs a Worker command (`startWorker`, `send` with its ops frame `ops`, `end`). */
  perform(command, ops) {
    switch (command.kind) {
      case "startWorker":
        this.#startWorker(command);
        break;
      case "send":
        postFrame(this.#local.workers, command.engine, ops);
        break;
      case "end":
        this.#endWorker(command.engine);
        break;
      default:
        break;
    }
  }

  #startWorker({ engine, source, config, answerBatchMs, lineDeadlineMs }) {
    const worker = takeWorker();
    this.#local.workers.set(engine, { worker, lineDeadlineMs });
    const live = () => !this.#closed && this.#local.workers.get(engine)?.worker === worker;
    const report = (fn) => live() && this.#driver.report(fn);
    worker.onmessage = ({ data: m }) => {
      // A line's start only moves the deadline: the core says when the timer fires next.
      if ("began" in m) {
        if (live()) this.#driver.began(engine, m.began);
      } else if ("progress" in m) {
        if (live()) this.#driver.progress(engine);
      } else if ("answers" in m) report((core) => core.handleAnswers(engine, m.answers));
      else if ("started" in m) report((core) => core.handleEngineStarted(engine, m.started));
      else if ("died" in m) report((core) => core.handleEngineDied(engine, m.name, m.died, m.requestedBytes));
      // "stopped": it stopped a line at the deadline; the core's own deadline, armed from the
      // same start, ends the engine (workers.js).
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      report((core) => core.handleEngineDied(engine, "", `worker error: ${event.message ?? "unknown"}`, 0));
    };
    worker.postMessage({ module: engineModule(), source, config, answerBatchMs, lineDeadlineMs, maxMemoryBytes: this.#local.maxMemoryBytes });
  }

  /** Ends Worker `engine`'s engine; its Worker is kept for another when it is idle (workers.js). */
  #endWorker(engine) {
    const w = this.#local.workers.get(engine);
    if (w) endWorker(w.worker, w.lineDeadlineMs);
    this.#local.workers.delete(engine);
  }

  /** Bytes of linear memory held by the engines of `type` in this thread (all types: null). */
  memoryBytes(type) {
    let n = 0;
    for (const e of this.#local.inline.values()) if (type === null || e.type === type) n += e.instance.memoryBytes;
    return n;
  }

  /** Ends every engine. */
  close() {
    this.#closed = true;
    for (const engine of [...this.#local.workers.keys()]) this.#endWorker(engine);
    for (const e of this.#local.inline.values()) e.instance.dispose();
    this.#local.inline.clear();
  }
}
