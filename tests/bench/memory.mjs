// Memory of the engine instances, Node, for BENCHMARKS.md ("Memory per parser").
//
//   node --expose-gc tests/bench/memory.mjs [--pkg pkg] [--parsers 16] [--lines 100000]
//
// 1. Per registered parser: `--parsers` registries (inline host), each with the hermes-style
//    bench parser loaded and answering one line. For each engine instance: its linear memory
//    (what the page reserved for it), and the 4 KiB pages of it that hold any non-zero byte (what
//    the OS must keep resident for it: pages never written stay zero and take no RAM); the
//    process's RSS growth per parser beside (noisy: V8's own heap moves it by ±1 MB).
//    The non-zero pages are also split by region: the stack (below the static data), the static
//    data, the heap.
// 2. Across a run: one parser answering `--lines` lines of `hermesLog`, its instance's linear
//    memory and non-zero pages after the first line and at fixed counts after.
//
// The script wraps `WebAssembly.Memory` to see each engine instance's memory (the engine module
// imports its memory; the core module's own memory is made by wasm-bindgen's glue, not here).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { arg, packageDir } from "./args.mjs";
import { hermesLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = packageDir();
const PARSERS = Number(arg("parsers", 16));
const LINES = Number(arg("lines", 100000));
const gc = typeof globalThis.gc === "function" ? () => globalThis.gc() : () => {};

const memories = [];
const NativeMemory = WebAssembly.Memory;
WebAssembly.Memory = function Memory(descriptor) {
  const m = new NativeMemory(descriptor);
  memories.push(m);
  return m;
};
WebAssembly.Memory.prototype = NativeMemory.prototype;

const pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });
const src = readFileSync(join(here, "hermes-parser.js"), "utf8");
const TS = "2026-01-01T00:00:00.000Z";
const KB = 1024;
const PAGE = 4096;
const MIB = 1 << 20;

/** Bytes in 4 KiB pages of [from, to) that hold a non-zero byte. */
function nonZero(memory, from = 0, to = memory.buffer.byteLength) {
  const words = new BigUint64Array(memory.buffer, from, (to - from) / 8);
  let bytes = 0;
  for (let p = 0; p < words.length; p += PAGE / 8) {
    for (let i = p; i < p + PAGE / 8; i++) {
      if (words[i] !== 0n) {
        bytes += PAGE;
        break;
      }
    }
  }
  return bytes;
}

async function ready(lines) {
  const registry = new pb.ParserRegistry({ host: "inline", loadSource: null });
  registry.registerSource("h", src);
  for (let i = 0; i < 1000 && registry.status("h").state !== "ready"; i++) await new Promise((r) => setTimeout(r, 5));
  if (registry.status("h").state !== "ready") throw new Error(`not ready: ${JSON.stringify(registry.status("h"))}`);
  for (const l of lines) registry.parseLine("h", l, TS);
  return registry;
}

const firstLine = hermesLog(10).split("\n").filter((l) => l.trim()).slice(0, 1);
await ready(firstLine); // allocator pools, caches
gc();
const rssBefore = process.memoryUsage().rss;
const seen = memories.length;
const held = [];
for (let i = 0; i < PARSERS; i++) held.push(await ready(firstLine));
gc();
const rssAfter = process.memoryUsage().rss;
const mine = memories.slice(seen);
const mean = (f) => mine.reduce((n, m) => n + f(m), 0) / mine.length;
// The stack is the first 8 MiB, the static data follows it up to the linked initial memory's end
// (build.sh's INITIAL_MEMORY), and the heap is above: the allocator grows the memory (the
// prepared realm a built module starts with is heap too).
const STACK = 8 * MIB;
const initial = Number(/^INITIAL_MEMORY=(\d+)$/m.exec(readFileSync(join(here, "../../crates/parsebox-engine-wasm/build.sh"), "utf8"))?.[1]);
if (!(initial > 0)) throw new Error("build.sh has no INITIAL_MEMORY");
const perParser = {
  parsers: mine.length,
  linearKB: Math.round(mean((m) => m.buffer.byteLength) / KB),
  nonZeroKB: Math.round(mean((m) => nonZero(m)) / KB),
  stackKB: Math.round(mean((m) => nonZero(m, 0, STACK)) / KB),
  staticDataKB: Math.round(mean((m) => nonZero(m, STACK, initial)) / KB),
  heapKB: Math.round(mean((m) => nonZero(m, initial)) / KB),
  rssGrowthKB: Math.round((rssAfter - rssBefore) / PARSERS / KB),
};
for (const r of held) r.dispose();

const lines = hermesLog(LINES).split("\n").filter((l) => l.trim());
const before = memories.length;
const registry = await ready([]);
const [memory] = memories.slice(before);
const marks = new Set([1, 1000, 5000, 10000, 20000, 50000, 100000, lines.length]);
const run = [];
for (let i = 0; i < lines.length; i++) {
  registry.parseLine("h", lines[i], TS);
  if (marks.has(i + 1)) run.push({ lines: i + 1, linearKB: memory.buffer.byteLength / KB, nonZeroKB: nonZero(memory) / KB });
}
registry.dispose();

console.log(`package: ${pkgDir}`);
console.log(`\nPer registered parser (${perParser.parsers} engine instances, one line each):`);
console.log("| linear memory | non-zero pages | of which stack / static data / heap | RSS growth per parser |");
console.log("|---|---|---|---|");
console.log(`| ${perParser.linearKB} KB | ${perParser.nonZeroKB} KB | ${perParser.stackKB} / ${perParser.staticDataKB} / ${perParser.heapKB} KB | ${perParser.rssGrowthKB} KB |`);
console.log(`\nOne parser across a ${lines.length}-line run:`);
console.log("| lines answered | linear memory | non-zero pages |");
console.log("|---|---|---|");
for (const r of run) console.log(`| ${r.lines} | ${r.linearKB} KB | ${r.nonZeroKB} KB |`);
console.log(`\n${JSON.stringify({ perParser, run })}`);
