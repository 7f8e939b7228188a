// How many calls into the core a line costs on its way back to the page (issue 43): a line a
// Worker answers reaches `onUpdate` in at most 3 (the answers, one poll, the frame, which folds
// every builder's and React follower's answers in), a line on its way to a Worker costs its push and one poll (the ops frame
// travels in the poll), a line's start in the Worker one call, and an inline `parseLine` is one
// call. Counted by wrapping the core's two
// classes in Node, with worker_threads standing in for Web Workers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";
import { FollowedRunCore, RegistryCore, TranscriptBuilderCore } from "../../pkg/parsebox_wasm.js";
import { RunFollower } from "../../pkg/follow.js";
import { installWebWorker } from "../fuzz/web-worker.mjs";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });
installWebWorker();

// Every call into the core, by method name.
const calls = [];
for (const cls of [RegistryCore, TranscriptBuilderCore, FollowedRunCore]) {
  for (const name of Object.getOwnPropertyNames(cls.prototype)) {
    const method = cls.prototype[name];
    if (name === "constructor" || typeof method !== "function") continue;
    cls.prototype[name] = function (...args) {
      calls.push(name);
      return method.apply(this, args);
    };
  }
}

const PARSER = "export function parseStdoutLine(line, ts) { return [{ kind: 'system', ts, text: 'p:' + line }]; }";

test("a line a Worker answers reaches onUpdate in at most 3 calls into the core", async (t) => {
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource("w", PARSER);
  await registry.idle();
  const builder = new TranscriptBuilder(registry, "w");
  const paths = [];
  for (const line of ["a", "b", "c"]) {
    // The update that shows the parser's entry: on a busy machine a frame may show the
    // line's generic entry first, before the Worker has answered.
    const updated = new Promise((resolve) => {
      const off = builder.onUpdate(() => {
        const at = calls.length; // before the look at the entries, which may call the core
        if (!builder.entries().some((e) => e.text === `p:${line}`)) return;
        off?.();
        resolve(at);
      });
    });
    builder.push({ ts: "t", stream: "stdout", chunk: `${line}\n` });
    const at = await updated;
    // From the Worker's answers to the update, the calls on the line's way back.
    const from = calls.lastIndexOf("handleAnswers", at - 1);
    assert.ok(from >= 0, `the answers came through handleAnswers (${calls.slice(-10).join(", ")})`);
    paths.push(calls.slice(from, at));
  }
  for (const path of paths) assert.ok(path.length <= 3, `at most 3 calls: ${path.join(", ")}`);
  assert.deepEqual(builder.entries().map((e) => e.text), ["p:a", "p:b", "p:c"]);
});

test("a line a Worker answers reaches a React follower's listener in at most 3 calls into the core", async (t) => {
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource("w", PARSER);
  await registry.idle();
  const follower = new RunFollower(registry, "w", false);
  const chunks = [];
  const paths = [];
  for (const line of ["a", "b", "c"]) {
    const heard = new Promise((resolve) => {
      const off = follower.onUpdate(() => {
        const at = calls.length; // before the look at the transcript, which calls the core
        if (!follower.transcript().some((e) => e.text === `p:${line}`)) return;
        off();
        resolve(at);
      });
    });
    chunks.push({ ts: "t", stream: "stdout", chunk: `${line}\n` });
    follower.follow(chunks, false);
    const at = await heard;
    const from = calls.lastIndexOf("handleAnswers", at - 1);
    assert.ok(from >= 0, calls.slice(-10).join(", "));
    paths.push(calls.slice(from, at));
  }
  for (const path of paths) assert.ok(path.length <= 3, `at most 3 calls: ${path.join(", ")}`);
  assert.deepEqual(follower.transcript().map((e) => e.text), ["p:a", "p:b", "p:c"]);
  follower.dispose();
});

test("a line's way to a Worker is one push and one poll, and its start only re-arms the timer", async (t) => {
  const registry = new ParserRegistry({ loadSource: null, host: "worker" });
  t.after(() => registry.dispose());
  registry.registerSource("w", PARSER);
  await registry.idle();
  const builder = new TranscriptBuilder(registry, "w");
  const before = calls.length;
  builder.push({ ts: "t", stream: "stdout", chunk: "a\n" });
  await registry.idle();
  const seen = calls.slice(before);
  // The push, then the drain's one poll, whose batch carries the ops frame (no takeOps): the
  // calls before the first event (the Worker's start of the line, its answers, or a frame
  // timer, which a busy machine may fire before the Worker says anything).
  const event = seen.findIndex((c) => ["handleBegan", "handleAnswers", "takeFrame"].includes(c));
  const out = seen.slice(0, event);
  assert.deepEqual(out, ["push", "poll"], seen.join(", "));
  const began = seen.indexOf("handleBegan");
  assert.ok(began > 0, seen.join(", "));
  assert.notEqual(seen[began + 1], "poll", `no drain after a line's start: ${seen.join(", ")}`);
});

test("idle() waits on the driver's events: a slow line costs no call into the core while it runs", async (t) => {
  // Before, idle() asked the core every 5 ms; now a poll after each event says when nothing
  // is under way. The count follows the events, not the time: 10 here (the line's start, two
  // frames of the timeline, the answer and its frame, each with its poll), also at twice the work.
  const slow = "export function parseStdoutLine(line, ts) { let x = 0; for (let i = 0; i < 900000; i++) x = (x * 31 + i) % 65521; return [{ kind: 'system', ts, text: line + x }]; }";
  const registry = new ParserRegistry({ loadSource: null, host: "worker", lineBudgetMs: 20000, hardDeadlineMs: 30000 });
  t.after(() => registry.dispose());
  registry.registerSource("s", slow);
  await registry.idle();
  const builder = new TranscriptBuilder(registry, "s");
  builder.push({ ts: "t", stream: "stdout", chunk: "a\n" });
  const before = calls.length;
  const started = performance.now();
  await registry.idle();
  const waited = performance.now() - started;
  const seen = calls.slice(before);
  t.diagnostic(`${seen.length} calls in ${waited.toFixed(0)} ms: ${seen.join(", ")}`);
  assert.ok(seen.length <= 12, seen.join(", "));
  assert.equal(builder.entries()[0].kind, "system");
});

test("an inline parseLine is one call into the core", async (t) => {
  const registry = new ParserRegistry({ loadSource: null, host: "inline" });
  t.after(() => registry.dispose());
  registry.registerSource("i", PARSER);
  await registry.idle();
  registry.parseLine("i", "warm", "t");
  const before = calls.length;
  assert.deepEqual(registry.parseLine("i", "x", "t").map((e) => e.text), ["p:x"]);
  assert.deepEqual(calls.slice(before), ["parseDefault"]);
});
