// Late answers from a Worker engine, in Node (worker_threads standing in for Web Workers, as the
// fuzzer's package side runs them): what a TranscriptBuilder shows the page is what its parser
// answered, after the answer's frame, whatever the answer does to the transcript's end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";
import { installWebWorker } from "../fuzz/web-worker.mjs";
import { buildTranscript, parserSource, setDynamicParserResultNotifier, usePaperclipRegistry } from "../../pkg/paperclip.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });
installWebWorker();

// Most real parsers answer some lines with nothing (a heartbeat, an event they do not show).
const PARSER = `export function parseStdoutLine(line, ts) {
  if (line === "heartbeat") return [];
  if (line === "pair") return [{ kind: "system", ts, text: "one" }, { kind: "system", ts, text: "two" }];
  return [{ kind: "system", ts, text: "p:" + line }];
}`;

for (const timeline of [false, true]) {
  test(`the last line answered with nothing leaves the transcript, in entries() and onUpdate (timeline: ${timeline})`, async (t) => {
    // Before: an answer that only took the last line's generic entry away changed no entry that
    // stayed, so the frame told the page nothing; the generic entry stayed at the end for good
    // (Firefox's corpus run saw it under load: the run's last line answered alone in its frame).
    const registry = new ParserRegistry({ loadSource: null, host: "worker" });
    registry.registerSource("t", PARSER);
    await registry.idle();
    assert.equal(registry.status("t").host, "worker");
    const builder = new TranscriptBuilder(registry, "t", { timeline });
    // A failed assertion must not leave the Worker thread holding the process open.
    t.after(() => registry.dispose());
    const updates = [];
    builder.onUpdate((u) => updates.push(u));
    builder.push({ ts: "t1", stream: "stdout", chunk: "a\nb\n" });
    await registry.idle();
    assert.deepEqual(builder.entries().map((e) => e.text), ["p:a", "p:b"]);

    assert.deepEqual(builder.push({ ts: "t2", stream: "stdout", chunk: "heartbeat\n" }).entries.map((e) => e.text), ["heartbeat"]);
    updates.length = 0;
    await registry.idle();
    assert.deepEqual(builder.entries().map((e) => e.text), ["p:a", "p:b"]);
    // With a timeline, a frame that came before the answer (a busy machine) placed the waiting
    // line as it was first (crates/parsebox-timeline, live.rs): an update of the timeline alone.
    const placedFirst = timeline ? updates.slice(0, -1) : [];
    assert.ok(placedFirst.every((u) => u.from === 3 && u.entries.length === 0 && u.timeline.added.length === 1), JSON.stringify(updates));
    assert.deepEqual(updates.slice(placedFirst.length).map((u) => [u.from, u.entries.length]), [[2, 0]], "one update: nothing from entry 2 on");

    // The same at the end of a line that gave more than one entry, and after finish().
    builder.push({ ts: "t3", stream: "stdout", chunk: "pair\nheartbeat" });
    builder.finish();
    await registry.idle();
    assert.deepEqual(builder.entries().map((e) => e.text), ["p:a", "p:b", "one", "two"]);
    if (timeline) assert.deepEqual(builder.timeline().length, 4);
    builder.dispose();
  });
}

test("a Worker's late answers for a run buildTranscript keeps call the notifier, and the next render shows them", async (t) => {
  // Before, the notifier heard of status changes only: with the browser's default host (a
  // Worker), Paperclip's run view kept showing the generic entries until something else made
  // it render again.
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource("late", PARSER);
  await registry.idle();
  usePaperclipRegistry(registry);
  let notified = 0;
  setDynamicParserResultNotifier(() => notified++);
  t.after(() => setDynamicParserResultNotifier(null));
  const chunks = [{ ts: "t1", stream: "stdout", chunk: "a\nb\n" }];
  const source = parserSource("late");
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["a", "b"], "generic until the Worker answers");
  await registry.idle();
  assert.ok(notified >= 1, "the notifier heard of the answers");
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["p:a", "p:b"]);
});

test("a React follower hears of a Worker's late answers from the frame, also after its list started the run anew", async (t) => {
  // The registry's frame folds a follower's late answers in (the core holds it, as it holds
  // builders): its listeners are told, and its next transcript() shows the answers.
  const { RunFollower } = await import("../../pkg/follow.js");
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource("late", PARSER);
  await registry.idle();
  const follower = new RunFollower(registry, "late", false);
  let heard = 0;
  follower.onUpdate(() => heard++);
  const first = [{ ts: "t1", stream: "stdout", chunk: "a\nb\n" }];
  follower.follow(first, false);
  assert.deepEqual(follower.transcript().map((e) => e.text), ["a", "b"], "generic until the Worker answers");
  await registry.idle();
  assert.equal(heard, 1, "one frame, one call");
  assert.deepEqual(follower.transcript().map((e) => e.text), ["p:a", "p:b"]);
  // Another list of other chunk objects: the run starts anew, and the frame finds it again.
  follower.follow([{ ts: "t2", stream: "stdout", chunk: "c\n" }], false);
  assert.deepEqual(follower.transcript().map((e) => e.text), ["c"]);
  await registry.idle();
  assert.equal(heard, 2);
  assert.deepEqual(follower.transcript().map((e) => e.text), ["p:c"]);
  follower.dispose();
});

test("onChange's late lines say why each one fell back: its code, sentence and what was thrown", async (t) => {
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource(
    "t",
    `export function parseStdoutLine(line, ts) {
      if (line === "throw") throw new Error("no " + line);
      if (line === "bad") return [{ kind: "nonsense", ts }];
      return [{ kind: "system", ts, text: "p:" + line }];
    }`,
  );
  await registry.idle();
  const heard = [];
  registry.onChange((type, _status, lines) => {
    if (lines) heard.push(...lines);
  });
  for (const line of ["ok", "throw", "bad"]) registry.parseLine("t", line, `ts-${line}`);
  await registry.idle();
  const byLine = Object.fromEntries(heard.map((u) => [u.line, u]));
  assert.deepEqual(Object.keys(byLine).sort(), ["bad", "ok", "throw"]);
  assert.equal("failure" in byLine.ok, false, "a line the parser answered has no failure");
  assert.deepEqual(byLine.ok.entries.map((e) => e.text), ["p:ok"]);
  const threw = byLine.throw.failure;
  assert.equal(threw.code, "threw");
  assert.equal(threw.thrown, "no throw");
  assert.match(threw.message, /no throw/);
  assert.deepEqual(byLine.throw.entries.map((e) => [e.kind, e.text]), [["stdout", "throw"]], "the generic entry");
  assert.equal(byLine.bad.failure.code, "all_entries_invalid");
  // The same sentences as the type's counters keep.
  const d = registry.diagnostics("t");
  assert.deepEqual(
    d.fallbackLines.map((f) => f.error),
    [threw, byLine.bad.failure].map((f) => `${f.code}: ${f.message}`),
  );
});

test("onChange's late lines name each entry validation dropped, and with droppedPreviewChars show what it was", async (t) => {
  const source = `export function parseStdoutLine(line, ts) {
    if (line === "mixed") return [{ kind: "system", ts, text: "kept" }, { kind: "nonsense", ts }, { kind: "stdout", ts, text: "é".repeat(300) + "\\n" }];
    return [{ kind: "system", ts, text: "p:" + line }];
  }`;
  const heardWith = async (options) => {
    const registry = new ParserRegistry({ loadSource: null, host: "worker", maxEntriesPerLine: 2, ...options });
    t.after(() => registry.dispose());
    registry.registerSource("t", source);
    await registry.idle();
    const heard = [];
    registry.onChange((_type, _status, lines) => {
      if (lines) heard.push(...lines);
    });
    for (const line of ["ok", "mixed"]) registry.parseLine("t", line, `ts-${line}`);
    await registry.idle();
    return [Object.fromEntries(heard.map((u) => [u.line, u])), registry.diagnostics("t")];
  };
  const [plain, counted] = await heardWith({});
  assert.equal("dropped" in plain.ok, false, "a line that dropped nothing says nothing of it");
  assert.deepEqual(plain.mixed.entries.map((e) => e.text), ["kept"], "the valid entry stands");
  assert.equal("failure" in plain.mixed, false);
  assert.deepEqual(
    plain.mixed.dropped,
    [
      { code: "unknown_kind", message: 'unknown entry kind "nonsense"' },
      { code: "too_many_entries", message: "line produced more than 2 entries (max_entries_per_line)" },
    ],
    "each dropped entry's code and sentence, and no preview unless asked",
  );
  assert.deepEqual(counted.droppedEntries, { unknown_kind: 1, too_many_entries: 1 }, "as diagnostics count them");
  const [previewed] = await heardWith({ droppedPreviewChars: 40 });
  const third = JSON.stringify({ kind: "stdout", ts: "ts-mixed", text: "é".repeat(300) + "\n" });
  assert.deepEqual(
    previewed.mixed.dropped.map((d) => [d.entry, d.entryChars]),
    [
      ['{"kind":"nonsense","ts":"ts-mixed"}', 35],
      [[...third].slice(0, 40).join(""), [...third].length],
    ],
    "the start of each as the parser returned it, in JSON as Node writes it, and its whole length",
  );
  assert.throws(() => new ParserRegistry({ loadSource: null, droppedPreviewChars: 10001 }), /droppedPreviewChars/);
});

test("a started parser's status says its module's format and exports, in a Worker and inline", async (t) => {
  for (const host of ["worker", "inline"]) {
    const registry = new ParserRegistry({ loadSource: null, host });
    t.after(() => registry.dispose());
    registry.registerSource("esm", `export const NAME = "x";\nexport function createStdoutParser() { return { parseLine: () => [] }; }\nexport function parseStdoutLine() { return []; }`);
    registry.registerSource("cjs", `module.exports = { parseStdoutLine: () => [] };`);
    await registry.idle();
    assert.deepEqual(registry.status("esm").module, { format: "esm", exports: ["createStdoutParser", "parseStdoutLine"], otherExports: ["NAME"] }, host);
    assert.equal(registry.status("esm").entryPoint, "createStdoutParser");
    assert.deepEqual(registry.status("cjs").module, { format: "commonjs", exports: ["parseStdoutLine"], otherExports: [] }, host);
    assert.equal(registry.status("none").module, null, "a type with no parser has none");
  }
});
