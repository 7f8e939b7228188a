// A built-in parser's throughput (registerBuiltin: Paperclip's own adapters, called directly),
// two builds of the package side by side in one Node process, alternating trial by trial:
// 30,000 hermes-style lines pushed as ~4 KB stdout chunks through a TranscriptBuilder
// (`timeline: false`, so the time is the core's and the built-in's). A benchmark, not a test.
//
//   node tests/bench/builtin.mjs BEFORE_PKG_DIR AFTER_PKG_DIR [trials]
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { hermesLog } from "./gen-log.mjs";
import * as parser from "./hermes-parser.js";

const [before, after] = process.argv.slice(2, 4).map((d) => resolve(d));
const trials = Number(process.argv[4] ?? 9);
if (!before || !after) throw new Error("usage: node tests/bench/builtin.mjs BEFORE_PKG_DIR AFTER_PKG_DIR [trials]");

async function load(dir) {
  const pb = await import(pathToFileURL(`${dir}/index.js`).href);
  pb.initSync({ module: readFileSync(`${dir}/parsebox_wasm_bg.wasm`), engine: readFileSync(`${dir}/parsebox_engine.wasm`) });
  return pb;
}

const text = hermesLog(30_000);
const chunks = [];
for (let i = 0; i < text.length; i += 4096) chunks.push({ ts: "2026-01-01T00:00:00.000Z", stream: "stdout", chunk: text.slice(i, i + 4096) });

function run(pb) {
  const registry = new pb.ParserRegistry({ loadSource: null });
  registry.registerBuiltin("hermes_local", parser);
  const builder = new pb.TranscriptBuilder(registry, "hermes_local", { timeline: false });
  const t0 = performance.now();
  for (const c of chunks) builder.push(c);
  builder.finish();
  const ms = performance.now() - t0;
  const entries = builder.entries().length;
  builder.dispose();
  registry.dispose();
  return { ms, entries };
}

const builds = [
  { name: "before", pb: await load(before), times: [] },
  { name: "after", pb: await load(after), times: [] },
];
for (const b of builds) run(b.pb); // warm-up
for (let i = 0; i < trials; i++) {
  for (const b of i % 2 ? [...builds].reverse() : builds) {
    const { ms, entries } = run(b.pb);
    b.times.push(ms);
    if (i === 0) console.log(`${b.name}: ${entries} entries`);
  }
}
const median = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
for (const b of builds) console.log(`${b.name}: median ${median(b.times).toFixed(1)} ms, min ${Math.min(...b.times).toFixed(1)} ms`);
const ratios = builds[1].times.map((t, i) => t / builds[0].times[i]);
console.log(`after / before per trial: ${ratios.map((r) => r.toFixed(3)).join(", ")}; median ${median(ratios).toFixed(3)}`);
