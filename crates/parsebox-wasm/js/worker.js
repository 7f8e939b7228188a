// A Worker engine: one adapter's engine instance, off the page's thread, so the core can end it
// at a deadline (terminate) when a line runs away. It parses what it is sent, in order, posts
// each `began` the engine reports (the core arms a line's deadline from it) and each answer as
// soon as it has it.
import { EngineInstance } from "./engine.js";
import { warmUp } from "./warm-up.js";

let engine = null; // null before start and after a trap: the page terminates this worker

const decoder = new TextDecoder();
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

self.onmessage = ({ data: m }) => {
  if (m.warmUp) {
    // A warm-up only saves time: one that throws leaves this Worker as usable as before, so it
    // reports done either way (rethrown, the error would reach the page as an uncaught one).
    try {
      warmUp(m.warmUp);
    } catch {
      // nothing to keep: the next message starts an engine of its own
    }
    self.postMessage({ warmed: true });
    return;
  }
  if (m.module) {
    try {
      const onBegan = (seq) => self.postMessage({ began: seq });
      engine = new EngineInstance(m.module, { maxMemoryBytes: m.maxMemoryBytes, onBegan });
      self.postMessage({ started: engine.start(m.source, m.config) });
    } catch (e) {
      engine = null;
      self.postMessage({ died: describe(e) });
    }
    return;
  }
  if (!engine || !m.ops) return;
  // One record at a time (crates/parsebox-host/src/wire.rs: tag, u32 length, body), so each
  // answer leaves as soon as it exists: a later line that hangs must not hold back the
  // answers before it.
  const ops = m.ops;
  const view = new DataView(ops.buffer, ops.byteOffset, ops.byteLength);
  for (let at = 0; at + 5 <= ops.length; ) {
    const end = at + 5 + view.getUint32(at + 1, true);
    try {
      const answers = engine.runBytes(ops.subarray(at, end), at === 0);
      if (answers.length > 2) self.postMessage({ answers: decoder.decode(answers) });
    } catch (e) {
      engine = null;
      self.postMessage({ died: describe(e) });
      return;
    }
    at = end;
  }
};
