// A Web Worker for Node on worker_threads: just enough of the browser's `Worker` (a module URL,
// `postMessage` with transfers, `onmessage`, `onerror`, `terminate`) for the package's worker
// host (pkg/worker.js) to run in Node, so the fuzzer compares Worker answers too.
//
// This one file plays both sides: imported in the main thread it exports `installWebWorker`;
// started as a thread by it, it gives the thread the worker globals (`self`, `postMessage`,
// `onmessage`) and imports the worker's module.
import { Worker as Thread, isMainThread, parentPort, workerData } from "node:worker_threads";

const SELF = new URL(import.meta.url);

/** The browser's Worker class, in Node. */
class NodeWebWorker {
  #thread;
  onmessage = null;
  onerror = null;

  constructor(url) {
    this.#thread = new Thread(SELF, { workerData: { parseboxWebWorker: String(url) } });
    this.#thread.on("message", (data) => this.onmessage?.({ data }));
    this.#thread.on("error", (error) => this.onerror?.({ message: error?.message ?? String(error), error, preventDefault() {} }));
  }

  postMessage(data, transfer) {
    this.#thread.postMessage(data, transfer);
  }

  terminate() {
    void this.#thread.terminate();
  }
}

/**
 * Makes `globalThis.Worker` the Node Web Worker. Call it after the package's `initSync`: the
 * package then starts no warm-up Worker of its own, and a registry made afterwards sees Workers.
 */
export function installWebWorker() {
  if (typeof globalThis.Worker !== "function") globalThis.Worker = NodeWebWorker;
}

// The thread's side: worker globals, then the worker module; messages flow once it is loaded
// (the port holds earlier ones).
if (!isMainThread && workerData?.parseboxWebWorker) {
  globalThis.self = globalThis;
  globalThis.postMessage = (data, transfer) => parentPort.postMessage(data, transfer);
  await import(workerData.parseboxWebWorker);
  parentPort.on("message", (data) => globalThis.onmessage?.({ data }));
}
