// The floor per line (issue 55): what a line costs whatever its parser does, two builds of the
// package side by side. The floor parser (shapes/floor.js, returns the line) through a
// createStdoutParser() run's parseLine, on short lines (`line 12 ok`) and on the shape log's
// 410-character lines, each line with its own timestamp; the builds alternate trial by trial,
// the first two trials of each are a warm-up. Prints the median µs a line of each, and their
// ratio. A benchmark command, not a test.
//
//   node tests/bench/floor.mjs --before DIR [--pkg DIR] [--lines 2000] [--trials 10]
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { makeEngines } from "./core.mjs";
import { shapeLog } from "./gen-log.mjs";

if (!arg("before")) throw new Error("give --before DIR: the build to compare with (--pkg, default pkg/, is the other)");
const count = Number(arg("lines", "2000"));
const trials = Number(arg("trials", "10"));
const WARM_UP_TRIALS = 2;

const engine = async (dir) => makeEngines({ parsebox: await loadPackage(dir), quickjs: null, importSource: null })[0];

const builds = { before: await engine(resolve(arg("before"))), after: await engine(packageDir()) };
const source = readFileSync(new URL("./shapes/floor.js", import.meta.url), "utf8");
const long = shapeLog(count);
const logs = { "short lines": long.map((_, i) => `line ${i} ok`), "410-character lines": long };
const two = (n) => String(n).padStart(2, "0");
const ts = (i) => `2026-01-01T${two(((i / 3600) | 0) % 24)}:${two(((i / 60) | 0) % 60)}:${two(i % 60)}.${String(i % 1000).padStart(3, "0")}Z`;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log(`The floor parser, ${count} lines a trial, ${trials} trials of each build (after ${WARM_UP_TRIALS} to warm up), Node ${process.version}; µs a line, medians\n`);
console.log("| lines | before | after | after ÷ before |\n|---|---|---|---|");
for (const [name, lines] of Object.entries(logs)) {
  const times = { before: [], after: [] };
  for (let t = 0; t < trials + WARM_UP_TRIALS; t++) {
    for (const which of t % 2 ? ["after", "before"] : ["before", "after"]) {
      const parser = await builds[which].load(source);
      const started = performance.now();
      for (let i = 0; i < lines.length; i++) parser.parseLine(lines[i], ts(i));
      const us = ((performance.now() - started) * 1000) / lines.length;
      parser.dispose();
      if (t >= WARM_UP_TRIALS) times[which].push(us);
    }
  }
  const [b, a] = [median(times.before), median(times.after)];
  console.log(`| ${name} | ${b.toFixed(2)} | ${a.toFixed(2)} | ${(a / b).toFixed(3)} |`);
}
