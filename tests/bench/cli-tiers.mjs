// The npm command's V8 tiers (cli/tiers.js): `node pkg/cli.js` as it ships (its own tiering
// budget), with V8's default budget given on node's command line (what the command did
// before), and with the baseline tier only (`--liftoff-only`), on logs from a few dozen lines
// to 100,000. Each run is a process of its own (the compile is what is measured); the three
// alternate run by run. Prints the median wall and CPU seconds of each (CPU: user + system, as
// `/usr/bin/time` reports them). A benchmark command, not a test.
//
//   node tests/bench/cli-tiers.mjs [--pkg DIR] [--trials 3]
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { arg, packageDir } from "./args.mjs";
import { hermesLog, shapeLog } from "./gen-log.mjs";

const trials = Number(arg("trials", "3"));
const root = fileURLToPath(new URL("../../", import.meta.url));
const cli = join(packageDir(), "cli.js");
const dir = mkdtempSync(join(tmpdir(), "parsebox-tiers-"));
const logFile = (name, text) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const hermes = (n) => logFile(`hermes-${n}.log`, hermesLog(n));
const parse = (parser, log) => ["parse", "--parser", join(root, parser), log, "--format", "jsonl"];

const cases = [
  ["`check`, the codex sample (34 lines)", ["check", join(root, "www/samples/codex_local/ui-parser.js"), "--log", join(root, "www/samples/codex_local/run.ndjson")]],
  ["`parse`, hermes parser, 2,000 lines", parse("tests/bench/hermes-parser.js", hermes(2000))],
  ["`parse`, hermes parser, 20,000 lines", parse("tests/bench/hermes-parser.js", hermes(20000))],
  ["`parse`, hermes parser, 100,000 lines", parse("tests/bench/hermes-parser.js", hermes(100000))],
  ["`parse`, char-scanning parser, 10,000 lines of 410 characters", parse("tests/bench/shapes/charscan.js", logFile("charscan.log", shapeLog(10000).join("\n") + "\n"))],
];
const modes = {
  "as shipped": [],
  "V8's default budget": ["--wasm-tiering-budget=1800000"],
  "`--liftoff-only`": ["--liftoff-only"],
};

/** One run: wall and CPU seconds. */
function once(flags, args) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S", process.execPath, ...flags, cli, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`parsebox ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const [wall, user, sys] = r.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { wall, cpu: user + sys };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log(`\`node ${cli} …\`, ${trials} runs of each, alternating; Node ${process.version}; median seconds, wall / CPU\n`);
console.log(`| log | ${Object.keys(modes).join(" | ")} |\n|---|${Object.keys(modes).map(() => "---|").join("")}`);
for (const [name, args] of cases) {
  const runs = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
  for (let t = 0; t < trials; t++) {
    const order = Object.keys(modes);
    for (const m of t % 2 ? order.reverse() : order) runs[m].push(once(modes[m], args));
  }
  const cell = (m) => `${median(runs[m].map((r) => r.wall)).toFixed(2)} / ${median(runs[m].map((r) => r.cpu)).toFixed(2)}`;
  console.log(`| ${name} | ${Object.keys(modes).map(cell).join(" | ")} |`);
}
