// The page's Worker engines' Workers: made, handed out, and ended. A Worker whose engine ended
// is asked to drop it, and one that answers is idle: the core says whether it is kept for the
// next engine (`keepsIdleWorker`) and how long to wait for the answer (`workerEndWaitMs`);
// crates/parsebox-live/src/worker_pool.rs has the rules and why. This file holds the Workers.

import { inNode } from "./engine.js";
import { keepsIdleWorker, workerEndWaitMs } from "./parsebox_wasm.js";

/** @type {Worker[]} */
const idle = [];

/** A Worker running worker.js with no engine: a kept one, or a new one. */
export function takeWorker() {
  return idle.pop() ?? new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
}

/** Stops listening to `worker`: what it sends from now on is nobody's. */
function unhook(worker) {
  worker.onmessage = null;
  worker.onerror = null;
}

/** Keeps `worker` (worker.js, no engine) for a later engine, or terminates it past the limit. */
export function keepWorker(worker) {
  unhook(worker);
  if (keepsIdleWorker(idle.length, inNode())) idle.push(worker);
  else worker.terminate();
}

/** Terminates `worker`, which failed or did not answer. */
export function dropWorker(worker) {
  unhook(worker);
  worker.terminate();
}

/**
 * Ends the engine running in `worker`: asks it to drop the engine, and keeps the Worker once it
 * says it did; terminates it when it has not within the core's wait for `lineDeadlineMs` (a
 * line it is running is stopped by then). Messages it sends meanwhile are not the engine's any
 * more.
 * @param {Worker} worker
 * @param {number} lineDeadlineMs
 */
export function endWorker(worker, lineDeadlineMs) {
  const timer = setTimeout(() => dropWorker(worker), workerEndWaitMs(lineDeadlineMs));
  worker.onerror = () => {
    clearTimeout(timer);
    dropWorker(worker);
  };
  worker.onmessage = ({ data }) => {
    if (!data?.ended) return;
    clearTimeout(timer);
    keepWorker(worker);
  };
  worker.postMessage({ end: true });
}
