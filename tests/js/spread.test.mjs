// A finished run opened at once, in Node (worker_threads standing in for Web Workers): with
// `maxWorkers` above 1 its stateless lines are parsed in several Workers, and the page gets the
// entries one Worker gives, each in its line's place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";
import { installWebWorker } from "../fuzz/web-worker.mjs";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });
installWebWorker();

// A stateless parser (only parseStdoutLine) whose answers differ by line: nothing, one entry,
// two, a tool call, a throw (the line falls back alone). Each line costs it some work (a
// checksum), so the run holds seconds of it: more Workers start only for a backlog that holds
// more work than a Worker's start costs.
const PARSER = `export function parseStdoutLine(line, ts) {
  let sum = 0;
  for (let i = 0; i < 2000; i++) sum = (sum * 31 + i + line.length) % 1000003;
  const n = Number(line.slice(1));
  if (sum < 0) return [];
  if (n % 7 === 0) return [];
  if (n % 11 === 0) return [{ kind: "system", ts, text: "a" + n }, { kind: "assistant", ts, text: "b" + n }];
  if (n % 13 === 0) return [{ kind: "tool_call", ts, name: "read", input: { path: "/p/" + n }, toolUseId: "t" + n }];
  if (n % 97 === 0) throw new Error("bad line " + n);
  return [{ kind: "stdout", ts, text: line.toUpperCase() }];
}`;

const LINES = 3_000;
const log = Array.from({ length: LINES }, (_, i) => `l${i}`).join("\n") + "\n";

/** The run opened at once in a registry with `maxWorkers`: entries, timeline, diagnostics. */
async function opened(maxWorkers, t) {
  const t0 = performance.now();
  const registry = new ParserRegistry({ loadSource: null, host: "worker", maxWorkers });
  t.after(() => registry.dispose());
  registry.registerSource("s", PARSER);
  await registry.idle();
  // The page has parsed some of the type's lines before (a live run): the pace is known. (A
  // parser never run yet takes its first 8,192 lines in one Worker.)
  const before = new TranscriptBuilder(registry, "s", { timeline: false });
  before.push({ ts: "t", stream: "stdout", chunk: Array.from({ length: 300 }, (_, i) => `w${i}`).join("\n") + "\n" });
  await registry.idle();
  before.dispose();
  const builder = new TranscriptBuilder(registry, "s");
  // As a finished run's stored chunks arrive: a few large pushes, one after another.
  for (let at = 0; at < log.length; at += 16_384) builder.push({ ts: "t", stream: "stdout", chunk: log.slice(at, at + 16_384) });
  builder.finish();
  await registry.idle();
  if (process.env.SPREAD_TIMES) console.log(`maxWorkers ${maxWorkers}: ${(performance.now() - t0).toFixed(0)} ms`);
  return { entries: builder.entries(), timeline: builder.timeline(), diagnostics: registry.diagnostics("s") };
}

test("a finished run's stateless lines spread over maxWorkers Workers and give the entries of one", async (t) => {
  const one = await opened(1, t);
  const three = await opened(3, t);
  assert.equal(one.diagnostics.host.spreadStarts, 0);
  // How many depends on the pace the machine gives (one start at a time, while the lines
  // waiting hold more than a second of work for the Workers the type has).
  assert.ok(three.diagnostics.host.spreadStarts >= 1, "more Workers took lines");
  assert.equal(three.diagnostics.linesParsed, 300 + LINES);
  assert.deepEqual(three.diagnostics.fallbacks, one.diagnostics.fallbacks, "the same lines fell back");
  assert.equal(three.entries.length, one.entries.length);
  assert.deepEqual(three.entries, one.entries, "the same entries, in the same order");
  assert.deepEqual(three.timeline, one.timeline);
  assert.equal(three.diagnostics.host.staleAnswers, 0, "no line was answered twice");
});
