// What the shared core keeps per byte of log, Node, for BENCHMARKS.md: a plain run (the
// generic parser, 300-byte lines) pushed through one TranscriptBuilder in 8 KiB chunks, as
// Paperclip's server cuts them.
//
//   node tests/bench/core-bytes.mjs [--pkg pkg] [--mib 64]
//
// Reports, every 16 MiB of log: the core module's linear memory (it only grows: its peak), the
// builder's `counts().heldBytes` (what the transcript budget counts), and their ratios.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { arg, packageDir } from "./args.mjs";

const pkgDir = packageDir();
const LOG_MIB = Number(arg("mib", 64));
const MIB = 1 << 20;
// The core module's own exports (its memory): its glue returns them, and the package's init
// then finds the core ready.
const glue = await import(pathToFileURL(join(pkgDir, "parsebox_wasm.js")).href);
const core = glue.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")) });
const pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });

const registry = new pb.ParserRegistry({ loadSource: null });
const builder = new pb.TranscriptBuilder(registry, "plain", { timeline: false, maxTranscriptBytes: 1 << 30 });
const line = (i) => `{"type":"event","n":${i},"text":"${"lorem ipsum dolor sit amet ".repeat(10).slice(0, 250)}"}`;
const base = core.memory.buffer.byteLength;
let text = "";
let pushed = 0;
let i = 0;
console.log("| log MiB | core memory MiB (growth) | heldBytes MiB | core ÷ log | core ÷ held |");
console.log("|---|---|---|---|---|");
for (let mark = 16; mark <= LOG_MIB; mark += 16) {
  while (pushed < mark * MIB) {
    while (text.length < 8192) text += line(i++) + "\n";
    builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk: text.slice(0, 8192) });
    pushed += 8192;
    text = text.slice(8192);
  }
  const grown = core.memory.buffer.byteLength - base;
  const held = builder.counts().heldBytes;
  console.log(`| ${mark} | ${(core.memory.buffer.byteLength / MIB).toFixed(0)} (${(grown / MIB).toFixed(0)}) | ${(held / MIB).toFixed(1)} | ${(grown / pushed).toFixed(2)} | ${(grown / held).toFixed(2)} |`);
}
builder.dispose();
registry.dispose();
