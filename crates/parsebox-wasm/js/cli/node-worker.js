// A browser `Worker` for Node, over `node:worker_threads`: what the package's Worker engines
// need (`postMessage`, `onmessage`, `onerror`, `onmessageerror`, `terminate`) and nothing more.
// The `parsebox` command installs it as `globalThis.Worker` before the package starts, so in
// Node every adapter's engine runs in a thread of its own, as in the page: the core ends a line
// stuck in one native operation by terminating its thread, and replays the run on a fresh one.
// The thread runs the package's own worker.js with `self` and its messages bridged.
import { Worker as Thread } from "node:worker_threads";

/**
 * The thread's first code: `self` as a Worker's global, then worker.js, then the messages
 * (a port holds what comes before its first listener, so none is lost to the import's wait).
 */
const BOOTSTRAP = `
const { parentPort, workerData } = require("node:worker_threads");
globalThis.self = globalThis;
globalThis.postMessage = (message) => parentPort.postMessage(message);
import(workerData).then(() => {
  parentPort.on("message", (data) => globalThis.onmessage?.({ data }));
  parentPort.on("messageerror", () => globalThis.onmessageerror?.());
}, (e) => { throw e; });
`;

/** A Worker on a Node thread; `url` is the module to run (the package's worker.js). */
export class NodeWorker {
  /** @type {((event: { data: unknown }) => void) | null} */
  onmessage = null;
  /** @type {((event: { message: string, preventDefault?: () => void }) => void) | null} */
  onerror = null;
  /** @type {(() => void) | null} */
  onmessageerror = null;
  /** Every thread not ended yet (the registry keeps idle ones for later engines). */
  static #live = new Set();
  #thread;
  #ended = false;

  /** Ends every thread: the command has what it needs, and none may keep the process alive. */
  static terminateAll() {
    for (const w of NodeWorker.#live) w.terminate();
  }

  /** @param {URL | string} url */
  constructor(url) {
    NodeWorker.#live.add(this);
    this.#thread = new Thread(BOOTSTRAP, { eval: true, workerData: String(url) });
    this.#thread.on("message", (data) => this.onmessage?.({ data }));
    this.#thread.on("messageerror", () => this.onmessageerror?.());
    // An error thrown in the thread, or the thread ending unasked (its memory, say): for the
    // page's Worker handlers both are an error event, and the core classifies it as a death.
    this.#thread.on("error", (e) => this.onerror?.({ message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }));
    this.#thread.on("exit", (code) => {
      NodeWorker.#live.delete(this);
      if (!this.#ended) this.onerror?.({ message: `the engine's thread exited (code ${code})` });
    });
  }

  /** @param {unknown} message */
  postMessage(message) {
    if (!this.#ended) this.#thread.postMessage(message);
  }

  /** Ends the thread, whatever it is running (a wasm loop included). */
  terminate() {
    NodeWorker.#live.delete(this);
    this.#ended = true;
    void this.#thread.terminate();
  }
}
