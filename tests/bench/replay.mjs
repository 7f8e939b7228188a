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
// `--browser chromium` runs the same trials in a page of headless Chromium (real Web Workers;
// the CPU column is then the page's own, unmeasured: "–").
//
//   node tests/bench/replay.mjs [--pkg DIR] [--lines 40000] [--trials 5] [--shape regex] [--workers 1,2,3] [--first] [--browser chromium]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { launchChromium, openBenchPage, runWithPackage, serve } from "./chromium.mjs";
import { shapeLog } from "./gen-log.mjs";
import { installWebWorker } from "../fuzz/web-worker.mjs";

const LINES = Number(arg("lines", 40_000));
const TRIALS = Number(arg("trials", 5));
const SHAPE = arg("shape", "regex");
const WORKERS = arg("workers", "1,2,3").split(",").map(Number);
const FIRST = process.argv.includes("--first");

const BROWSER = arg("browser", null);

/**
 * Every trial, the settings alternated after a warm-up: `{ [maxWorkers]: [{ ms, cpuMs, spread,
 * same }] }` (`same`: the entries equal the first setting's first trial's). Runs where `pb`
 * (the package) and `shapeLog` are; in the browser, inside the page.
 */
async function trials(pb, shapeLog, source, { lines, count, workers, first }) {
  const log = shapeLog(lines).join("\n") + "\n";
  const cpu = () => (typeof process === "object" ? process.cpuUsage() : null);
  async function trial(maxWorkers) {
    const registry = new pb.ParserRegistry({ loadSource: null, host: "worker", maxWorkers });
    registry.registerSource("r", source);
    await registry.idle();
    if (!first) {
      const before = new pb.TranscriptBuilder(registry, "r", { timeline: false });
      before.push({ ts: "t", stream: "stdout", chunk: shapeLog(500, 99).join("\n") + "\n" });
      await registry.idle();
      before.dispose();
    }
    const builder = new pb.TranscriptBuilder(registry, "r", { timeline: false });
    const cpu0 = cpu();
    const t0 = performance.now();
    for (let at = 0; at < log.length; at += 16_384) builder.push({ ts: "t", stream: "stdout", chunk: log.slice(at, at + 16_384) });
    builder.finish();
    await registry.idle();
    const ms = performance.now() - t0;
    const used = cpu0 && process.cpuUsage(cpu0);
    const d = registry.diagnostics("r");
    const entries = JSON.stringify(builder.entries());
    builder.dispose();
    registry.dispose();
    if (d.linesParsed !== lines + (first ? 0 : 500)) throw new Error(`maxWorkers ${maxWorkers}: ${d.linesParsed} of ${lines} lines parsed`);
    return { ms, cpuMs: used ? (used.user + used.system) / 1000 : null, spread: d.host.spreadStarts, entries };
  }
  const results = Object.fromEntries(workers.map((w) => [w, []]));
  let reference = null;
  await trial(workers[0]); // warm-up: JIT, the engine's code, the Worker pool
  for (let t = 0; t < count; t++) {
    for (const w of t % 2 ? [...workers].reverse() : workers) {
      const { entries, ...r } = await trial(w);
      reference ??= entries;
      results[w].push({ ...r, same: entries === reference });
    }
  }
  return results;
}

const options = { lines: LINES, count: TRIALS, workers: WORKERS, first: FIRST };
const source = readFileSync(new URL(`./shapes/${SHAPE}.js`, import.meta.url), "utf8");
let results;
let where;
if (BROWSER) {
  if (BROWSER !== "chromium") throw new Error(`--browser: only chromium, got ${BROWSER}`);
  const server = await serve(packageDir());
  const browser = await launchChromium();
  const { page, errors } = await openBenchPage(browser, server);
  results = await runWithPackage(page, trials, source, options);
  where = `headless Chromium ${browser.version()}, ${await page.evaluate(() => navigator.hardwareConcurrency)} cores`;
  await browser.close();
  server.close?.();
  if (errors.length) throw errors[0];
} else {
  const pb = await loadPackage(packageDir());
  installWebWorker();
  results = await trials(pb, shapeLog, source, options);
  where = `Node ${process.version}, ${cpus().length} cores`;
}
for (const w of WORKERS) {
  if (!results[w].every((r) => r.same)) throw new Error(`maxWorkers ${w}: entries differ from the first setting's`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results[WORKERS[0]].map((r) => r.ms));
console.log(`A finished run of ${LINES.toLocaleString("en")} \`${SHAPE}\` lines (410 characters) opened at once, ${FIRST ? "the parser's first lines" : "after 500 other lines of it"}; ${where}; median of ${TRIALS} trials, settings alternated.`);
console.log("");
console.log("| maxWorkers | Workers that took lines | first push → last answer (ms) | lines/s | speed-up | CPU, every thread (ms) |");
console.log("|---|---|---|---|---|---|");
for (const w of WORKERS) {
  const rs = results[w];
  const ms = median(rs.map((r) => r.ms));
  const took = rs.map((r) => 1 + r.spread);
  console.log(`| ${w} | ${Math.min(...took) === Math.max(...took) ? took[0] : `${Math.min(...took)}–${Math.max(...took)}`} | ${ms.toFixed(0)} | ${Math.round((LINES / ms) * 1000).toLocaleString("en")} | ${(base / ms).toFixed(2)}× | ${rs[0].cpuMs === null ? "–" : median(rs.map((r) => r.cpuMs)).toFixed(0)} |`);
}
console.log("");
console.log("Entries: identical to the first setting's in every trial.");
process.exit(0);
