// The page's Worker engines' Workers: made, handed out, and ended. A Worker whose engine ended
// is asked to drop it, and one that answers is idle: the core says how long it is kept for the
// next engine (`idleWorkerKeepMs`) and how long to wait for the answer (`workerEndWaitMs`);
// crates/parsebox-live/src/worker_pool.rs has the rules and why. This file holds the Workers.

import { inNode } from "./engine.js";
import { idleWorkerKeepMs, workerEndWaitMs } from "./parsebox_wasm.js";

/**
 * Idle Workers, the last kept taken first; `timer` terminates one kept for a while only.
 * @typedef {{ worker: Worker, timer: ReturnType<typeof setTimeout> | null }} Idle
 * @type {Idle[]}
 */
const idle = [];

/** A Worker running worker.js with no engine: a kept one, or a new one. */
export function takeWorker() {
  const kept = idle.pop();
  if (!kept) return new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  clearTimeout(kept.timer ?? undefined);
  return kept.worker;
}

/** Stops listening to `worker`: what it sends from now on is nobody's. */
function unhook(worker) {
  worker.onmessage = null;
  worker.onerror = null;
}

/** Keeps `worker` (worker.js, no engine) for a later engine: until one takes it, or as long as the core says. */
export function keepWorker(worker) {
  unhook(worker);
  const keepMs = idleWorkerKeepMs(idle.length, inNode());
  if (keepMs === 0) {
    worker.terminate();
    return;
  }
  /** @type {Idle} */
  const kept = { worker, timer: null };
  if (keepMs !== undefined) {
    kept.timer = setTimeout(() => {
      // (Taken meanwhile, it is not in `idle` and its timer was cleared.)
      const at = idle.indexOf(kept);
      if (at >= 0) idle.splice(at, 1);
      worker.terminate();
    }, keepMs);
  }
  idle.push(kept);
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
