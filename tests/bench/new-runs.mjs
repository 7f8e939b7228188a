// What a run after the first costs an engine instance, Node, for BENCHMARKS.md ("New runs").
//
//   node tests/bench/new-runs.mjs [--pkg pkg] [--runs 30] [--instances 3]
//
// Each engine instance starts the hermes-style bench parser, then makes `--runs` runs one after
// another, each a `newRun`, one line and a `dropRun` in one call. The first run takes the realm
// the instance was shipped with (snapshot.mjs); every later one, like the rebuild after a line
// over its budget, makes a realm from scratch. Printed: each call's wall time, per instance,
// and the median of runs 2-5 and of the last five: V8 runs boa's code unoptimised (Liftoff)
// until a function is hot enough to be optimised, so the first from-scratch realms cost more.
// Instances after the first share the module's compiled code (`WebAssembly.Module`).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { arg, packageDir } from "./args.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = packageDir();
const RUNS = Number(arg("runs", 30));
const INSTANCES = Number(arg("instances", 3));

const { EngineInstance } = await import(pathToFileURL(join(pkgDir, "engine.js")).href);
const module = await WebAssembly.compile(readFileSync(join(pkgDir, "parsebox_engine.wasm")));
const source = readFileSync(join(here, "hermes-parser.js"), "utf8");
const MIB = 1 << 20;
const config = JSON.stringify({ lineBudgetMs: 1000, initBudgetMs: 5000, maxSourceBytes: 256 * 1024, maxLineBytes: MIB, maxMemoryBytes: 256 * MIB });
const line = "┊ 💻 $         npm test  0.4s";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => x.toFixed(1);

console.log(`# ${RUNS} runs per engine instance, ${INSTANCES} instances (${pkgDir})`);
for (let k = 0; k < INSTANCES; k++) {
  const engine = new EngineInstance(module, { maxMemoryBytes: 256 * MIB });
  const started = JSON.parse(engine.start(source, config));
  if (!("Ok" in started)) throw new Error(`the bench parser did not load: ${JSON.stringify(started)}`);
  const times = [];
  for (let run = 1; run <= RUNS; run++) {
    const ops = [
      { op: "newRun", run },
      { op: "line", seq: run, run, line, ts: "2026-01-01T00:00:00Z", replay: false },
      { op: "dropRun", run },
    ];
    const t = performance.now();
    const answer = JSON.parse(engine.run(JSON.stringify(ops)));
    times.push(performance.now() - t);
    if (!("Ok" in answer[0][1])) throw new Error(`run ${run} failed: ${JSON.stringify(answer[0][1])}`);
  }
  engine.dispose();
  console.log(`instance ${k + 1}: first run ${ms(times[0])} ms; runs 2-5 median ${ms(median(times.slice(1, 5)))} ms; last five median ${ms(median(times.slice(-5)))} ms`);
  console.log(`  every run (ms): ${times.map((x) => Math.round(x)).join(" ")}`);
}
