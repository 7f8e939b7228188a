// The engine module's work rate in Node: how many boa cycles it runs per wall millisecond,
// the figure behind WORK_PER_MS (crates/parsebox-sandbox/src/clock.rs). Budgets are counted in
// work, so a line that runs out of a B ms budget has run exactly B × WORK_PER_MS cycles; the
// wall time it took gives the rate of this machine.
//
//   node tests/bench/work-rate.mjs [--pkg pkg] [--trials 9]
//
// Prints, per budget, the median and min wall time of a line that spins until its budget is
// spent (the realm rebuild after each such line is kept out of the timing), and the rate.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const pkg = resolve(arg("pkg", "pkg"));
const trials = Number(arg("trials", "9"));
const { initSync, ParserRegistry } = await import(pathToFileURL(`${pkg}/index.js`).href);
initSync({ module: readFileSync(`${pkg}/parsebox_wasm_bg.wasm`), engine: readFileSync(`${pkg}/parsebox_engine.wasm`) });

// Spins on lines starting with "x"; the inner loop keeps boa's per-loop iteration limit away.
const SOURCE = `export function parseStdoutLine(line, ts) {
  if (line[0] !== "x") return [];
  let t = 0;
  for (;;) { for (let i = 0; i < 100; i++) t += i; }
}`;
const WORK_PER_MS = 70_000;
console.log(`| lineBudgetMs | cycles | wall ms (min / median of ${trials}) | cycles per wall ms (median) |`);
console.log("|---|---|---|---|");
for (const budget of [10, 20, 40]) {
  const registry = new ParserRegistry({ loadSource: null, host: "inline", lineBudgetMs: budget, hardDeadlineMs: 60_000 });
  registry.registerSource("spin", SOURCE);
  registry.parseLine("spin", "warm", "t");
  const wall = [];
  for (let k = 0; k < trials; k++) {
    registry.parseLine("spin", "ok", "t"); // rebuilds the realm the last spin left dirty
    const t0 = performance.now();
    registry.parseLine("spin", `x${k}`, "t");
    wall.push(performance.now() - t0);
  }
  const error = registry.diagnostics("spin").lastError ?? "";
  if (!error.includes("work counted by the engine")) throw new Error(`not stopped by work: ${error}`);
  registry.dispose();
  wall.sort((a, b) => a - b);
  const median = wall[Math.floor(wall.length / 2)];
  const cycles = budget * WORK_PER_MS;
  console.log(`| ${budget} | ${cycles.toLocaleString("en")} | ${wall[0].toFixed(1)} / ${median.toFixed(1)} | ${Math.round(cycles / median).toLocaleString("en")} |`);
}
