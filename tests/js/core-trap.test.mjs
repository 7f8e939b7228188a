// The trusted core module trapping (issue 41, "a core that survives its own trap"). Budgets keep
// the core from being filled, so no known input traps it; the test fills the core's memory
// itself (blocks taken through the glue's allocator and never freed) to within a few MiB of its
// 2 GiB maximum, and the next push runs out of memory inside the core: a real trap, in the
// middle of a call. Before, every later call on every registry threw a raw `RuntimeError` or
// wasm-bindgen's "recursive use of an object detected", forever.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder, ParseboxCoreError, ParseboxError } from "../../pkg/index.js";
import { buildTranscript, paperclipRegistry, usePaperclipRegistry } from "../../pkg/paperclip.js";
import * as glue from "../../pkg/parsebox_wasm.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });

const MIB = 1 << 20;
const CORE_MAX = 2 ** 31; // .cargo/config.toml: --max-memory
const TS = "2026-01-01T00:00:00Z";
const echo = { parseStdoutLine: (line, ts) => [{ kind: "assistant", ts, text: line }] };
const COUNTER = `
export function createStdoutParser() {
  let n = 0;
  return { parseLine(line, ts) { n++; return [{ kind: "assistant", ts, text: n + ":" + line }]; } };
}`;

/** The live core instance's exports (the glue hands them back once it is initialised). */
const coreExports = () => glue.initSync();

/**
 * Takes the core's memory to within `room` bytes of its maximum, and its allocator's free space
 * to under a block: what a core that something filled looks like.
 */
function fillCore(room) {
  const core = coreExports();
  const big = CORE_MAX - core.memory.buffer.byteLength - 64 * MIB;
  if (big > 0) core.__wbindgen_malloc(big, 8);
  while (core.memory.buffer.byteLength < CORE_MAX - room) core.__wbindgen_malloc(MIB, 8);
}

/** A stdout chunk of one line of `bytes` bytes. */
const bigLine = (bytes) => ({ ts: TS, stream: "stdout", chunk: "y".repeat(bytes) + "\n" });

test("a trap in the core is named, and a fresh core serves new registries while old objects say they must be made again", async () => {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerBuiltin("echo", echo);
  const builder = new TranscriptBuilder(registry, "echo");
  builder.push({ ts: TS, stream: "stdout", chunk: "hello\n" });
  const before = coreExports();

  fillCore(4 * MIB);
  let trap;
  assert.throws(
    () => builder.push(bigLine(3 * MIB)),
    (e) => (trap = e) instanceof ParseboxCoreError && e instanceof ParseboxError && e.cause instanceof WebAssembly.RuntimeError,
  );
  assert.match(trap.message, /core stopped/);

  // A fresh instance, of the module's own size: the filled one is let go of.
  assert.notEqual(coreExports(), before);
  assert.ok(coreExports().memory.buffer.byteLength < 256 * MIB, `${coreExports().memory.buffer.byteLength}`);

  // The objects of the old core say so, on every call, and still let themselves be disposed.
  assert.deepEqual(builder.entries().map((e) => e.text), ["hello"], "a builder still gives what it held");
  assert.throws(() => builder.push({ ts: TS, stream: "stdout", chunk: "more\n" }), (e) => e instanceof ParseboxCoreError && /make a new TranscriptBuilder/.test(e.message));
  assert.throws(() => registry.parseLine("echo", "x", TS), (e) => e instanceof ParseboxCoreError && /make a new ParserRegistry/.test(e.message));
  assert.throws(() => registry.status("echo"), ParseboxCoreError);
  await assert.rejects(registry.idle(), ParseboxCoreError);
  builder.dispose();
  registry.dispose();

  // New registries and builders work, the line that trapped included, and so do parsers in engines.
  const fresh = new ParserRegistry({ loadSource: null });
  fresh.registerBuiltin("echo", echo);
  const again = new TranscriptBuilder(fresh, "echo");
  again.push({ ts: TS, stream: "stdout", chunk: "hello\n" });
  again.push(bigLine(3 * MIB));
  assert.deepEqual(again.entries().map((e) => e.text.length), [5, 3 * MIB]);
  fresh.registerSource("counter", COUNTER);
  await fresh.idle();
  assert.deepEqual([fresh.parseLine("counter", "a", TS)[0].text, fresh.parseLine("counter", "b", TS)[0].text], ["1:a", "2:b"]);
  again.dispose();
  fresh.dispose();
});

test("buildTranscript carries on through a trap: its registry is made again and the list parsed on the fresh core", () => {
  const mine = new ParserRegistry({ loadSource: null });
  usePaperclipRegistry(mine);
  const parse = (line, ts) => [{ kind: "assistant", ts, text: line }];
  const chunks = [{ ts: TS, stream: "stdout", chunk: "first\n" }];
  assert.deepEqual(buildTranscript(chunks, parse).map((e) => e.text), ["first"]);

  fillCore(4 * MIB);
  chunks.push(bigLine(3 * MIB));
  const entries = buildTranscript(chunks, parse);
  assert.deepEqual(entries.map((e) => e.text.length), [5, 3 * MIB]);
  assert.notEqual(paperclipRegistry(), mine, "a registry with the same options took the lost one's place");
  assert.throws(() => mine.status("x"), ParseboxCoreError);
  // And it goes on from there as before: only the new chunk is parsed.
  chunks.push({ ts: TS, stream: "stdout", chunk: "third\n" });
  assert.deepEqual(buildTranscript(chunks, parse).map((e) => e.text.length), [5, 3 * MIB, 5]);
});
