// Memory budgets count real bytes (issue 54): what the shared core's allocator holds for a
// transcript, not an estimate. Ordinary logs with no parser and big valid answers fill their
// transcript's budget and are refused there, alone; the core never traps. Before, an 8 MB log of
// one-character lines trapped the core with `heldBytes` at ~160 MiB of its 256 MiB budget (the
// budget counted ~40 bytes a line, the core kept ~390), and so did two runs of short lines and a
// parser returning dense tool inputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder, ParseboxMemoryError } from "../../pkg/index.js";
import * as glue from "../../pkg/parsebox_wasm.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });

const MIB = 1 << 20;
const CORE_MAX = 2 ** 31; // .cargo/config.toml: --max-memory
const TS = "2026-01-01T00:00:00.000Z";
/** The live core instance (a trap would replace it). */
const core = () => glue.initSync();

/** Pushes `chunk` up to `times` times; how many were taken and refused (only by the budget). */
function pushAll(builder, chunk, times) {
  let taken = 0;
  let refused = 0;
  for (let i = 0; i < times; i++) {
    try {
      builder.push({ ts: TS, stream: "stdout", chunk });
      taken++;
    } catch (e) {
      assert.ok(e instanceof ParseboxMemoryError, String(e));
      refused++;
    }
  }
  return { taken, refused };
}

test("an 8 MB log of one-character lines with no parser fills its budget and is refused there, holding about its own bytes; the core never traps", (t) => {
  const before = core();
  const registry = new ParserRegistry({ loadSource: null });
  t.after(() => registry.dispose());
  const builder = new TranscriptBuilder(registry, "plain");
  // 40 chunks of 200 KB: 4,000,000 lines.
  const { taken, refused } = pushAll(builder, "a\n".repeat(100_000), 40);
  assert.equal(core(), before, "the same core instance: it did not trap");
  assert.ok(taken > 0 && refused > 0, `${taken} taken, ${refused} refused`);
  const counts = builder.counts();
  // The budget counts what the core holds and what its frozen entries would hold again as
  // live ones (a rebuild parses them into the live form): a transcript takes in no more than
  // it could hold live.
  assert.ok(counts.budgetBytes <= 256 * MIB, `${counts.budgetBytes}`);
  assert.ok(counts.budgetBytes >= 128 * MIB, `the budget is used: ${counts.budgetBytes}`);
  // What it holds is about the log itself: final lines are spans of their chunks.
  assert.ok(counts.heldBytes <= 4 * taken * 200_000, `at most 4 bytes a byte of log: ${counts.heldBytes}`);
  assert.equal(builder.entries().length, taken * 100_000, "every line of a chunk taken is shown");
  assert.equal(registry.diagnostics("plain").host.refusedChunks, refused);
  // The core's memory is far below its maximum, and another transcript still works.
  assert.ok(core().memory.buffer.byteLength < CORE_MAX / 2, `${core().memory.buffer.byteLength}`);
  const otherRegistry = new ParserRegistry({ loadSource: null });
  const other = new TranscriptBuilder(otherRegistry, "plain");
  other.push({ ts: TS, stream: "stdout", chunk: "still here\n" });
  assert.deepEqual(other.entries().map((e) => e.text), ["still here"]);
  other.dispose();
  otherRegistry.dispose();
  // A rebuild parses the whole run into the live form again: it fits, and the core lives.
  builder.rebuild();
  assert.equal(core(), before, "no trap in the rebuild");
  assert.equal(builder.entries().length, taken * 100_000);
  builder.dispose();
});

test("two runs of short lines in one registry share its total and are refused at it; the core never traps", (t) => {
  const before = core();
  const registry = new ParserRegistry({ loadSource: null, maxTranscriptBytesTotal: 320 * MIB });
  t.after(() => registry.dispose());
  const line = "2026-01-01 build step 17 ok: 12 ms\n"; // 34 characters
  const chunk = line.repeat(200_000 / line.length);
  const first = new TranscriptBuilder(registry, "plain");
  const second = new TranscriptBuilder(registry, "plain");
  const a = pushAll(first, chunk, 1500);
  const b = pushAll(second, chunk, 1500);
  assert.equal(core(), before, "no trap");
  assert.ok(a.refused > 0 && b.refused > 0 && b.taken > 0, `${JSON.stringify([a, b])}`);
  // The registry's total counts what each budget counts.
  const counted = first.counts().budgetBytes + second.counts().budgetBytes;
  assert.ok(counted <= 320 * MIB, `${counted}`);
  assert.equal(registry.diagnostics("plain").host.transcriptBytes, counted);
  first.dispose();
  second.dispose();
});

// ~180 KB of JSON a line: ten arrays of 9,000 one-digit numbers (within every entry limit).
const DENSE = `
const input = {};
for (let k = 0; k < 10; k++) input["n" + k] = Array.from({ length: 9000 }, (_, i) => i % 10);
export function parseStdoutLine(line, ts) {
  return [{ kind: "tool_call", ts, name: "dense", input }];
}`;

// Inline here; in a Worker (the browsers' default) the same answers are measured as they
// arrive and one past the budget is let go of (crates/parsebox-live/tests/memory.rs).
{
  const host = "inline";
  test(`a parser returning dense tool inputs (${host}) fills the budget: later lines show generic, the core never traps`, async (t) => {
    const before = core();
    const registry = new ParserRegistry({ loadSource: null, host, lineBudgetMs: 1000 });
    t.after(() => registry.dispose());
    registry.registerSource("dense", DENSE);
    await registry.idle();
    assert.equal(registry.status("dense").state, "ready");
    // Each line's input is ~180 KB of JSON, and costs about that (kept as its text): 200 lines
    // pass a 16 MiB budget.
    const builder = new TranscriptBuilder(registry, "dense", { maxTranscriptBytes: 16 * MIB });
    const { taken, refused } = pushAll(builder, "x\n", 200);
    await registry.idle();
    assert.equal(core(), before, "no trap");
    const counts = builder.counts();
    assert.ok(counts.heldBytes <= 16 * MIB, `${counts.heldBytes}`);
    const parsed = builder.entries().filter((e) => e.kind === "tool_call").length;
    assert.ok(counts.heldBytes / parsed < 400_000, `${counts.heldBytes} bytes for ${parsed} inputs of ~180 KB of JSON`);
    // Past the budget a line shows generic, or its chunk is refused: never a trap.
    assert.ok(counts.overBudgetLines + refused > 0, `${JSON.stringify(counts)}, ${refused} refused`);
    const kinds = builder.entries().map((e) => e.kind);
    assert.equal(kinds.length, taken, "every line taken shows, parsed or generic");
    assert.ok(kinds.filter((k) => k === "tool_call").length >= 5, `${kinds.length} entries`);
    builder.dispose();
  });
}
