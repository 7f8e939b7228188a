// The page's Worker engines' Workers: made, handed out, and ended. A Worker whose engine ended
// is asked to drop it, and one that answers is idle: it is kept (at most two) for the next
// engine rather than terminated. Only a Worker that does not answer in time is terminated.
//
// Why: in WebKit (JavaScriptCore, WebKitGTK 2.50), terminating a Worker while the engine
// module's code was being compiled for a faster tier left that code in the interpreter for
// every later instance of the module, 4-25x slower for the rest of the page (BENCHMARKS.md,
// session 32). A Worker stops a line past its deadline itself (engine.js' `lineDeadlineMs`), so
// at a deadline the Worker is idle, or nearly, when the page ends its engine.

import { inNode } from "./engine.js";

/** Idle Workers kept for later engines: two in a browser; none in Node (a Web Worker there,
 *  such as the tests' on worker_threads, would keep the process from exiting). */
const MAX_IDLE = inNode() ? 0 : 2;
/** How long an ended engine's Worker may take to say it dropped the engine, beyond the
 *  line deadline it may still be stopping a line at. */
const END_GRACE_MS = 1000;

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
  if (idle.length < MAX_IDLE) idle.push(worker);
  else worker.terminate();
}

/** Terminates `worker`, which failed or did not answer. */
export function dropWorker(worker) {
  unhook(worker);
  worker.terminate();
}

/**
 * Ends the engine running in `worker`: asks it to drop the engine, and keeps the Worker once it
 * says it did; terminates it when it has not within `lineDeadlineMs` (a line it is running is
 * stopped by then) and a grace. Messages it sends meanwhile are not the engine's any more.
 * @param {Worker} worker
 * @param {number} lineDeadlineMs
 */
export function endWorker(worker, lineDeadlineMs) {
  const timer = setTimeout(() => dropWorker(worker), lineDeadlineMs + END_GRACE_MS);
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
