// The package as a Node user sees it: built pkg/, initSync, the ParserRegistry API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  initSync,
  ParserRegistry,
  TranscriptBuilder,
  ParseboxDisposedError,
  ParseboxOptionsError,
  ParseboxChunkError,
} from "../../pkg/index.js";

const pkg = (p) => fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url));
initSync({ module: readFileSync(pkg("parsebox_wasm_bg.wasm")), engine: readFileSync(pkg("parsebox_engine.wasm")) });

const HERMES = readFileSync(fileURLToPath(new URL("../../../shared/bench/ui-parser.js", import.meta.url)), "utf8");
const COUNTER = `
let made = 0;
export function createStdoutParser() {
  let n = 0; made++;
  return {
    parseLine(line, ts) {
      if (line === "throw") throw new Error("bad line");
      n++;
      return [{ kind: "assistant", ts, text: made + ":" + n + ":" + line }];
    },
    reset() { n = 0; },
  };
}`;

const nextTick = () => new Promise((r) => setTimeout(r, 0));

test("the generic parser answers at once, the adapter's parser loads in the background", async () => {
  const requested = [];
  let release;
  const gate = new Promise((r) => (release = r));
  const registry = new ParserRegistry({
    loadSource: async (type) => {
      requested.push(type);
      await gate;
      return { source: HERMES, contractVersion: "1.0.0" };
    },
  });
  const changes = [];
  registry.onChange((type, status) => changes.push(`${type}:${status.state}`));
  assert.deepEqual(registry.parseLine("hermes", "┊ $ ls /tmp", "t1"), [{ kind: "stdout", ts: "t1", text: "┊ $ ls /tmp" }]);
  await nextTick();
  assert.deepEqual(requested, ["hermes"]);
  assert.equal(registry.status("hermes").state, "loading");
  release();
  await nextTick();
  await nextTick();
  assert.equal(registry.status("hermes").state, "ready");
  assert.ok(changes.includes("hermes:ready"), changes.join());
  const [call] = registry.parseLine("hermes", "┊ $ ls /tmp", "t2");
  assert.equal(call.kind, "tool_call");
  assert.equal(call.name, "shell");
  assert.deepEqual(call.input, { command: "ls /tmp" });
  registry.dispose();
});

test("a failed load is reported, not retried, and reload starts again", async () => {
  let calls = 0;
  const registry = new ParserRegistry({
    loadSource: async () => {
      calls++;
      if (calls === 1) throw new Error("GET /api/adapters/codex/ui-parser.js: 404 Not Found");
      return COUNTER;
    },
  });
  registry.parseLine("codex", "x", "t");
  await nextTick();
  await nextTick();
  const failed = registry.status("codex");
  assert.equal(failed.state, "failed");
  assert.match(failed.reason, /404/);
  registry.parseLine("codex", "y", "t");
  await nextTick();
  assert.equal(calls, 1, "no retries");
  assert.equal(registry.reload("codex").state, "loading");
  await nextTick();
  await nextTick();
  assert.equal(registry.status("codex").state, "ready");
  registry.dispose();
});

test("with loadSource: null, reload starts a registered source again and asks no loader", async () => {
  const registry = new ParserRegistry({ loadSource: null });
  const first = registry.registerSource("counter", COUNTER);
  assert.equal(registry.parseLine("counter", "a", "t")[0].text, "1:1:a");
  const again = registry.reload("counter");
  assert.equal(again.state, "ready");
  assert.ok(again.generation > first.generation, "a new generation");
  assert.equal(registry.parseLine("counter", "b", "t")[0].text, "1:1:b", "a fresh module and parser");
  // Never registered: stays generic, not "failed: loader is not a function".
  assert.equal(registry.reload("unknown").state, "generic");
  await registry.idle();
  assert.equal(registry.status("unknown").state, "generic");
  assert.equal(registry.status("unknown").error, null);
  registry.dispose();
});

test("a loader that answers something else than a source fails the type and says what it got", async () => {
  const SOURCE = "export function parseStdoutLine(line, ts) { return []; }";
  const rows = [
    [42, /returned number/],
    [{ source: 5 }, /returned an object whose source is number/],
    [{}, /returned an object whose source is undefined/],
    [{ source: null }, /returned an object whose source is null/],
    // A contract version that is not a string is refused, not read as "none given".
    [{ source: SOURCE, contractVersion: 1 }, /returned a contractVersion that is number, expected a string/],
  ];
  for (const [answer, reason] of rows) {
    const registry = new ParserRegistry({ loadSource: async () => answer });
    registry.parseLine("odd", "x", "t");
    await registry.idle();
    const status = registry.status("odd");
    assert.equal(status.state, "failed", JSON.stringify(answer));
    assert.match(status.reason, reason);
    assert.equal(status.error.code, "loader_failed");
    registry.dispose();
  }
  for (const answer of [{ source: SOURCE, contractVersion: null }, { source: SOURCE, contractVersion: "1.2.0" }]) {
    const registry = new ParserRegistry({ loadSource: async () => answer });
    registry.parseLine("fine", "x", "t");
    await registry.idle();
    assert.equal(registry.status("fine").state, "ready", JSON.stringify(answer));
    registry.dispose();
  }
});

test("guest failures are data; misuse throws named errors", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const status = registry.registerSource("broken", "export function parseStdoutLine( {");
  assert.equal(status.state, "failed");
  assert.equal(status.error.code, "syntax_error");
  assert.ok(status.error.line >= 1 && status.error.column >= 1, JSON.stringify(status.error));
  assert.equal(registry.registerSource("counter", COUNTER).state, "ready");
  assert.deepEqual(registry.parseLine("counter", "throw", "t"), [{ kind: "stdout", ts: "t", text: "throw" }]);
  assert.equal(registry.diagnostics("counter").fallbacks.threw, 1);
  assert.throws(() => new ParserRegistry({ lineBudgetMS: 5 }), ParseboxOptionsError);
  assert.throws(() => new ParserRegistry({ lineBudgetMs: -1 }), (e) => e instanceof ParseboxOptionsError && e.name === "ParseboxOptionsError");
  assert.throws(() => registry.parseLine("counter", 42, "t"), ParseboxOptionsError);
  registry.dispose();
  assert.throws(() => registry.parseLine("counter", "x", "t"), (e) => e instanceof ParseboxDisposedError && /after dispose/.test(e.message));
});

test("adapter(type) is a drop-in for getUIAdapter: each createStdoutParser() is a fresh run", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  const source = registry.adapter("counter");
  const a = source.createStdoutParser();
  const b = source.createStdoutParser();
  a.parseLine("x", "t");
  assert.equal(a.parseLine("y", "t")[0].text, "1:2:y");
  assert.equal(b.parseLine("z", "t")[0].text, "1:1:z");
  a.reset();
  assert.equal(a.parseLine("w", "t")[0].text, "1:1:w");
  a.dispose();
  assert.throws(() => a.parseLine("v", "t"), ParseboxDisposedError);
  registry.dispose();
});

test("adapter objects are stable per type and parser, and their functions work detached", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  const source = registry.adapter("counter");
  assert.equal(registry.adapter("counter"), source);
  // As Paperclip's buildTranscript takes them: detached from their objects.
  const { createStdoutParser, parseStdoutLine } = source;
  const p = createStdoutParser();
  const { parseLine, reset } = p;
  parseLine("x", "t");
  assert.equal(parseLine("y", "t")[0].text.split(":")[2], "y");
  assert.equal(parseLine("y", "t")[0].text.split(":")[1], "3");
  reset();
  assert.equal(parseLine("z", "t")[0].text.split(":")[1], "1");
  assert.equal(parseStdoutLine("w", "t")[0].kind, "assistant");
  // A new parser for the type: a new object (a React dependency on it sees the change).
  registry.registerSource("counter", COUNTER.replace("assistant", "system"));
  const next = registry.adapter("counter");
  assert.notEqual(next, source);
  assert.equal(next.parseStdoutLine("w", "t")[0].kind, "system");
  assert.equal(registry.adapter("counter"), next);
  p.dispose();
  registry.dispose();
});

test("a failed line shows Paperclip's parse-error entry in a transcript, byte for byte, after a reset", () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counter", COUNTER);
  const builder = new TranscriptBuilder(registry, "counter", { redactHomePaths: true });
  builder.push({ ts: "t1", stream: "stdout", chunk: "a\nb\n" });
  const long = `throw /Users/alice/${"x".repeat(200)}`;
  const { entries } = builder.push({ ts: "t2", stream: "stdout", chunk: "throw\n" });
  assert.equal(
    JSON.stringify(entries),
    JSON.stringify([{ kind: "result", ts: "t2", text: "Chat transcript error: bad line. Falling back for line: throw", inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "transcript_parse_error", isError: true, errors: [] }]),
  );
  // The stateful parser was reset after the failure.
  assert.equal(builder.push({ ts: "t3", stream: "stdout", chunk: "c\n" }).entries[0].text.split(":")[1], "1");
  // Long lines are quoted to 157 UTF-16 units and "..."; the text is redacted.
  const [cut] = builder.push({ ts: "t4", stream: "stdout", chunk: `${long.replace("throw", "x")}\n` }).entries;
  assert.equal(cut.kind, "assistant");
  builder.dispose();
  // A parser that throws on a long line with a home path.
  const thrower = new ParserRegistry({ loadSource: null });
  thrower.registerSource("t", "export function parseStdoutLine() { throw new Error('no'); }");
  const b2 = new TranscriptBuilder(thrower, "t", { redactHomePaths: true });
  const [e2] = b2.push({ ts: "t", stream: "stdout", chunk: `${long}\n` }).entries;
  assert.equal(e2.text, `Chat transcript error: no. Falling back for line: ${long.slice(0, 157).replace("/Users/alice", "/Users/a****")}...`);
  // The generic style keeps the raw line; a single parseLine never turns into the entry.
  const b3 = new TranscriptBuilder(thrower, "t", { failedLineEntry: "generic" });
  assert.deepEqual(b3.push({ ts: "t", stream: "stdout", chunk: "raw\n" }).entries, [{ kind: "stdout", ts: "t", text: "raw" }]);
  assert.deepEqual(thrower.parseLine("t", "raw", "t"), [{ kind: "stdout", ts: "t", text: "raw" }]);
  assert.throws(() => new TranscriptBuilder(thrower, "t", { failedLineEntry: "loud" }), ParseboxOptionsError);
  registry.dispose();
  thrower.dispose();
});

test("a line over maxLineBytes keeps its whole text as the generic entry, and the parser its state", () => {
  const registry = new ParserRegistry({ loadSource: null, maxLineBytes: 1024 });
  registry.registerSource("counter", COUNTER);
  const builder = new TranscriptBuilder(registry, "counter");
  const long = "y".repeat(5000);
  const { entries } = builder.push({ ts: "t1", stream: "stdout", chunk: `a\n${long}\nb\n` });
  assert.deepEqual(entries.map((e) => e.text), ["1:1:a", long, "1:2:b"]);
  assert.equal(entries[1].kind, "stdout");
  assert.deepEqual(registry.parseLine("counter", long, "t"), [{ kind: "stdout", ts: "t", text: long }]);
  const { fallbacks } = registry.diagnostics("counter");
  assert.equal(fallbacks.line_too_long, 2, JSON.stringify(fallbacks));
  builder.dispose();
  registry.dispose();
});

test("a surrogate pair the server split between two chunks is joined; no chunk is refused", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "plain");
  const text = "tool 💬 done\n";
  const cut = text.indexOf("💬") + 1; // between the two halves, as an 8,192-unit cut can fall
  assert.deepEqual(builder.push({ ts: "t1", stream: "stdout", chunk: text.slice(0, cut) }).entries, []);
  assert.deepEqual(builder.push({ ts: "t2", stream: "stdout", chunk: text.slice(cut) }).entries, [{ kind: "stdout", ts: "t2", text: "tool 💬 done" }]);
  // A truly lone half is U+FFFD; the line around it is kept.
  builder.push({ ts: "t3", stream: "stdout", chunk: "x\uD83D" });
  assert.deepEqual(builder.push({ ts: "t4", stream: "stdout", chunk: "y\n" }).entries, [{ kind: "stdout", ts: "t4", text: "x\uFFFDy" }]);
  assert.deepEqual(builder.push({ ts: "t5", stream: "stderr", chunk: "\uDC2C err" }).entries, [{ kind: "stderr", ts: "t5", text: "\uFFFD err" }]);
  builder.dispose();
  registry.dispose();
});

test("parseLine drives the factory's instance; adapter(type).parseStdoutLine is the module's own stateless function", () => {
  // Like grok's parser: a stateless export beside the factory.
  const BOTH = `
export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line }]; }
export function createStdoutParser() {
  let seen = 0;
  return { parseLine(line, ts) { seen++; return [{ kind: "assistant", ts, text: (seen > 1 ? "\\n" : "") + line }]; } };
}`;
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("grok", BOTH);
  const { parseStdoutLine, createStdoutParser } = registry.adapter("grok");
  assert.equal(parseStdoutLine("Confirmed", "t")[0].text, "Confirmed");
  assert.equal(parseStdoutLine("Confirmed", "t")[0].text, "Confirmed");
  // registry.parseLine follows the contract: createStdoutParser takes priority, one instance
  // for the type's default run, so its state carries from line to line.
  assert.equal(registry.parseLine("grok", "Confirmed", "t")[0].text, "Confirmed");
  assert.equal(registry.parseLine("grok", "Confirmed", "t")[0].text, "\nConfirmed");
  assert.equal(parseStdoutLine("Confirmed", "t")[0].text, "Confirmed", "the stateless function is untouched");
  // A run is a createStdoutParser() instance, with its state.
  const run = createStdoutParser();
  assert.equal(run.parseLine("a", "t")[0].text, "a");
  assert.equal(run.parseLine("b", "t")[0].text, "\nb");
  registry.dispose();
});

test("registry.parseLine keeps a stateful parser's state where parseStdoutLine is a fresh instance per call", () => {
  // The case: a module whose parseStdoutLine makes a fresh instance for each line.
  const COUNTING = `
export function createStdoutParser() {
  let n = 0;
  return { parseLine(line, ts) { n++; return [{ kind: "assistant", ts, text: "#" + n }]; }, reset() { n = 0; } };
}
export function parseStdoutLine(l, ts) { return createStdoutParser().parseLine(l, ts); }`;
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("counting", COUNTING);
  const texts = (f) => ["a", "b", "c"].map((l) => f(l)[0].text);
  assert.deepEqual(texts((l) => registry.parseLine("counting", l, "t")), ["#1", "#2", "#3"]);
  const builder = new TranscriptBuilder(registry, "counting");
  builder.push({ ts: "t", stream: "stdout", chunk: "a\nb\nc\n" });
  builder.finish();
  assert.deepEqual(builder.entries().map((e) => e.text), ["#1", "#2", "#3"]);
  const { parseStdoutLine } = registry.adapter("counting");
  assert.deepEqual(texts((l) => parseStdoutLine(l, "t")), ["#1", "#1", "#1"]);
  registry.dispose();
});

test("registerBuiltin calls trusted functions directly", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const status = registry.registerBuiltin("claude_local", { parseStdoutLine: (line, ts) => ({ kind: "assistant", ts, text: line.toUpperCase() }) });
  assert.equal(status.state, "builtin");
  assert.deepEqual(registry.parseLine("claude_local", "hi", "t"), [{ kind: "assistant", ts: "t", text: "HI" }]);
  // A built-in that throws shows Paperclip's parse-error entry in a transcript, worded alike.
  registry.registerBuiltin("thrower", { parseStdoutLine: (line) => { throw line === "obj" ? { code: 7 } : new TypeError("nope"); } });
  const builder = new TranscriptBuilder(registry, "thrower");
  const { entries } = builder.push({ ts: "t", stream: "stdout", chunk: "x\nobj\n" });
  assert.deepEqual(entries.map((e) => e.text), ["Chat transcript error: nope. Falling back for line: x", 'Chat transcript error: {"code":7}. Falling back for line: obj']);
  builder.dispose();
  registry.dispose();
});

test("TranscriptBuilder builds incrementally and rebuilds when the parser becomes ready", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "hermes");
  const first = builder.push({ ts: "t1", stream: "stdout", chunk: "┊ $ ls /tmp\n┊ [done] $ ls /tmp — a b  0.3s\npartial" });
  assert.deepEqual(first.entries.map((e) => e.kind), ["stdout", "stdout"]);
  builder.push({ ts: "t2", stream: "stderr", chunk: "warn\n" });
  registry.registerSource("hermes", HERMES);
  const rebuilt = builder.rebuild();
  assert.deepEqual(rebuilt.map((e) => e.kind), ["tool_call", "tool_result", "stderr"]);
  assert.equal(rebuilt[1].toolUseId, rebuilt[0].toolUseId);
  const end = builder.finish();
  assert.deepEqual(end.entries.map((e) => e.kind), ["assistant"]);
  assert.throws(() => builder.push({ ts: "t", stream: "video", chunk: "x" }), ParseboxChunkError);
  builder.dispose();
  registry.dispose();
});

test("a rebuild after finish() keeps the last partial line (the parser became ready after the run ended)", () => {
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "hermes");
  builder.push({ ts: "t1", stream: "stdout", chunk: "┊ $ ls /tmp\n┊ [done] $ ls /tmp — a b  0.3s\nbye" });
  const end = builder.finish();
  assert.deepEqual(end.entries.map((e) => e.text), ["bye"]);
  registry.registerSource("hermes", HERMES);
  const rebuilt = builder.rebuild();
  assert.deepEqual(rebuilt.map((e) => e.kind), ["tool_call", "tool_result", "assistant"]);
  assert.equal(rebuilt[2].text, "bye");
  assert.deepEqual(builder.timeline().map((i) => i.type), ["tool_call", "assistant"]);
  builder.dispose();
  registry.dispose();
});

test("a rebuild in slices (rebuildSliceMs) gives what it re-parsed in time, then the rest through onUpdate; pushes wait their turn", async () => {
  // The hermes parser: tool calls pair with results across chunks, so the timeline's pairing
  // must survive the slices too.
  const chunks = [];
  for (let i = 0; i < 30; i++) {
    const lines = [];
    for (let j = 0; j < 10; j++) lines.push(j % 2 ? `┊ [done] $ ls /d${i}/${j - 1} — a b  0.3s` : `┊ $ ls /d${i}/${j}`);
    chunks.push({ ts: `t${i}`, stream: "stdout", chunk: lines.join("\n") + "\n" });
  }
  chunks.push({ ts: "t30", stream: "stdout", chunk: "┊ 💬 the last line has no newline" });
  const more = { ts: "t31", stream: "stdout", chunk: "┊ $ echo more\n" };
  // The same run rebuilt in one call, and in slices of (at least) one chunk.
  const run = (options) => {
    const registry = new ParserRegistry({ host: "inline", loadSource: null, ...options });
    const builder = new TranscriptBuilder(registry, "hermes");
    for (const c of chunks) builder.push(c);
    builder.finish();
    registry.registerSource("hermes", HERMES);
    return { registry, builder };
  };
  const whole = run({});
  whole.builder.rebuild();
  whole.builder.push(more);
  const sliced = run({ rebuildSliceMs: 0.001 });
  const updates = [];
  sliced.builder.onUpdate((u) => updates.push(u));
  const view = sliced.builder.rebuild();
  // The first slice frees the old transcript; the lines come in later slices.
  assert.ok(view.length < whole.builder.entries().length, `${view.length} entries after the first slice`);
  const pushed = sliced.builder.push(more); // waits for the chunks before it
  for (const e of pushed.entries) view.push(e);
  await sliced.registry.idle();
  assert.ok(updates.length > 2, `${updates.length} updates`);
  assert.ok(sliced.builder.counts().rebuildSlices > 2, "counted");
  assert.equal(whole.builder.counts().rebuildSlices, 0);
  // A renderer that follows the updates holds the builder's entries.
  for (const { dropped, from, entries } of updates) {
    view.splice(0, dropped);
    view.length = Math.min(view.length, from);
    view.push(...entries);
  }
  assert.deepEqual(sliced.builder.entries(), whole.builder.entries());
  assert.deepEqual(view, whole.builder.entries());
  assert.deepEqual(sliced.builder.timeline(), whole.builder.timeline());
  assert.ok(sliced.builder.timeline().some((i) => i.toolCall?.status === "completed"));
  for (const r of [whole, sliced]) r.registry.dispose();
  assert.throws(() => new ParserRegistry({ rebuildSliceMs: 0 }), ParseboxOptionsError);
});

test("an engine that traps takes down only its adapter: other types answer, no line is lost", () => {
  // A parser that keeps 64 MiB on its first line: its engine instance (32 MiB at most) runs
  // out of memory and traps.
  const registry = new ParserRegistry({ loadSource: null, maxMemoryBytes: 32 << 20 });
  registry.registerSource("hoarder", "const kept = []; const half = 'x'.repeat(1 << 19); export function parseStdoutLine(line, ts) { for (let i = 0; i < 64; i++) kept.push(half + half + i); return null; }");
  registry.registerSource("hermes", HERMES);
  const run = registry.adapter("hermes").createStdoutParser();
  run.parseLine("┊ $ ls", "t");
  assert.deepEqual(registry.parseLine("hoarder", "boom", "t"), [{ kind: "stdout", ts: "t", text: "boom" }]);
  assert.equal(registry.parseLine("hermes", "┊ 💬 thinking", "t")[0].kind, "thinking");
  assert.equal(registry.parseLine("plain", "x", "t")[0].kind, "stdout");
  // The stateful run kept its state: the pending tool call is still known.
  const done = run.parseLine("┊ [done] $ ls — a  0.1s", "t");
  assert.deepEqual(done.map((e) => e.kind), ["tool_result"]);
  registry.dispose();
});

test("a TranscriptBuilder made for a new type starts its load before any push, and idle() waits for it", async () => {
  const loads = [];
  const registry = new ParserRegistry({ loadSource: async (type) => (loads.push(type), COUNTER) });
  const builder = new TranscriptBuilder(registry, "fresh_type");
  await registry.idle();
  assert.deepEqual(loads, ["fresh_type"]);
  assert.equal(registry.status("fresh_type").state, "ready");
  builder.dispose();
  registry.dispose();
});

test("Symbol.dispose: `using` works where the symbol exists, and no method is named \"undefined\" where it does not", async () => {
  const { execFileSync } = await import("node:child_process");
  // As WebKitGTK 2.50: a context with no Symbol.dispose.
  const helper = fileURLToPath(new URL("helpers/without-symbol-dispose.mjs", import.meta.url));
  const without = JSON.parse(execFileSync(process.execPath, ["--experimental-vm-modules", "--no-warnings", helper, pkg("")], { encoding: "utf8" }));
  assert.deepEqual(without, { symbol: "undefined", entries: ["hello"], named: [false, false, false], usedAfter: "ParseboxDisposedError" });
  // Where it exists (Node), it is dispose(): what `using` calls at the end of a block.
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "plain");
  builder[Symbol.dispose]();
  assert.throws(() => builder.entries(), ParseboxDisposedError);
  registry[Symbol.dispose]();
  assert.throws(() => registry.status("plain"), ParseboxDisposedError);
});
