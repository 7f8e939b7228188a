// parsebox's worker host: runs the sandboxed parsers of the adapter types the main thread moved
// here, so that a line which runs away (a backtracking regex, a huge allocation — what boa
// cannot interrupt) is stopped by terminating this worker. The main thread owns every deadline
// and every journal; this side only parses what it is sent, in order.
import { initSync, RegistryCore } from "./parsebox_wasm.js";

let core = null;
let dead = false; // after a trap the instance is unusable: wait to be terminated
const runs = new Map(); // main-thread run key -> this core's run id

function runFor(key, type) {
  let id = runs.get(key);
  if (id === undefined) {
    id = core.createRun(type);
    runs.set(key, id);
  }
  return id;
}

self.onmessage = ({ data: m }) => {
  if (dead) return;
  try {
    switch (m.op) {
      case "init":
        initSync({ module: m.module });
        core = new RegistryCore(m.options);
        break;
      case "register":
        self.postMessage({ op: "registered", status: core.registerSource(m.type, m.source, m.contractVersion ?? undefined) });
        break;
      case "line": {
        // A new run's realm is made before the clock starts: the deadline is the line's alone.
        const id = runFor(m.run, m.type);
        self.postMessage({ op: "begin", seq: m.seq });
        // What the parser did, before the line rule: the page settles and counts it.
        self.postMessage({ op: "result", seq: m.seq, outcome: core.runParseRaw(id, m.line, m.ts) });
        break;
      }
      case "reset":
        if (runs.has(m.run)) core.resetRun(runs.get(m.run));
        break;
      case "drop":
        if (runs.has(m.run)) core.dropRun(runs.get(m.run));
        runs.delete(m.run);
        break;
      default:
        break;
    }
  } catch (e) {
    // A trap (out of memory, a panic): the main thread terminates and respawns this worker.
    dead = true;
    self.postMessage({ op: "fault", seq: m.seq, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
};
