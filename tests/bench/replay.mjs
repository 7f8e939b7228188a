// Benchmark (not a test): a finished run opened at once, parsed in one Worker or spread over
// several (`maxWorkers`, issue 55), in Node with worker_threads standing in for Web Workers.
// Each trial makes a registry with the parser ready in a Worker, runs 500 other lines of it
// first (a page has usually parsed the type's lines before it opens a finished run, so the
// pace is known; `--first` leaves that out), pushes the whole log through a TranscriptBuilder
// in 16 KiB chunks and waits for `idle()`: the time from the first push to the last answer,
// and the process's CPU time over it (every thread: the page's and the Workers'). The
// `maxWorkers` values alternate trial by trial, so load from outside falls on each alike. The
// entries of every setting are checked equal to one Worker's.
//
//   node tests/bench/replay.mjs [--pkg DIR] [--lines 40000] [--trials 5] [--shape regex] [--workers 1,2,3] [--first]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { shapeLog } from "./gen-log.mjs";
import { installWebWorker } from "../fuzz/web-worker.mjs";

const LINES = Number(arg("lines", 40_000));
const TRIALS = Number(arg("trials", 5));
const SHAPE = arg("shape", "regex");
const WORKERS = arg("workers", "1,2,3").split(",").map(Number);
const FIRST = process.argv.includes("--first");

const pb = await loadPackage(packageDir());
installWebWorker();
const source = readFileSync(new URL(`./shapes/${SHAPE}.js`, import.meta.url), "utf8");
const log = shapeLog(LINES).join("\n") + "\n";

async function trial(maxWorkers) {
  const registry = new pb.ParserRegistry({ loadSource: null, host: "worker", maxWorkers });
  registry.registerSource("r", source);
  await registry.idle();
  if (!FIRST) {
    const before = new pb.TranscriptBuilder(registry, "r", { timeline: false });
    before.push({ ts: "t", stream: "stdout", chunk: shapeLog(500, 99).join("\n") + "\n" });
    await registry.idle();
    before.dispose();
  }
  const builder = new pb.TranscriptBuilder(registry, "r", { timeline: false });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let at = 0; at < log.length; at += 16_384) builder.push({ ts: "t", stream: "stdout", chunk: log.slice(at, at + 16_384) });
  builder.finish();
  await registry.idle();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const d = registry.diagnostics("r");
  const entries = JSON.stringify(builder.entries());
  builder.dispose();
  registry.dispose();
  if (d.linesParsed !== LINES + (FIRST ? 0 : 500)) throw new Error(`maxWorkers ${maxWorkers}: ${d.linesParsed} of ${LINES} lines parsed`);
  return { ms, pageMs: (cpu.user + cpu.system) / 1000, spread: d.host.spreadStarts, entries };
}

const results = new Map(WORKERS.map((w) => [w, []]));
let reference = null;
await trial(WORKERS[0]); // warm-up: JIT, the engine's code, the Worker pool
for (let t = 0; t < TRIALS; t++) {
  for (const w of t % 2 ? [...WORKERS].reverse() : WORKERS) {
    const r = await trial(w);
    reference ??= r.entries;
    if (r.entries !== reference) throw new Error(`maxWorkers ${w}: entries differ from the first setting's`);
    results.get(w).push(r);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results.get(WORKERS[0]).map((r) => r.ms));
console.log(`A finished run of ${LINES.toLocaleString("en")} \`${SHAPE}\` lines (410 characters) opened at once, ${FIRST ? "the parser's first lines" : "after 500 other lines of it"}; Node ${process.version}, ${cpus().length} cores; median of ${TRIALS} trials, settings alternated.`);
console.log("");
console.log("| maxWorkers | Workers that took lines | first push → last answer (ms) | lines/s | speed-up | CPU, every thread (ms) |");
console.log("|---|---|---|---|---|---|");
for (const w of WORKERS) {
  const rs = results.get(w);
  const ms = median(rs.map((r) => r.ms));
  const took = rs.map((r) => 1 + r.spread);
  console.log(`| ${w} | ${Math.min(...took) === Math.max(...took) ? took[0] : `${Math.min(...took)}–${Math.max(...took)}`} | ${ms.toFixed(0)} | ${Math.round((LINES / ms) * 1000).toLocaleString("en")} | ${(base / ms).toFixed(2)}× | ${median(rs.map((r) => r.pageMs)).toFixed(0)} |`);
}
console.log("");
console.log("Entries: identical to the first setting's in every trial.");
process.exit(0);
