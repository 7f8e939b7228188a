// What a live run view asks of TranscriptBuilder: a window of the latest chunks whose changes a
// renderer can follow, duplicate chunks dropped, and redaction switched without a re-parse.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder, ParseboxOptionsError } from "../../pkg/index.js";

const pkg = (p) => fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url));
initSync({ module: readFileSync(pkg("parsebox_wasm_bg.wasm")), engine: readFileSync(pkg("parsebox_engine.wasm")) });

/** `CALL <id>`, `OK <id>`, `+<text>` (a streamed delta); anything else is an assistant message. */
function toolsParser(counter = { calls: 0 }) {
  return {
    parseStdoutLine(line, ts) {
      counter.calls++;
      const [word, id] = line.split(" ");
      if (word === "CALL") return [{ kind: "tool_call", ts, name: "Bash", input: { command: "ls" }, toolUseId: id }];
      if (word === "OK") return [{ kind: "tool_result", ts, toolUseId: id, content: "done", isError: false }];
      if (line.startsWith("+")) return [{ kind: "assistant", ts, text: line.slice(1), delta: true }];
      return [{ kind: "assistant", ts, text: line }];
    },
  };
}

function builder(options, counter) {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerBuiltin("tools", toolsParser(counter));
  return new TranscriptBuilder(registry, "tools", options);
}

let clock = 0;
const chunk = (text, stream = "stdout") => ({ ts: new Date(Date.UTC(2026, 0, 1, 10, 0, clock++)).toISOString(), stream, chunk: `${text}\n` });

/** What a renderer keeps: the entries array and the timeline items by id, updated from each change. */
function follower() {
  const entries = [];
  const items = new Map();
  return {
    entries,
    items,
    apply(update) {
      entries.splice(0, update.dropped);
      entries.length = update.from;
      entries.push(...update.entries);
      for (const m of update.timeline.moved ?? []) {
        for (const item of items.values()) item.entries = item.entries.map((e) => (e >= m.at ? e + m.by : e));
      }
      for (const id of update.timeline.removed) items.delete(id);
      for (const item of [...update.timeline.changed, ...update.timeline.added]) items.set(item.id, item);
    },
  };
}

test("a window of the latest chunks: a renderer following the updates holds what the builder holds", () => {
  const b = builder({ maxChunks: 3 });
  const view = follower();
  const script = ["hello", "CALL c1", "OK c1", "+stream", "+ing", "+ more", "after", "CALL c2", "again", "OK c2", "last"];
  let heldForTheMessage = false;
  for (const text of script) {
    view.apply(b.push(chunk(text)));
    assert.deepEqual(view.entries, b.entries());
    const timeline = b.timeline();
    assert.deepEqual([...view.items.values()].sort((x, y) => x.entries[0] - y.entries[0]), timeline);
    if (b.counts().retainedChunks > 3) heldForTheMessage = true;
  }
  assert.ok(heldForTheMessage, "the streamed message kept its chunks past the window until it ended");
  assert.deepEqual(b.entries().map((e) => e.text ?? e.kind), ["again", "tool_result", "last"]);
  // Timeline ids name the run's lines (counted from the run's first, not the window's); a call
  // whose result is in the window keeps its card whole.
  const timeline = b.timeline();
  assert.deepEqual(timeline.map((i) => i.id), ["e7", "e8", "e10"]);
  assert.equal(timeline[0].type, "tool_call");
  assert.equal(timeline[0].toolCall.status, "completed");
  assert.deepEqual(timeline[0].entries, [5, 7]);
  const counts = b.counts();
  assert.equal(counts.retainedChunks, 3);
  assert.equal(counts.droppedChunks, 8);
  assert.equal(counts.droppedEntries, 6);
});

test("a window never cuts a message that is still streaming", () => {
  const b = builder({ maxChunks: 2 });
  for (const piece of ["+Hel", "+lo", "+ world"]) b.push(chunk(piece));
  assert.equal(b.entries()[0].text, "Hello world");
  assert.equal(b.counts().retainedChunks, 3);
});

test("maxRetainedBytes keeps the kept chunks' text under the cap", () => {
  const b = builder({ maxRetainedBytes: 40 });
  for (let i = 0; i < 20; i++) b.push(chunk(`line number ${i}`));
  const counts = b.counts();
  assert.ok(counts.retainedBytes <= 40, JSON.stringify(counts));
  assert.equal(b.entries().at(-1).text, "line number 19");
  assert.equal(b.entries().length, counts.retainedChunks);
});

test("duplicate chunks are dropped and counted, not shown twice", () => {
  const b = builder({ dropDuplicateChunks: true });
  const c = chunk("hello");
  b.push(c);
  const again = b.push({ ...c });
  assert.deepEqual(again.entries, []);
  b.push({ ...c, seq: 3 }); // the socket's copy of the stored chunk
  b.push(chunk("hello")); // same text, another time: a new chunk
  assert.equal(b.entries().length, 2);
  assert.equal(b.counts().duplicateChunks, 2);
});

test("redaction switches without re-parsing, and matches a builder made with it", () => {
  const counter = { calls: 0 };
  const b = builder({}, counter);
  const chunks = [chunk("+open /Users/al"), chunk("+ice/notes.md"), chunk("/home/bob/x"), chunk("C:\\Users\\carol\\y", "stderr")];
  for (const c of chunks) b.push(c);
  const calls = counter.calls;
  const plain = b.entries();
  const up = b.setRedactHomePaths(true);
  assert.equal(up.from, 0);
  assert.equal(up.entries.length, plain.length);
  const redacted = builder({ redactHomePaths: true });
  for (const c of chunks) redacted.push(c);
  assert.deepEqual(b.entries(), redacted.entries());
  assert.notDeepEqual(b.entries(), plain);
  assert.deepEqual(b.setRedactHomePaths(true).entries, [], "no change, nothing reported");
  b.setRedactHomePaths(false);
  assert.deepEqual(b.entries(), plain);
  assert.equal(counter.calls, calls, "no line was parsed again");
});

test("bad window options and arguments are clear errors", () => {
  for (const maxChunks of [0, 1.5, -1, "3", Infinity]) {
    assert.throws(() => builder({ maxChunks }), ParseboxOptionsError, String(maxChunks));
  }
  assert.throws(() => builder({ maxRetainedBytes: 0.5 }), ParseboxOptionsError);
  assert.throws(() => builder({ dropDuplicateChunks: 1 }), ParseboxOptionsError);
  assert.throws(() => builder().setRedactHomePaths("yes"), ParseboxOptionsError);
});
