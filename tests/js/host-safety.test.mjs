// What the host must survive from its own callers: re-entrant built-ins, listeners that dispose,
// options that would overflow, chunks the core refuses, and recovery after an engine trap. Each
// test is a failure seen on main 04f09aa (issue "Trusted core, isolated engines").
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder, ParseboxChunkError, ParseboxOptionsError } from "../../pkg/index.js";

initSync({ module: readFileSync(fileURLToPath(new URL("../../pkg/parsebox_wasm_bg.wasm", import.meta.url))) });

const COUNTER = `
export function createStdoutParser() {
  let n = 0;
  return { parseLine(line, ts) { n++; return [{ kind: "assistant", ts, text: n + ":" + line }]; }, reset() { n = 0; } };
}`;

/** Runs `fn` with the panic hook's console report silenced (the trap is deliberate). */
function quietly(fn) {
  const original = console.error;
  console.error = () => {};
  try {
    return fn();
  } finally {
    console.error = original;
  }
}

test("options that would overflow a budget are refused where they are given", () => {
  for (const options of [{ lineBudgetMs: 1e308 }, { initBudgetMs: 1e300 }, { hardDeadlineMs: 1e308 }, { lineBudgetMs: 3_600_001 }, { maxEntriesPerLine: 1e12 }]) {
    assert.throws(() => new ParserRegistry({ loadSource: null, ...options }), ParseboxOptionsError, JSON.stringify(options));
  }
  // One hour is the most a budget may be, and it works.
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 3_600_000 });
  registry.registerSource("c", COUNTER);
  assert.equal(registry.parseLine("c", "x", "t")[0].text, "1:x");
  registry.dispose();
});

test("a built-in parser that calls back into the registry gets a clear error, never a trap", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const seen = [];
  const reentrant = (call) => ({
    parseStdoutLine(line, ts) {
      try {
        call();
      } catch (e) {
        seen.push(`${e.name}: ${e.message}`);
        throw e;
      }
      return [{ kind: "assistant", ts, text: line }];
    },
  });
  registry.registerBuiltin("parse", reentrant(() => registry.parseLine("parse", "inner", "t")));
  registry.registerBuiltin("status", reentrant(() => registry.status("other")));
  registry.registerSource("counter", COUNTER);
  for (const type of ["parse", "status"]) {
    // The line falls back like any line whose parser threw: shown, counted, not lost.
    assert.deepEqual(registry.parseLine(type, "outer", "t"), [{ kind: "stdout", ts: "t", text: "outer" }], type);
    assert.equal(registry.diagnostics(type).fallbacks.threw, 1, type);
    assert.equal(registry.status(type).state, "builtin", type);
  }
  assert.equal(seen.length, 2);
  for (const m of seen) assert.match(m, /^ParseboxError: ParserRegistry called re-entrantly/);
  // The registry is intact: another type's parser still answers, with its state.
  assert.equal(registry.parseLine("counter", "a", "t")[0].text, "1:a");
  assert.equal(registry.parseLine("counter", "b", "t")[0].text, "2:b");
  registry.dispose();
});

test("a built-in parser that disposes the registry mid-line finishes the line, then the registry is gone", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerBuiltin("b", {
    parseStdoutLine(line, ts) {
      registry.dispose();
      return [{ kind: "assistant", ts, text: line }];
    },
  });
  assert.deepEqual(registry.parseLine("b", "x", "t"), [{ kind: "assistant", ts: "t", text: "x" }]);
  assert.throws(() => registry.parseLine("b", "y", "t"), /after dispose/);
});

test("an onChange listener that disposes the registry leaves no unhandled rejection", async () => {
  const rejections = [];
  const onRejection = (e) => rejections.push(e);
  process.on("unhandledRejection", onRejection);
  try {
    const registry = new ParserRegistry({ loadSource: async () => COUNTER });
    registry.onChange(() => registry.dispose());
    registry.parseLine("a", "x", "t");
    registry.parseLine("b", "x", "t");
    await new Promise((r) => setTimeout(r, 50));
    assert.throws(() => registry.status("a"), /after dispose/);
  } finally {
    await new Promise((r) => setTimeout(r, 10));
    process.off("unhandledRejection", onRejection);
  }
  assert.deepEqual(rejections, []);
});

test("onChange fires after the instance recovers from a trap, for every type it rebuilt", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  registry.registerSource("other", COUNTER);
  registry.parseLine("other", "x", "t");
  const changes = [];
  registry.onChange((type, status) => changes.push(`${type}:${status.state}`));
  quietly(() => registry._faultForTest("counter"));
  assert.ok(changes.includes("counter:failed"), changes.join());
  assert.ok(changes.includes("other:ready"), changes.join());
  registry.dispose();
});

test("a chunk the core refuses is not replayed into the rebuilt builder after a trap", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  const builder = new TranscriptBuilder(registry, "counter");
  builder.push({ ts: "t1", stream: "stdout", chunk: "a\n" });
  // A lone surrogate does not survive JSON: the core refuses the chunk.
  assert.throws(() => builder.push({ ts: "t2", stream: "stdout", chunk: "b\ud800\n" }), ParseboxChunkError);
  quietly(() => registry._faultForTest("other"));
  const update = builder.push({ ts: "t3", stream: "stdout", chunk: "c\n" });
  assert.ok(update.entries.length >= 1);
  assert.deepEqual(builder.entries().map((e) => e.text), ["1:a", "2:c"]);
  registry.dispose();
});

test("diagnostics say what recovery did in-thread and how much memory the instance holds", () => {
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 50 });
  registry.registerSource("spin", "export function parseStdoutLine(line, ts) { if (line === 'spin') { for (;;) {} } return [{ kind: 'system', ts, text: line }]; }");
  registry.parseLine("spin", "one", "t");
  registry.parseLine("spin", "spin", "t");
  registry.parseLine("spin", "two", "t");
  const d = registry.diagnostics("spin");
  assert.equal(d.fallbacks.budget_exceeded, 1);
  assert.equal(d.host.realmRebuilds, 1, JSON.stringify(d.host));
  assert.equal(d.host.replayedLines, 1);
  assert.ok(d.memoryBytes >= 1 << 20, String(d.memoryBytes));
  registry.dispose();
});
