// A Worker engine: one adapter's engine instance, off the page's thread, so the core can end it
// at a deadline (terminate) when a line runs away. It parses what it is sent, in order, and
// reports `began` before each live line and each answer as soon as it has it.
import { EngineInstance } from "./engine.js";

let engine = null; // null before start and after a trap: the page terminates this worker

const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

self.onmessage = ({ data: m }) => {
  if (m.module) {
    try {
      engine = new EngineInstance(m.module, { maxMemoryBytes: m.maxMemoryBytes, onBegan: (seq) => self.postMessage({ began: seq }) });
      self.postMessage({ started: engine.start(m.source, m.config) });
    } catch (e) {
      engine = null;
      self.postMessage({ died: describe(e) });
    }
    return;
  }
  if (!engine || !m.ops) return;
  // One op at a time, so each answer leaves as soon as it exists (a later line that hangs
  // must not hold back the answers before it).
  for (const op of m.ops) {
    try {
      const answers = engine.run(JSON.stringify([op]));
      if (answers !== "[]") self.postMessage({ answers });
    } catch (e) {
      engine = null;
      self.postMessage({ died: describe(e) });
      return;
    }
  }
};
