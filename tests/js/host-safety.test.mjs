// What the host must survive from its own callers and its parsers: re-entrant built-ins,
// listeners that dispose, options that would overflow, chunks the core refuses, and an adapter
// that hoards memory. Each test is a failure seen on main 04f09aa (issue "Trusted core, isolated
// engines").
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";

import { nestedSources } from "../corpus/nesting-shapes.mjs";
import { initSync, ParserRegistry, TranscriptBuilder, ParseboxChunkError, ParseboxMemoryError, ParseboxOptionsError, ParseboxReentrancyError } from "../../pkg/index.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });

const COUNTER = `
export function createStdoutParser() {
  let n = 0;
  return { parseLine(line, ts) { n++; return [{ kind: "assistant", ts, text: n + ":" + line }]; }, reset() { n = 0; } };
}`;

test("options that would overflow a budget are refused where they are given", () => {
  for (const options of [{ lineBudgetMs: 1e308 }, { initBudgetMs: 1e300 }, { hardDeadlineMs: 1e308 }, { lineBudgetMs: 3_600_001 }, { maxEntriesPerLine: 1e12 }, { maxMemoryBytes: 1 << 20 }, { maxMemoryBytes: 2 ** 40 }, { maxMemoryBytes: 1.5e8 + 0.5 }]) {
    assert.throws(() => new ParserRegistry({ loadSource: null, ...options }), ParseboxOptionsError, JSON.stringify(options));
  }
  // Node has no Web Workers: asking for them is a clear error, not a registry that never answers.
  assert.throws(() => new ParserRegistry({ loadSource: null, host: "worker" }), (e) => e instanceof ParseboxOptionsError && /needs Web Workers/.test(e.message));
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
  for (const m of seen) assert.match(m, /^ParseboxReentrancyError: ParserRegistry called re-entrantly/);
  // The registry is intact: another type's parser still answers, with its state.
  assert.equal(registry.parseLine("counter", "a", "t")[0].text, "1:a");
  assert.equal(registry.parseLine("counter", "b", "t")[0].text, "2:b");
  registry.dispose();
});

test("a parser that fills its engine's memory: that line is memory_exceeded, with the figures; its history is replayed once, not into the same fault; later lines parsed", () => {
  const MIB = 1 << 20;
  const registry = new ParserRegistry({ loadSource: null, host: "inline", maxMemoryBytes: 40 * MIB });
  // Each "fill" line keeps ~2 MiB more, across lines: no single call is large, the run is.
  registry.registerSource("hog", `
    const kept = [];
    export function createStdoutParser() {
      let n = 0;
      return {
        parseLine(line, ts) {
          n++;
          if (line === "fill") for (let i = 0; i < 10; i++) kept.push("x".repeat(100000) + i + n);
          return [{ kind: "assistant", ts, text: n + ":" + line }];
        },
      };
    }`);
  const builder = new TranscriptBuilder(registry, "hog", { failedLineEntry: "generic" });
  const texts = [];
  for (const line of ["a", ...Array(40).fill("fill"), "b"]) {
    texts.push(...builder.push({ ts: "t", stream: "stdout", chunk: `${line}\n` }).entries.map((e) => e.text));
  }
  const d = registry.diagnostics("hog");
  assert.ok(d.fallbacks.memory_exceeded >= 1, JSON.stringify(d.fallbacks));
  assert.equal(d.fallbacks.engine_fault ?? 0, 0, JSON.stringify(d.fallbacks));
  assert.match(d.lastError, /memory maximum of 40 MiB \(maxMemoryBytes\)/);
  assert.ok(d.host.stateLost >= 1, JSON.stringify(d.host));
  // The run went on without the history that filled it: the last line is the parser's own.
  assert.match(texts.at(-1), /^\d+:b$/);
  assert.equal(registry.status("hog").state, "ready");
  builder.dispose();
  registry.dispose();
});

test("the core is never filled: a transcript past its budget shows lines generic, refuses what cannot fit, and the registry bounds all its transcripts", () => {
  // Before: one parser returning 31 strings of 1 MB for a 2-byte line grew the shared core to
  // its 2 GiB maximum in one push of 30 lines and trapped it; every registry was dead after.
  const MIB = 1 << 20;
  const registry = new ParserRegistry({ loadSource: null, maxStringBytes: 2 * MIB, maxTranscriptBytesTotal: 24 * MIB });
  registry.registerSource("hog", `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: "x".repeat(${MIB}) + line }]; }`);
  registry.registerSource("small", `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: "ok " + line }]; }`);
  const a = new TranscriptBuilder(registry, "hog", { maxTranscriptBytes: 16 * MIB });
  const lines = Array.from({ length: 30 }, (_, i) => `l${i}\n`).join("");
  const { entries } = a.push({ ts: "t", stream: "stdout", chunk: lines });
  assert.equal(entries.length, 30, "every line shows");
  const big = entries.filter((e) => e.text.length > MIB).length;
  // In real bytes a 1 MiB entry costs the core about 2 MiB (its text, and its timeline item's).
  assert.ok(big >= 5 && big < 9, `lines with their 1 MiB entry: ${big}`);
  assert.deepEqual(entries.at(-1), { kind: "stdout", ts: "t", text: "l29" }, "past the budget: the line itself");
  const counts = a.counts();
  assert.ok(counts.heldBytes <= 16 * MIB, JSON.stringify(counts));
  assert.equal(counts.overBudgetLines, 30 - big);
  // A chunk that cannot fit at all is refused, named; the transcript keeps what it has.
  assert.throws(() => a.push({ ts: "t", stream: "stdout", chunk: "y".repeat(16 * MIB) + "\n" }), ParseboxMemoryError);
  assert.equal(a.entries().length, 30);
  // A second transcript gets what the registry's total leaves it (24 - 16 MiB).
  const b = new TranscriptBuilder(registry, "hog");
  const second = b.push({ ts: "t", stream: "stdout", chunk: lines }).entries;
  const bigB = second.filter((e) => e.text.length > MIB).length;
  assert.ok(bigB >= 2 && big + bigB < 12, `the second transcript's big lines: ${bigB} (the first's: ${big})`);
  const d = registry.diagnostics("hog");
  assert.ok(d.host.transcriptBytes <= 24 * MIB, JSON.stringify(d.host));
  assert.equal(d.host.overBudgetLines, 60 - big - bigB);
  assert.equal(d.host.refusedChunks, 1);
  // Disposing a transcript gives its share back; another type's transcript is unaffected.
  a.dispose();
  const c = new TranscriptBuilder(registry, "small");
  assert.equal(c.push({ ts: "t", stream: "stdout", chunk: "z\n" }).entries[0].text, "ok z");
  assert.equal(b.push({ ts: "t", stream: "stdout", chunk: "again\n" }).entries[0].text.length, MIB + "again".length);
  for (const x of [b, c]) x.dispose();
  registry.dispose();
});

test("a long stored run streamed through one builder with the default budgets: refused by name before the core is in danger, and the registry carries on", () => {
  // Before: a 407 MB run in one builder trapped the core; every registry of the page was dead.
  const MIB = 1 << 20;
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "plain", { timeline: false });
  const line = (i) => `{"type":"event","n":${i},"text":"${"lorem ipsum dolor sit amet ".repeat(10)}"}\n`;
  let chunk = "";
  for (let i = 0; chunk.length < 64 * 1024; i++) chunk += line(i);
  let pushed = 0;
  let refused = null;
  while (!refused && pushed < 400 * MIB) {
    try {
      builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk });
      pushed += chunk.length;
    } catch (e) {
      refused = e;
    }
  }
  assert.ok(refused instanceof ParseboxMemoryError, String(refused));
  assert.match(refused.message, /maxTranscriptBytes/);
  // The 256 MiB budget counts the real bytes the core holds for the transcript: each line's
  // text once (its entry shares it with the chunk kept for rebuilds), its entry and indexes,
  // its run's journal: about 1.3 bytes a log byte here, so some 175 MiB of log fit.
  assert.ok(pushed > 32 * MIB && pushed < 256 * MIB, `refused after ${Math.round(pushed / MIB)} MiB of log`);
  assert.equal(registry.diagnostics("plain").host.refusedChunks, 1);
  // The transcript keeps what it had; the registry and a new transcript work.
  assert.ok(builder.entries().length > 100_000);
  assert.deepEqual(registry.parseLine("plain", "still here", "t"), [{ kind: "stdout", ts: "t", text: "still here" }]);
  builder.dispose();
  const next = new TranscriptBuilder(registry, "plain");
  assert.equal(next.push({ ts: "t", stream: "stdout", chunk: "after\n" }).entries[0].text, "after");
  next.dispose();
  registry.dispose();
});

test("a built-in that pushes into or rebuilds its own builder gets a named error; a BigInt seq is a chunk error", () => {
  const registry = new ParserRegistry({ loadSource: null });
  let builder = null;
  const seen = [];
  const calls = {
    push: () => builder.push({ ts: "t", stream: "stdout", chunk: "inner\n" }),
    rebuild: () => builder.rebuild(),
  };
  let call = calls.push;
  registry.registerBuiltin("b", {
    parseStdoutLine(line, ts) {
      try {
        call();
      } catch (e) {
        seen.push(e);
      }
      return [{ kind: "assistant", ts, text: line }];
    },
  });
  builder = new TranscriptBuilder(registry, "b");
  assert.deepEqual(builder.push({ ts: "t", stream: "stdout", chunk: "one\n" }).entries.map((e) => e.text), ["one"]);
  call = calls.rebuild;
  assert.deepEqual(builder.push({ ts: "t", stream: "stdout", chunk: "two\n" }).entries.map((e) => e.text), ["two"]);
  assert.equal(seen.length, 2);
  for (const e of seen) {
    assert.ok(e instanceof ParseboxReentrancyError, `${e?.name}: ${e?.message}`);
    assert.match(e.message, /from inside one of its own calls/);
  }
  // The builder carries on.
  call = () => {};
  assert.throws(() => builder.push({ ts: "t", stream: "stdout", chunk: "x\n", seq: 1n }), (e) => e instanceof ParseboxChunkError && /BigInt/.test(e.message));
  assert.deepEqual(builder.push({ ts: "t", stream: "stdout", chunk: "three\n", seq: 3 }).entries.map((e) => e.text), ["three"]);
  assert.deepEqual(builder.entries().map((e) => e.text), ["one", "two", "three"]);
  builder.dispose();
  registry.dispose();
});

test("a built-in's return value cannot take the core down: cycles, deep nesting, throwing getters and Proxies fail their line alone", () => {
  // Before, the core walked the value itself: a cycle or deep nesting overflowed its stack
  // ("memory access out of bounds" on every later call), and a getter's exception left the
  // core held, so every later call was refused as re-entrant.
  const deep = () => {
    const root = {};
    let o = root;
    for (let i = 0; i < 100_000; i++) o = o.a = {};
    return root;
  };
  const returns = {
    cycle: (line, ts) => {
      const e = { kind: "tool_call", ts, name: "x" };
      e.input = e;
      return [e];
    },
    deep: (line, ts) => [{ kind: "tool_call", ts, name: "x", input: deep() }],
    getter: (line, ts) => [{ get kind() { throw new Error("getter"); }, ts, text: line }],
    proxy: () => new Proxy([], { get() { throw new Error("proxy"); } }),
    bigint: (line, ts) => [{ kind: "tool_call", ts, name: "x", input: { n: 1n } }],
  };
  const registry = new ParserRegistry({ loadSource: null });
  for (const [type, parseStdoutLine] of Object.entries(returns)) {
    registry.registerBuiltin(type, { parseStdoutLine });
    assert.deepEqual(registry.parseLine(type, "x", "t"), [{ kind: "stdout", ts: "t", text: "x" }], type);
    assert.equal(registry.diagnostics(type).fallbacks.bad_return, 1, type);
    assert.equal(registry.status(type).state, "builtin", type);
  }
  // As a sandboxed parser's value does, JSON's rules apply: toJSON and Dates as JSON writes them.
  registry.registerBuiltin("dated", { parseStdoutLine: (line, ts) => [{ kind: "tool_call", ts, name: "x", input: { when: new Date(0), v: { toJSON: () => "J" } } }] });
  assert.deepEqual(registry.parseLine("dated", "x", "t")[0].input, { when: "1970-01-01T00:00:00.000Z", v: "J" });
  registry.dispose();
});

test("what a built-in throws cannot take the core down: an Error whose message or name getter throws", () => {
  // Before, the core read a thrown Error's message with a call that let the getter's exception
  // unwind through it while it was held: every later call was refused as re-entrant.
  const getterThrows = (key) => () => {
    throw Object.defineProperty(new Error("x"), key, { get() { throw new Error("inner"); } });
  };
  const registry = new ParserRegistry({ loadSource: null });
  for (const key of ["message", "name"]) {
    registry.registerBuiltin(key, { parseStdoutLine: getterThrows(key) });
    assert.deepEqual(registry.parseLine(key, "x", "t"), [{ kind: "stdout", ts: "t", text: "x" }], key);
    assert.equal(registry.diagnostics(key).fallbacks.threw, 1, key);
  }
  assert.deepEqual(registry.parseLine("other", "y", "t"), [{ kind: "stdout", ts: "t", text: "y" }]);
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

/** An adapter that keeps 1 MiB more on every line, in its module state. */
const HOARDER = `
const kept = [];
const half = "x".repeat(1 << 19);
export function parseStdoutLine(line, ts) {
  kept.push(half + half + line);
  return [{ kind: "system", ts, text: kept.length + ":" + line }];
}`;

test("an adapter that hoards memory fails alone: the others keep their state and transcripts", () => {
  const registry = new ParserRegistry({ loadSource: null, maxMemoryBytes: 64 << 20 });
  registry.registerSource("hoarder", HOARDER);
  registry.registerSource("counter", COUNTER);
  const builder = new TranscriptBuilder(registry, "counter");
  builder.push({ ts: "t", stream: "stdout", chunk: "a\nb\n" });
  const changes = [];
  registry.onChange((type, status) => changes.push(`${type}:${status.state}`));
  let fellBack = 0;
  for (let i = 0; i < 200; i++) {
    const [entry] = registry.parseLine("hoarder", `line ${i}`, "t");
    if (entry.kind === "stdout") fellBack += 1;
  }
  const hoarder = registry.diagnostics("hoarder");
  assert.ok(fellBack > 0, "past its memory the hoarder's lines fall back");
  assert.ok(hoarder.host.engineFaults + (hoarder.fallbacks.memory_exceeded ?? 0) > 0, JSON.stringify(hoarder));
  assert.ok(hoarder.memoryBytes <= 64 << 20, `the hoarder's instance stays under its cap: ${hoarder.memoryBytes}`);
  // The other adapter: untouched state, untouched transcript.
  builder.push({ ts: "t", stream: "stdout", chunk: "c\n" });
  assert.deepEqual(builder.entries().map((e) => e.text), ["1:a", "2:b", "3:c"]);
  assert.equal(registry.parseLine("counter", "x", "t")[0].text, "1:x");
  assert.equal(registry.status("counter").state, "ready");
  registry.dispose();
});

test("memory comes back after dispose(): each engine instance is freed with its memory", async () => {
  // Full collections on demand (what a long-lived page gets eventually).
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const external = async () => {
    for (let i = 0; i < 4; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 50));
    }
    return process.memoryUsage().external;
  };
  const before = await external();
  const registry = new ParserRegistry({ loadSource: null });
  for (const type of ["a", "b", "c"]) {
    registry.registerSource(type, HOARDER);
    for (let i = 0; i < 30; i++) registry.parseLine(type, `line ${i}`, "t");
  }
  assert.ok(registry.diagnostics().memoryBytes >= 3 * (30 << 20), String(registry.diagnostics().memoryBytes));
  const during = await external();
  registry.dispose();
  assert.throws(() => registry.diagnostics(), /after dispose/);
  const after = await external();
  const mib = (n) => `${Math.round(n / 1048576)} MiB`;
  assert.ok(during - before >= 90 << 20, `three engines hold their hoard: ${mib(before)} → ${mib(during)}`);
  assert.ok(after - before <= 32 << 20, `returned after dispose: ${mib(before)} → ${mib(during)} → ${mib(after)}`);
});

test("a registry and builder dropped without dispose() are collected, engines included", async () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  let collected = 0;
  const watch = new FinalizationRegistry(() => collected++);
  (() => {
    const registry = new ParserRegistry({ loadSource: null });
    registry.registerSource("counter", COUNTER);
    const builder = new TranscriptBuilder(registry, "counter");
    builder.push({ ts: "t", stream: "stdout", chunk: "a\nb\n" });
    watch.register(registry, "registry");
    watch.register(builder, "builder");
  })();
  for (let i = 0; i < 10 && collected < 2; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(collected, 2, "nothing the page dropped is kept alive by the core or its engines");
});

test("a chunk the core refuses is not part of the transcript", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  const builder = new TranscriptBuilder(registry, "counter");
  builder.push({ ts: "t1", stream: "stdout", chunk: "a\n" });
  // A chunk whose seq is not a number: the core refuses it, and it is not kept for rebuilds.
  assert.throws(() => builder.push({ ts: "t2", stream: "stdout", chunk: "b\n", seq: "two" }), ParseboxChunkError);
  // Text with half a surrogate pair travels another way; the core checks it the same.
  assert.throws(() => builder.push({ ts: "t2", stream: "stdout", chunk: "b\ud800\n", seq: "two" }), ParseboxChunkError);
  assert.throws(() => builder.push({ ts: 2, stream: "stdout", chunk: "b\ud800\n" }), /invalid chunk: invalid type: integer `2`, expected a string/);
  assert.throws(() => builder.push(null), /invalid chunk: missing field `ts`/);
  // NaN and Infinity are not "no seq" (JSON would make them null): they are refused too.
  for (const seq of [NaN, Infinity, -Infinity]) {
    assert.throws(() => builder.push({ ts: "t2", stream: "stdout", chunk: "b\n", seq }), /invalid chunk: invalid type: string "(NaN|-?Infinity)", expected u64/);
  }
  assert.throws(() => builder.push({ ts: "t2", stream: "video", chunk: "b\n" }), /unknown variant `video`/);
  // A lone surrogate is not a reason to refuse a chunk: it shows as U+FFFD.
  builder.push({ ts: "t3", stream: "stdout", chunk: "c\ud800\n" });
  assert.deepEqual(builder.entries().map((e) => e.text), ["1:a", "2:c\ufffd"]);
  builder.rebuild();
  assert.deepEqual(builder.entries().map((e) => e.text), ["1:a", "2:c\ufffd"]);
  registry.dispose();
});

test("the clock decides: one long native step inline is counted, its answer kept", () => {
  // /\s+$/ on a long run of spaces is one native regex step, quadratic, unseen by the
  // in-engine budget; the host times the call instead.
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 5 });
  registry.registerSource("slow", "export function parseStdoutLine(line, ts) { return [{ kind: 'system', ts, text: String(/\\s+$/.test(line)) }]; }");
  // The run's first call also builds its realm, which is not counted; on a busy machine the
  // call can still pass 5 ms on its own, so the slow line is counted against what came before.
  registry.parseLine("slow", "warm", "t");
  const before = registry.diagnostics("slow").host.clockOverruns;
  assert.deepEqual(registry.parseLine("slow", " ".repeat(3000) + "x", "t"), [{ kind: "system", ts: "t", text: "false" }]);
  assert.equal(registry.diagnostics("slow").host.clockOverruns, before + 1);
  registry.dispose();
});

test("the clock blames no line for the engine's own work: the rebuild after an overrun is not the next line's time", () => {
  // After the spin line the sandbox rebuilds its realm and replays the 24 lines before it
  // (~500 ms here with the fresh realm, more than the 300 ms line and call budgets), inside the
  // call that parses "after". The engine reports that work with the answer, and the host's
  // clock counts only the rest. (The build before counted it: one clock and one call overrun.)
  // Each honest line takes ~20 ms, a fifteenth of either budget, so a busy machine cannot push
  // it over; the spin line runs its whole budget by design and is the engine's to stop.
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 300, callBudgetMs: 300 });
  registry.registerSource("heavy", readFileSync(fileURLToPath(new URL("../browser/fixtures/heavy-counter.js", import.meta.url)), "utf8"));
  const builder = new TranscriptBuilder(registry, "heavy");
  const lines = Array.from({ length: 24 }, (_, i) => String(i + 1));
  for (const line of [...lines, "spin", "after", "next"]) builder.push({ ts: "t", stream: "stdout", chunk: line + "\n" });
  const shown = builder.entries().map((e) => e.text);
  const d = registry.diagnostics("heavy");
  // The state came back (#25), unless a busy machine pushed the replay past the sandbox's own
  // replay budget, which is counted as state lost (#1).
  const after = d.host.stateLost ? 1 : 25;
  assert.deepEqual(shown.slice(-2), [`after #${after}`, `next #${after + 1}`], JSON.stringify(shown));
  assert.match(shown[24], /^Chat transcript error: parser (exceeded its 300 ms budget|hit an engine limit)/);
  assert.equal(d.host.clockOverruns, 0, JSON.stringify(d.host));
  assert.equal(d.host.callOverruns, 0, JSON.stringify(d.host));
  registry.dispose();
});

test("a budget above the line: a push whose lines together pass callBudgetMs is counted once, and nothing is lost", () => {
  // Each line's work stays far under its own budget; 30 lines in one push pass a 1 ms call
  // budget. Inline (Node's only host) can only count it: every line is still parsed.
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 5000, callBudgetMs: 1 });
  registry.registerSource("busy", "let n = 0; export function parseStdoutLine(line, ts) { let s = 0; for (let i = 0; i < 5000; i++) s += i % 7; n++; return [{ kind: 'system', ts, text: line + ' #' + n }]; }");
  const builder = new TranscriptBuilder(registry, "busy");
  // The run's start: its realm is the engine's work, not counted; its one line may pass 1 ms.
  builder.push({ ts: "t", stream: "stdout", chunk: "first\n" });
  const base = registry.diagnostics("busy").host.callOverruns;
  const lines = Array.from({ length: 30 }, (_, i) => `l${i}`);
  builder.push({ ts: "t", stream: "stdout", chunk: lines.join("\n") + "\n" });
  assert.equal(registry.diagnostics("busy").host.callOverruns, base + 1, "once per call");
  assert.equal(registry.diagnostics("busy").host.clockOverruns, 0, "no line was over its own budget");
  builder.push({ ts: "t", stream: "stdout", chunk: lines.join("\n") + "\n" });
  assert.equal(registry.diagnostics().host.callOverruns, base + 2, "a new call, a new sum (and the registry-wide total adds it)");
  assert.equal(builder.entries().length, 61);
  assert.equal(builder.entries().at(-1).text, "l29 #61");
  assert.equal(registry.status("busy").host, "inline");
  assert.throws(() => new ParserRegistry({ loadSource: null, callBudgetMs: 1e308 }), ParseboxOptionsError);
  builder.dispose();
  registry.dispose();
});

test("a line over budget falls back alone and the parser carries on", () => {
  const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 50 });
  registry.registerSource("spin", "export function parseStdoutLine(line, ts) { if (line === 'spin') { for (;;) {} } return [{ kind: 'system', ts, text: line }]; }");
  registry.parseLine("spin", "one", "t");
  assert.deepEqual(registry.parseLine("spin", "spin", "t"), [{ kind: "stdout", ts: "t", text: "spin" }]);
  assert.equal(registry.parseLine("spin", "two", "t")[0].text, "two");
  const d = registry.diagnostics("spin");
  assert.equal(d.fallbacks.budget_exceeded, 1);
  assert.equal(registry.status("spin").state, "ready");
  registry.dispose();
});

test("a parser state the engine could not restore is counted, not lost silently", async () => {
  // Each line does ~40 reference ms of honest work (counted by the engine, the same on every
  // machine), so 20 lines are more than the engine's replay budget (250 reference ms) and the
  // history is not kept. A spin (stopped by boa's loop limit) leaves the realm unusable: the
  // parser starts over, and diagnostics say so.
  const source = `
export function createStdoutParser() {
  let n = 0;
  return { parseLine(line, ts) {
    if (line === "spin") for (;;) {}
    n++; let x = 0; for (let i = 0; i < 400000; i++) x += i;
    return [{ kind: "assistant", ts, text: String(n) }];
  } };
}`;
  const registry = new ParserRegistry({ loadSource: null, host: "inline", lineBudgetMs: 5000 });
  registry.registerSource("slow", source);
  await registry.idle();
  const run = registry.adapter("slow").createStdoutParser();
  // A count of lines, not a time: budgets count work, so a slow machine replays the same.
  for (let lines = 1; lines <= 20; lines++) {
    assert.deepEqual(run.parseLine("line", "t").map((e) => e.text), [String(lines)]);
  }
  run.parseLine("spin", "t");
  assert.deepEqual(run.parseLine("after", "t").map((e) => e.text), ["1"]);
  assert.equal(registry.diagnostics("slow").host.stateLost, 1);
  registry.dispose();
});

test("one load rule in every host: a parser with a regex that can backtrack without end loads inline too; the line it hangs is stopped at the deadline and falls back alone, the run keeps its state", async (t) => {
  // Issue 54: the same honest parser loaded in a Worker and was refused inline with
  // `unsafe_regex`. Inline, the engine's own loops now stop a line whose count of work stopped
  // moving for `hardDeadlineMs` (one native step), as a Worker's deadline does.
  const source = readFileSync(fileURLToPath(new URL("../corpus/hostile/regex_literal_catastrophic.js", import.meta.url)), "utf8");
  const registry = new ParserRegistry({ loadSource: null, host: "inline", hardDeadlineMs: 300, lineBudgetMs: 50 });
  t.after(() => registry.dispose());
  registry.registerSource("re", source);
  await registry.idle();
  assert.equal(registry.status("re").state, "ready", JSON.stringify(registry.status("re")));
  const builder = new TranscriptBuilder(registry, "re", { failedLineEntry: "generic" });
  builder.push({ ts: "t", stream: "stdout", chunk: "a\nattack\nb\n" });
  assert.deepEqual(builder.entries().map((e) => e.text), ["a #1", "attack", "b #2"]);
  const d = registry.diagnostics("re");
  assert.equal(d.fallbacks.deadline, 1, JSON.stringify(d));
  assert.match(d.lastError, /deadline in the inline host twice/);
  builder.dispose();
});

test("nesting is bounded before parsing, within what the page's stack parses: 24,000 parentheses are refused as too_large, 63 levels of every shape load and answer", async (t) => {
  // Issue 56: boa's parser descends one native call chain a nesting level. The native command
  // aborted on a 48 KB source of parentheses, and an inline engine died (engine_fault) at
  // 120-400 levels, depending on the shape.
  const deep = readFileSync(fileURLToPath(new URL("../corpus/hostile/deep_nesting.js", import.meta.url)), "utf8");
  const registry = new ParserRegistry({ loadSource: null, host: "inline" });
  t.after(() => registry.dispose());
  registry.registerSource("deep", deep);
  await registry.idle();
  const refused = registry.status("deep");
  assert.equal(refused.state, "failed", JSON.stringify(refused));
  assert.equal(refused.error.code, "too_large");
  assert.match(refused.error.message, /nests deeper than 64 levels/);
  // The line shows the generic entry, and the registry goes on.
  assert.deepEqual(registry.parseLine("deep", "x", "t"), [{ kind: "stdout", ts: "t", text: "x" }]);
  for (const [name, source] of Object.entries(nestedSources(63))) {
    registry.registerSource(name, source);
    await registry.idle();
    assert.equal(registry.status(name).state, "ready", `${name}: ${JSON.stringify(registry.status(name))}`);
    assert.deepEqual(registry.parseLine(name, "x", "t"), [{ kind: "assistant", ts: "t", text: "x!" }], name);
  }
});
