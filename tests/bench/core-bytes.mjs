// What the shared core keeps per byte of log, Node, for BENCHMARKS.md (issue 54): plain runs
// (no parser: every line its generic entry) of each line shape, pushed through one
// TranscriptBuilder in 8 KiB chunks (as Paperclip's server cuts them), with and without its
// timeline.
//
//   node tests/bench/core-bytes.mjs [--pkg pkg] [--mib 16]
//
// For each shape: the log pushed (up to --mib MiB, or until the transcript's 512 MiB budget
// refuses a chunk), and `counts().heldBytes` (what the budget counts: the real bytes the core's
// allocator holds for the transcript) per byte of log and per line. At the end, the core
// module's linear memory (it only grows: the peak of all of them, the allocator's slack
// included). Then what a dense tool input costs per entry, against its JSON.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { arg, packageDir } from "./args.mjs";

const pkgDir = packageDir();
const LOG_MIB = Number(arg("mib", 16));
const MIB = 1 << 20;
const glue = await import(pathToFileURL(join(pkgDir, "parsebox_wasm.js")).href);
const core = glue.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")) });
const pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });

const shapes = [
  ["1 character", () => "a"],
  ["34 characters", (i) => `2026-01-01 build step ${String(i % 1000).padStart(3, "0")} ok: 12 ms`.slice(0, 34)],
  ["~270 characters (JSON events)", (i) => `{"type":"event","n":${i},"text":"${"lorem ipsum dolor sit amet ".repeat(10).slice(0, 240)}"}`],
];

console.log("| line shape | timeline | log MiB | lines | heldBytes per log byte | heldBytes per line |");
console.log("|---|---|---|---|---|---|");
let peakHeld = 0;
for (const [name, line] of shapes) {
  for (const timeline of [true, false]) {
    const registry = new pb.ParserRegistry({ loadSource: null, maxTranscriptBytesTotal: 1 << 30 });
    const builder = new pb.TranscriptBuilder(registry, "plain", { timeline, maxTranscriptBytes: 512 * MIB });
    let text = "";
    let pushed = 0;
    let lines = 0;
    let i = 0;
    while (pushed < LOG_MIB * MIB) {
      while (text.length < 8192) text += line(i++) + "\n";
      const chunk = text.slice(0, 8192);
      try {
        builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk });
      } catch (e) {
        if (e instanceof pb.ParseboxMemoryError) break;
        throw e;
      }
      pushed += chunk.length;
      text = text.slice(8192);
    }
    lines = builder.entries().length;
    const held = builder.counts().heldBytes;
    peakHeld = Math.max(peakHeld, held);
    console.log(`| ${name} | ${timeline ? "yes" : "no"} | ${(pushed / MIB).toFixed(1)} | ${lines} | ${(held / pushed).toFixed(2)} | ${(held / lines).toFixed(0)} |`);
    builder.dispose();
    registry.dispose();
  }
}
console.log(`\nThe core's memory at the end: ${(core.memory.buffer.byteLength / MIB).toFixed(0)} MiB, for at most ${(peakHeld / MIB).toFixed(0)} MiB held at once.`);

// Tool inputs: a parser (inline) whose lines give 19 tool calls of a 999-key input each, the
// dense shape that filled budgets when an input was held as a parsed value.
const DENSE = "export function parseStdoutLine(line, ts) { const out = []; for (let e = 0; e < 19; e++) { const input = {}; for (let k = 0; k < 999; k++) input['key' + k] = k; out.push({ kind: 'tool_call', ts, name: 't' + e, input }); } return out; }";
console.log("\n| tool inputs (999 keys each) | timeline | entries | input JSON bytes per entry | heldBytes per entry |");
console.log("|---|---|---|---|---|");
for (const timeline of [true, false]) {
  const registry = new pb.ParserRegistry({ loadSource: null, host: "inline", lineBudgetMs: 5000 });
  registry.registerSource("dense", DENSE);
  await registry.idle();
  const builder = new pb.TranscriptBuilder(registry, "dense", { timeline });
  builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk: Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n") + "\n" });
  await registry.idle();
  const entries = builder.entries();
  const json = JSON.stringify(entries[0].input).length;
  console.log(`| tool_call | ${timeline ? "yes" : "no"} | ${entries.length} | ${json} | ${(builder.counts().heldBytes / entries.length).toFixed(0)} |`);
  builder.dispose();
  registry.dispose();
}
