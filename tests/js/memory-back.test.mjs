// After dispose() of everything, the core's memory goes back (issue 54): a wasm memory cannot
// shrink, so once no registry, builder or follower holds objects of the core instance, a core
// that grew far past its start is replaced by a fresh instance. Before, 58-76 MB of ~100 MB of
// disposed transcripts stayed with the process. A file of its own: the instance is the
// process's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";
import * as glue from "../../pkg/parsebox_wasm.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });

const MIB = 1 << 20;
const TS = "2026-01-01T00:00:00.000Z";
const core = () => glue.initSync();

/** Pushes `chunk` `times` times (refused chunks are fine: the budget holds). */
function pushAll(builder, chunk, times) {
  for (let i = 0; i < times; i++) {
    try {
      builder.push({ ts: TS, stream: "stdout", chunk });
    } catch {
      return;
    }
  }
}

test("once every registry and builder is disposed, the core's memory goes back", async () => {
  const registry = new ParserRegistry({ loadSource: null });
  const builder = new TranscriptBuilder(registry, "plain", { maxTranscriptBytes: 512 * MIB });
  // ~110 MB of plain lines taken (the budget counts them as they would be live): a final
  // line costs the core about its own text.
  pushAll(builder, "2026-01-01 build step 17 ok: 12 ms\n".repeat(200_000 / 35), 600);
  const grown = core().memory.buffer.byteLength;
  assert.ok(grown > 64 * MIB, `the core grew to ${grown}`);
  builder.dispose();
  await Promise.resolve();
  assert.equal(core().memory.buffer.byteLength, grown, "a registry still holds the core: nothing changes");
  registry.dispose();
  await new Promise((resolve) => setTimeout(resolve, 0));
  // A wasm memory cannot shrink: a fresh core instance gives it back.
  assert.ok(core().memory.buffer.byteLength < 32 * MIB, `${core().memory.buffer.byteLength}`);
  const again = new ParserRegistry({ loadSource: null });
  const next = new TranscriptBuilder(again, "plain");
  next.push({ ts: TS, stream: "stdout", chunk: "after\n" });
  assert.deepEqual(next.entries().map((e) => e.text), ["after"]);
  next.dispose();
  again.dispose();
});
