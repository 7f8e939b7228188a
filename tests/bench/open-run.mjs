// Benchmark (not a test): how the time to open a finished run grows with the run. A registry
// with a parser ready in one Worker (Node's worker_threads standing in for Web Workers) gets a
// whole log pushed through a TranscriptBuilder in 16 KiB chunks, then `idle()`: the time of
// the pushes, the time to the last answer, and how long the page's thread was busy in it (the
// event loop's active time: the core's calls, the frames that fold the answers in). Each trial
// is a fresh Node process, so a core memory grown by an earlier trial does not hide the cost
// of growing it. With `--before DIR`, that package's trials alternate with this one's.
// `--browser chromium`: each trial a fresh page of headless Chromium (real Web Workers; the
// page's busy time is not measured there: "–").
//
//   node tests/bench/open-run.mjs [--pkg DIR] [--before DIR] [--lines 20000,40000,80000] [--trials 3] [--shape regex] [--browser chromium]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { launchChromium, openBenchPage, runWithPackage, serve } from "./chromium.mjs";
import { shapeLog } from "./gen-log.mjs";
import { installWebWorker } from "../fuzz/web-worker.mjs";

const SHAPE = arg("shape", "regex");

/**
 * One trial where `pb` (the package) and `shapeLog` are: in Node, a child process; in the
 * browser, a fresh page. Stringified for the page, so it names nothing from this module.
 */
async function openRun(pb, shapeLog, source, lines) {
  const registry = new pb.ParserRegistry({ loadSource: null, host: "worker", maxWorkers: 1 });
  registry.registerSource("r", source);
  await registry.idle();
  const log = shapeLog(lines).join("\n") + "\n";
  const builder = new pb.TranscriptBuilder(registry, "r", { timeline: false });
  const loop = typeof performance.eventLoopUtilization === "function" ? performance.eventLoopUtilization() : null;
  const t0 = performance.now();
  for (let at = 0; at < log.length; at += 16_384) builder.push({ ts: "t", stream: "stdout", chunk: log.slice(at, at + 16_384) });
  builder.finish();
  const pushMs = performance.now() - t0;
  await registry.idle();
  const lastMs = performance.now() - t0;
  const busyMs = loop ? performance.eventLoopUtilization(loop).active : null;
  if (registry.diagnostics("r").linesParsed !== lines) throw new Error("not every line was parsed");
  const entries = builder.entries().length;
  builder.dispose();
  registry.dispose();
  return { pushMs, lastMs, busyMs, entries };
}

const source = readFileSync(new URL(`./shapes/${SHAPE}.js`, import.meta.url), "utf8");
if (process.argv.includes("--child")) {
  const pb = await loadPackage(packageDir());
  installWebWorker();
  console.log(JSON.stringify(await openRun(pb, shapeLog, source, Number(arg("lines", 0)))));
  process.exit(0);
}

const SIZES = arg("lines", "20000,40000,80000").split(",").map(Number);
const TRIALS = Number(arg("trials", 3));
const builds = [["this", packageDir()]];
if (arg("before", null)) builds.unshift(["before", arg("before")]);
const self = fileURLToPath(import.meta.url);
const BROWSER = arg("browser", null);
if (BROWSER && BROWSER !== "chromium") throw new Error(`--browser: only chromium, got ${BROWSER}`);
const browser = BROWSER ? await launchChromium() : null;
const servers = browser ? Object.fromEntries(await Promise.all(builds.map(async ([name, dir]) => [name, await serve(dir)]))) : {};

/** One trial of `name`'s build: a fresh Node process, or a fresh page of headless Chromium. */
async function trial(name, dir, lines) {
  if (!browser) {
    const out = execFileSync(process.execPath, [self, "--child", "--pkg", dir, "--lines", String(lines), "--shape", SHAPE], { encoding: "utf8" });
    return JSON.parse(out.trim().split("\n").at(-1));
  }
  const { page, errors } = await openBenchPage(browser, servers[name]);
  const result = await runWithPackage(page, openRun, source, lines);
  await page.context().close();
  if (errors.length) throw errors[0];
  return result;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`A finished run of \`${SHAPE}\` lines (410 characters) opened at once, one Worker; ${browser ? `headless Chromium ${browser.version()}` : `Node ${process.version}`}; median of ${TRIALS} trials, each a fresh ${browser ? "page" : "process"}, builds alternated.`);
console.log("");
console.log(`| lines | build | pushes (ms) | last answer (ms) | page thread busy (ms) | last answer ÷ the size before's |`);
console.log("|---|---|---|---|---|---|");
const last = {};
for (const lines of SIZES) {
  const results = Object.fromEntries(builds.map(([name]) => [name, []]));
  for (let t = 0; t < TRIALS; t++) {
    for (const [name, dir] of t % 2 ? [...builds].reverse() : builds) {
      results[name].push(await trial(name, dir, lines));
    }
  }
  const entries = new Set(builds.flatMap(([name]) => results[name].map((r) => r.entries)));
  if (entries.size !== 1) throw new Error(`${lines} lines: the builds gave ${[...entries].join(" / ")} entries`);
  for (const [name] of builds) {
    const m = (k) => median(results[name].map((r) => r[k]));
    const growth = last[name] ? `${(m("lastMs") / last[name]).toFixed(2)}×` : "–";
    const busy = results[name][0].busyMs === null ? "–" : m("busyMs").toFixed(0);
    console.log(`| ${lines.toLocaleString("en")} | ${name} | ${m("pushMs").toFixed(0)} | ${m("lastMs").toFixed(0)} | ${busy} | ${growth} |`);
    last[name] = m("lastMs");
  }
}
await browser?.close();
for (const server of Object.values(servers)) server.close?.();
process.exit(0);
