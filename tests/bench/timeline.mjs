// What the timeline adds to a live run's main-thread time (issue 15): the same 100,000-line
// hermes-style run through TranscriptBuilder in Node (inline host), with the timeline (the
// default) and without (`timeline: false`), side by side in one run: each trial is a fresh Node
// process (a warm-up run, then the timed one), the two modes alternate. A benchmark, not a test.
//
//   node tests/bench/timeline.mjs [--pkg DIR] [--lines 100000] [--trials 5] [--chunk 4096] [--window N]
//   node tests/bench/timeline.mjs --in-process [--trials 15] …
//   node tests/bench/timeline.mjs --paired [--trials 5] …
//
// --in-process runs every trial in one warm process, the two modes alternated back to back,
// and reports each mode's fastest trial beside the medians: on a shared machine another
// process's work only ever adds time, so the fastest of many runs is the least disturbed one.
//
// --paired feeds each chunk to both builders (one with the timeline, one without) back to back,
// in alternating order, and times each push() on its own: load from outside falls on both
// modes within microseconds of each other instead of on whole runs, so drift cancels. It
// reports the summed push times per mode and the median of the per-trial ratios.
//
// Instruction counts (load-independent, for a shared machine): run one child under callgrind
// twice, with --warmups 1 and --warmups 2; the difference is one warm run's instructions:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
//     node --single-threaded tests/bench/timeline.mjs --child with --lines 20000 --warmups 2
//
// With --builtin the parser is registered as a trusted built-in (registerBuiltin: the module
// imported into the page, as Paperclip's own adapters are): no engine on the main thread, so the
// core and the JSON are most of the time and the timeline's share is at its largest (what the
// main thread sees when sandboxed parsers run in Workers).
//
// With --window N both builders keep a window of the latest N chunks (`maxChunks`), as a live
// view does.
//
// Wall time is what the page feels; the process's CPU time (user + system, all threads) is
// steadier when other work shares the cores, so both are printed.
//
// Each trial feeds the log as ~4 KB stdout chunks cut anywhere (as the side-by-side live run
// does) and times every push() and the finish(), including JSON.parse of their result and the
// renderer's bookkeeping a consumer must do (the entries array; with the timeline, a Map of
// items by id).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { chunkLog, keptUpdates, newRegistry } from "./core.mjs";
import { hermesLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 || process.argv[i + 1] === undefined ? fallback : process.argv[i + 1];
}
const pkgDir = resolve(arg("pkg", join(here, "../../pkg")));
const lines = Number(arg("lines", 100000));
const trials = Number(arg("trials", 5));
const chunkSize = Number(arg("chunk", 4096));
const windowChunks = arg("window", null);
const child = arg("child", null); // "with" | "without": one trial in this process
const inProcess = process.argv.includes("--in-process"); // every trial in this one process
const warmups = Number(arg("warmups", 1)); // child only: untimed runs before the timed one
const builtin = process.argv.includes("--builtin");

let pb;
let source;
let chunks;
let parserModule; // --builtin: the parser, imported

/** A builder over its own registry, and what a consumer keeps of its updates. */
function consumer(withTimeline) {
  const registry = newRegistry(pb, {});
  const status = builtin ? registry.registerBuiltin("hermes_local", parserModule) : registry.registerSource("hermes_local", source);
  if (status.state !== (builtin ? "builtin" : "ready")) throw new Error(`parser not ready: ${JSON.stringify(status)}`);
  const options = { timeline: withTimeline };
  if (windowChunks !== null) options.maxChunks = Number(windowChunks);
  const builder = new pb.TranscriptBuilder(registry, "hermes_local", options);
  const { entries, items, take } = keptUpdates();
  const dispose = () => {
    builder.dispose();
    registry.dispose();
  };
  return { builder, entries, items, take, dispose };
}

/** One live run; returns main-thread ms and what it produced. */
function run(withTimeline) {
  const { builder, entries, items, take, dispose } = consumer(withTimeline);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const c of chunks) take(builder.push(c));
  take(builder.finish());
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  dispose();
  return { ms, cpuMs, entries: entries.length, items: items.size };
}

/** Loads the package and makes the log (in each process that runs trials). */
async function setUp() {
  pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
  pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });
  source = readFileSync(join(here, "hermes-parser.js"), "utf8");
  parserModule = await import(pathToFileURL(join(here, "hermes-parser.js")).href);
  chunks = chunkLog(hermesLog(lines), chunkSize);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (child !== null) {
  await setUp();
  // Warm-up: compiled code paths, grown memories. Under callgrind, the instructions of one
  // warm run are the difference between --warmups 2 and --warmups 1 (see the header).
  for (let w = 0; w < warmups; w++) run(child === "with");
  console.log(JSON.stringify({ ...run(child === "with"), chunks: chunks.length }));
  process.exit(0);
}

/** One paired run: each chunk to both builders, order alternating; summed push ms per mode. */
function pairedRun() {
  const sides = { without: consumer(false), with: consumer(true) };
  const ms = { without: 0, with: 0 };
  const feed = (mode, call) => {
    const t0 = performance.now();
    sides[mode].take(call(sides[mode].builder));
    ms[mode] += performance.now() - t0;
  };
  chunks.forEach((c, i) => {
    for (const mode of i % 2 ? ["with", "without"] : ["without", "with"]) feed(mode, (b) => b.push(c));
  });
  for (const mode of ["without", "with"]) feed(mode, (b) => b.finish());
  const shape = { entries: sides.with.entries.length, items: sides.with.items.size };
  if (sides.without.entries.length !== shape.entries) throw new Error("the two builders disagree");
  sides.without.dispose();
  sides.with.dispose();
  return { ...ms, ...shape };
}

if (process.argv.includes("--paired")) {
  await setUp();
  pairedRun(); // warm-up
  const got = { without: [], with: [] };
  const ratios = [];
  let shape = null;
  for (let t = 0; t < trials; t++) {
    shape = pairedRun();
    got.without.push(shape.without);
    got.with.push(shape.with);
    ratios.push(shape.with / shape.without);
  }
  console.log(`${lines.toLocaleString("en")} lines, ${chunks.length.toLocaleString("en")} chunks, ${shape.entries.toLocaleString("en")} entries, ${shape.items.toLocaleString("en")} items, ${trials} paired trials in one process, parser ${builtin ? "built in (registerBuiltin)" : "sandboxed, inline"}${windowChunks === null ? "" : `, window ${windowChunks} chunks`} (${pkgDir})`);
  console.log(`| builder | push() ms summed, median | per trial |`);
  console.log(`|---|---|---|`);
  for (const [name, xs] of [["timeline: false", got.without], ["timeline (default)", got.with]]) {
    console.log(`| ${name} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(", ")} |`);
  }
  console.log(`added by the timeline: ${((median(ratios) - 1) * 100).toFixed(1)} % (median of the per-trial ratios: ${ratios.map((r) => r.toFixed(3)).join(", ")})`);
  process.exit(0);
}

if (inProcess) {
  await setUp();
  run(false);
  run(true);
  const got = { without: [], with: [] };
  let shape = null;
  for (let t = 0; t < trials; t++) {
    for (const mode of t % 2 ? ["with", "without"] : ["without", "with"]) {
      const r = run(mode === "with");
      got[mode].push(r.cpuMs);
      if (mode === "with") shape = r;
    }
  }
  const min = (xs) => Math.min(...xs);
  console.log(`${lines.toLocaleString("en")} lines, ${chunks.length.toLocaleString("en")} chunks, ${shape.entries.toLocaleString("en")} entries, ${shape.items.toLocaleString("en")} items, ${trials} trials per mode in one process (${pkgDir})`);
  console.log(`| builder | CPU ms, fastest | CPU ms, median | per trial |`);
  console.log(`|---|---|---|---|`);
  for (const [name, xs] of [["timeline: false", got.without], ["timeline (default)", got.with]]) {
    console.log(`| ${name} | ${min(xs).toFixed(0)} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(", ")} |`);
  }
  const pct = (a, b) => (((b - a) / a) * 100).toFixed(1);
  console.log(`added by the timeline: ${pct(min(got.without), min(got.with))} % (fastest trials), ${pct(median(got.without), median(got.with))} % (medians)`);
  process.exit(0);
}

const times = { without: [], with: [] };
const cpu = { without: [], with: [] };
const ratios = []; // per trial: with ÷ without, the two runs back to back
let shape = null;
for (let t = 0; t < trials; t++) {
  // Alternate the order so drift on a shared machine falls on both.
  for (const mode of t % 2 ? ["with", "without"] : ["without", "with"]) {
    const args = [fileURLToPath(import.meta.url), "--child", mode, "--pkg", pkgDir, "--lines", String(lines), "--chunk", String(chunkSize)];
    if (builtin) args.push("--builtin");
    if (windowChunks !== null) args.push("--window", windowChunks);
    const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`trial failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1));
    times[mode].push(out.ms);
    cpu[mode].push(out.cpuMs);
    if (mode === "with") shape = out;
  }
  ratios.push(times.with[t] / times.without[t]);
}
const a = median(times.without);
const b = median(times.with);
if (windowChunks !== null) console.log(`window: the latest ${windowChunks} chunks (maxChunks)`);
console.log(`${lines.toLocaleString("en")} lines, ${shape.chunks.toLocaleString("en")} chunks of ~${chunkSize} B, ${shape.entries.toLocaleString("en")} entries, ${shape.items.toLocaleString("en")} timeline items, ${trials} trials (${pkgDir})`);
const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(`| builder | wall ms (median) | per trial | process CPU ms (median) | per trial |`);
console.log(`|---|---|---|---|---|`);
console.log(`| timeline: false | ${a.toFixed(0)} | ${fmt(times.without)} | ${median(cpu.without).toFixed(0)} | ${fmt(cpu.without)} |`);
console.log(`| timeline (default) | ${b.toFixed(0)} | ${fmt(times.with)} | ${median(cpu.with).toFixed(0)} | ${fmt(cpu.with)} |`);
const cpuAdded = ((median(cpu.with) - median(cpu.without)) / median(cpu.without)) * 100;
console.log(`added by the timeline, CPU time (steadier on a shared machine): ${cpuAdded.toFixed(1)} %`);
console.log(`added by the timeline: ${(((b - a) / a) * 100).toFixed(1)} % (ratio of the medians); ${((median(ratios) - 1) * 100).toFixed(1)} % (median of the per-trial ratios: ${ratios.map((r) => r.toFixed(3)).join(", ")})`);
