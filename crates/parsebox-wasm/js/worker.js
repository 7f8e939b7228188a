// A Worker engine: one adapter's engine instance, off the page's thread, so the core can end it
// at a deadline (terminate) when a line runs away. It parses what it is sent, in order, and
// posts each `began` the engine reports (the core arms a line's deadline from it). Answers
// leave together, once `answerBatchMs` has passed since the last post and at the end of each
// message (the page handles one message per batch, not per line); with `answerBatchMs` 0 each
// leaves alone as soon as it exists (the core asks for that once a deadline could not tell
// which of several lines was stuck). A live line that runs past `lineDeadlineMs` is stopped
// here (engine.js' `EngineStoppedError`): the Worker posts what it holds and `stopped`, and is
// idle. Asked to `end`, it drops its engine and says `ended`; the page may then give it to
// another engine (workers.js says why it is not terminated).
import { EngineInstance, EngineMemoryError, EngineStoppedError, warmUp } from "./engine.js";

let engine = null; // null before start and after a trap: the page terminates this worker
let batchMs = 0;
let held = []; // answer batches (JSON text) not posted yet

const decoder = new TextDecoder();
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
/** The death report of `e`: its name and description, and the bytes that did not fit if it has them (the core classifies it). */
const death = (e) => ({ died: describe(e), name: e instanceof Error ? e.name : "", requestedBytes: e instanceof EngineMemoryError ? e.requestedBytes : 0 });

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
  if (m.end) {
    engine?.dispose();
    engine = null;
    held = [];
    self.postMessage({ ended: true });
    return;
  }
  if (m.module) {
    try {
      const onBegan = (seq) => self.postMessage({ began: seq });
      // The engine's work moved on during a line: the page moves the line's deadline.
      const onProgress = () => self.postMessage({ progress: true });
      held = [];
      engine = new EngineInstance(m.module, { maxMemoryBytes: m.maxMemoryBytes, onBegan, onProgress, lineDeadlineMs: m.lineDeadlineMs });
      batchMs = m.answerBatchMs;
      self.postMessage({ started: engine.start(m.source, m.config) });
    } catch (e) {
      engine = null;
      self.postMessage(death(e));
    }
    return;
  }
  if (!engine || !m.ops) return;
  // One record at a time, so answers can leave before the whole message is parsed: a later
  // line that hangs holds back at most `answerBatchMs` of the answers before it. The engine
  // says when to post (crates/parsebox-engine-wasm, Session::post_due).
  try {
    engine.queue(m.ops, batchMs);
    while (engine.hasNext) {
      const answers = engine.runNext();
      if (answers.length) held.push(decoder.decode(answers));
      if (engine.postDue) post();
    }
  } catch (e) {
    engine = null;
    post(); // what was answered before the death is owed to the page, and names the line
    // A line stopped at its deadline: the page's own deadline ends the engine (it is armed
    // from the same start, heard later), and finds this Worker idle.
    self.postMessage(e instanceof EngineStoppedError ? { stopped: describe(e) } : death(e));
  }
};

// A message this Worker could not read (its module, say): the page is told, as a death, rather
// than left waiting for an answer that never comes (a warm-up's wait, an engine's start).
self.onmessageerror = () => self.postMessage(death(new Error("this Worker could not read a message from the page")));

/** Posts the held answers, one message (the core reads each batch in order). */
function post() {
  if (held.length === 0) return;
  self.postMessage({ answers: held });
  held = [];
}
