// Benchmark (not a test): what the page thread spends in the core per 1,000 lines, and how many
// calls into it, for a live run whose parser is in a Worker (the browser's default host:
// pushes, then the answers coming back frame by frame) and for inline parseLine (issue 43:
// "fewer crossings"). In Node, worker_threads standing in for Web Workers; every method of
// the core's two classes is wrapped to time it, so the figures are the page thread's time
// inside the core and the glue, not the parser's (which runs in the Worker, or inline in an
// engine instance the core calls).
//
//   node tests/bench/page-core-time.mjs [--pkg DIR] [--lines 10000] [--rounds 5] [--only worker|inline]
// Run it once per build, alternating, for a side-by-side table. Instruction counts of the
// inline path (load-independent): run `--only inline --rounds 1` under callgrind with two line
// counts; the difference is the instructions of the extra lines:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
//     node --single-threaded tests/bench/page-core-time.mjs --only inline --rounds 1 --lines 3000
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { installWebWorker } from "../fuzz/web-worker.mjs";
import { arg, packageDir } from "./args.mjs";

const dir = packageDir();
const LINES = Number(arg("lines", 10_000));
const ROUNDS = Number(arg("rounds", 5));
const pkg = await import(pathToFileURL(`${dir}/index.js`).href);
const glue = await import(pathToFileURL(`${dir}/parsebox_wasm.js`).href);
pkg.initSync({ module: readFileSync(`${dir}/parsebox_wasm_bg.wasm`), engine: readFileSync(`${dir}/parsebox_engine.wasm`) });
installWebWorker();

let inCore = 0;
let calls = 0;
let depth = 0;
for (const cls of [glue.RegistryCore, glue.TranscriptBuilderCore]) {
  for (const name of Object.getOwnPropertyNames(cls.prototype)) {
    const method = cls.prototype[name];
    if (name === "constructor" || typeof method !== "function") continue;
    cls.prototype[name] = function (...args) {
      // Before the driver (driver.js), idle() asked the core every few ms while it waited:
      // that was the benchmark's waiting, not the run's work.
      if (name === "isIdle") return method.apply(this, args);
      calls++;
      if (depth++ > 0) {
        try {
          return method.apply(this, args);
        } finally {
          depth--;
        }
      }
      const t = performance.now();
      try {
        return method.apply(this, args);
      } finally {
        inCore += performance.now() - t;
        depth--;
      }
    };
  }
}

const PARSER = "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line.slice(0, 40) }]; }";
const word = "the build reads its config then checks every module ";
const line = (i) => `line ${i} ${word.repeat(5)}`;
const median = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);

async function worker() {
  const registry = new pkg.ParserRegistry({ loadSource: null, host: "worker" });
  registry.registerSource("w", PARSER);
  await registry.idle();
  const builder = new pkg.TranscriptBuilder(registry, "w");
  const [t0, c0] = [inCore, calls];
  for (let p = 0; p < 100; p++) {
    let chunk = "";
    for (let k = 0; k < LINES / 100; k++) chunk += line(p * (LINES / 100) + k) + "\n";
    builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk });
    await new Promise((r) => setTimeout(r, 0));
  }
  await registry.idle();
  const out = { ms: inCore - t0, calls: calls - c0, parsed: builder.entries().filter((e) => e.kind === "assistant").length };
  builder.dispose();
  registry.dispose();
  return out;
}

async function inline() {
  const registry = new pkg.ParserRegistry({ loadSource: null, host: "inline" });
  registry.registerSource("i", PARSER);
  await registry.idle();
  const [t0, c0] = [inCore, calls];
  const wall = performance.now();
  for (let i = 0; i < LINES; i++) registry.parseLine("i", line(i), "2026-01-01T00:00:00Z");
  const out = { ms: inCore - t0, wallMs: performance.now() - wall, calls: calls - c0 };
  registry.dispose();
  return out;
}

const only = arg("only", null);
const w = [];
const n = [];
for (let r = 0; r < ROUNDS; r++) {
  if (only !== "inline") w.push(await worker());
  if (only !== "worker") n.push(await inline());
}
const per = (ms) => (ms / LINES) * 1000;
console.log(
  JSON.stringify({
    pkg: dir,
    lines: LINES,
    rounds: ROUNDS,
    workerCoreMsPer1000: +per(median(w.map((x) => x.ms))).toFixed(2),
    workerCallsPer1000: +per(median(w.map((x) => x.calls))).toFixed(1),
    workerParsed: Math.min(...w.map((x) => x.parsed)),
    inlineCoreMsPer1000: +per(median(n.map((x) => x.ms))).toFixed(2),
    inlineLinesPerS: Math.round(LINES / (median(n.map((x) => x.wallMs)) / 1000)),
    inlineCallsPerLine: median(n.map((x) => x.calls)) / LINES,
  }),
);
process.exit(0);
