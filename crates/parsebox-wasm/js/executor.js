// The executor: performs the core's engine commands with what only JavaScript has — engine
// instances (in this thread, or in Web Workers) and the one timer — and reports back what
// they did. It decides nothing: placement, deadlines, replays and answers are the core's
// (crates/parsebox-host), which a Rust test covers.
import { EngineInstance } from "./engine.js";
import { quietly } from "./errors.js";
import { engineModule } from "./instance.js";
import { endWorker, takeWorker } from "./workers.js";

/** Posts an ops frame to Worker `engine`, if it has one and the frame is not empty. */
function postFrame(workers, engine, ops) {
  // The frame is a fresh buffer: transferred, not copied.
  if (ops?.length) workers.get(engine)?.worker.postMessage({ ops }, [ops.buffer]);
}

export class Executor {
  #core = null;
  // What the core's callbacks reach: the engines of this thread, the Workers, and the memory
  // cap. Kept apart from the executor so the core (which holds the callbacks) does not hold
  // itself. inline: engine id -> { instance, type }; workers: engine id -> { worker,
  // lineDeadlineMs } (the deadline its Worker stops lines at).
  #local = { inline: new Map(), workers: new Map(), maxMemoryBytes: 0 };
  #after; // called after every report to the core (the registry performs what follows)
  #wake; // the core's wake(): commands wait, take them once the call under way returns
  #timer = null;
  #closed = false;

  constructor(after, wake) {
    this.#after = after;
    this.#wake = wake;
  }

  /** Binds the core; `configJson` is the engines' config (each start brings its own). */
  attach(core, configJson) {
    this.#core = core;
    this.#local.maxMemoryBytes = JSON.parse(configJson).maxMemoryBytes;
  }

  /** The callbacks the core calls, synchronously, for engines in this thread. */
  callbacks() {
    const local = this.#local;
    return {
      startInline: (engine, type, source, config) => {
        const instance = new EngineInstance(engineModule(), { maxMemoryBytes: local.maxMemoryBytes });
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
      wake: this.#wake,
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
    const report = (fn) => {
      if (!live()) return;
      quietly(() => fn(this.#core));
      this.#after();
    };
    worker.onmessage = ({ data: m }) => {
      // A line's start only moves the deadline: the core says when the timer fires next.
      if ("began" in m) {
        if (live()) this.arm(quietly(() => this.#core.handleBegan(engine, m.began)));
      } else if ("answers" in m) report((core) => core.handleAnswers(engine, m.answers));
      else if ("started" in m) report((core) => core.handleEngineStarted(engine, m.started));
      else if ("died" in m) report((core) => (m.outOfMemoryBytes > 0 ? core.handleEngineOutOfMemory(engine, m.outOfMemoryBytes) : core.handleEngineDied(engine, m.died)));
      // "stopped": it stopped a line at the deadline; the core's own deadline, armed from the
      // same start, ends the engine (workers.js).
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      report((core) => core.handleEngineDied(engine, `worker error: ${event.message ?? "unknown"}`));
    };
    worker.postMessage({ module: engineModule(), source, config, answerBatchMs, lineDeadlineMs, maxMemoryBytes: this.#local.maxMemoryBytes });
  }

  /** Ends Worker `engine`'s engine; its Worker is kept for another when it is idle (workers.js). */
  #endWorker(engine) {
    const w = this.#local.workers.get(engine);
    if (w) endWorker(w.worker, w.lineDeadlineMs);
    this.#local.workers.delete(engine);
  }

  /** Keeps the one timer at the core's next deadline (`at`: ms on performance.now()). */
  arm(at) {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (at === undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#closed) return;
      quietly(() => this.#core.handleTimeout());
      this.#after();
    }, Math.max(0, at - performance.now()));
  }

  /** Bytes of linear memory held by the engines of `type` in this thread (all types: null). */
  memoryBytes(type) {
    let n = 0;
    for (const e of this.#local.inline.values()) if (type === null || e.type === type) n += e.instance.memoryBytes;
    return n;
  }

  /** Ends every engine and the timer. */
  close() {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const engine of [...this.#local.workers.keys()]) this.#endWorker(engine);
    for (const e of this.#local.inline.values()) e.instance.dispose();
    this.#local.inline.clear();
  }
}

