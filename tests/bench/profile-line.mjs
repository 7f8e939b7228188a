// Where a parser's time per line goes inside the package (issue 55: "find where boa's 5x in
// wasm goes"): one parser run inline in Node over a log, timed, then run again under V8's CPU
// profiler, and the functions that took the most time themselves listed by name. A benchmark
// command, not a test.
//
//   KEEP_NAMES=1 bash tests/bench/build-pkg.sh /tmp/pkg-names        # a package with names
//   node tests/bench/profile-line.mjs --pkg /tmp/pkg-names --shape charscan [--lines 3000] [--top 25]
//   node tests/bench/profile-line.mjs --pkg DIR --parser ui-parser.js --log run.log
//
// Without names (the shipped pkg/) the engine's functions show as wasm-function[N]. V8 flags
// go before the script (`node --no-liftoff tests/bench/profile-line.mjs ...`). The same shape
// natively, for the side-by-side: `perf record -g target/release/examples/shape_costs
// tests/bench/shapes/charscan.js LOG` (crates/parsebox-sandbox/examples/shape_costs.rs).
import { Session } from "node:inspector/promises";
import { readFileSync } from "node:fs";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { makeEngines } from "./core.mjs";
import { shapeLog } from "./gen-log.mjs";

const TS = "2026-01-01T00:00:00.000Z";
const WARM_UP_LINES = 200;

/** A Rust symbol (legacy mangling, `_ZN…E`) as its path, without the hash; others as they are. */
export function demangle(name) {
  const m = /^_ZN(.*)E$/.exec(name);
  if (!m) return name;
  const parts = [];
  let rest = m[1];
  while (rest.length) {
    const len = /^(\d+)/.exec(rest);
    if (!len) break;
    const n = Number(len[1]);
    parts.push(rest.slice(len[1].length, len[1].length + n));
    rest = rest.slice(len[1].length + n);
  }
  if (/^h[0-9a-f]{16}$/.test(parts.at(-1) ?? "")) parts.pop();
  const codes = { SP: "@", BP: "*", RF: "&", LT: "<", GT: ">", LP: "(", RP: ")", C: "," };
  return parts
    .join("::")
    .replace(/\$([A-Z]+)\$/g, (_, c) => codes[c] ?? `$${c}$`)
    .replace(/\$u([0-9a-f]+)\$/g, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/\.\./g, "::");
}

/** The script a frame's code is in (a wasm module without its hash suffix); "" for Node's own. */
const scriptOf = (f) => f.url.split("/").at(-1).replace(/\.wasm-[0-9a-f]+$/, ".wasm");

/** Each `keyOf(callFrame)`'s share of the samples its frame was on top of the stack for, largest first. */
function shares(profile, keyOf) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const id of profile.samples) {
    const key = keyOf(byId.get(id).callFrame);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  return [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => ({ name, share: n / total }));
}

/** Each function's share, named with its script. */
const selfShares = (profile) =>
  shares(profile, (f) => {
    const script = scriptOf(f);
    return `${demangle(f.functionName || `(${script || "program"})`)}${script ? ` [${script}]` : ""}`;
  });

/** Each script's share (the core module, the engine module, the package's JS, Node's own). */
const scriptShares = (profile) => shares(profile, (f) => scriptOf(f) || `(${f.functionName || "program"})`);

const dir = packageDir();
const pb = await loadPackage(dir);
const [parsebox] = makeEngines({ parsebox: pb, quickjs: null, importSource: null });

const shape = arg("shape");
if (!shape === !arg("parser")) throw new Error("give --shape NAME (tests/bench/shapes) or --parser FILE --log FILE");
const source = readFileSync(shape ? new URL(`./shapes/${shape}.js`, import.meta.url) : arg("parser"), "utf8");
const count = Number(arg("lines", "2000"));
let lines = shape ? shapeLog(count) : readFileSync(arg("log"), "utf8").split("\n").filter(Boolean);
while (lines.length < count) lines = lines.concat(lines);
lines = lines.slice(0, count);

const parser = await parsebox.load(source);
const pass = () => {
  const t0 = performance.now();
  for (const line of lines) parser.parseLine(line, TS);
  return ((performance.now() - t0) * 1000) / lines.length;
};
for (let i = 0; i < WARM_UP_LINES; i++) parser.parseLine(lines[i % lines.length], TS);
const plain = pass();

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const profiled = pass();
const { profile } = await session.post("Profiler.stop");
session.disconnect();
parser.dispose();

console.log(`${shape ?? arg("parser")}: ${lines.length} lines, ${plain.toFixed(1)} µs a line (${profiled.toFixed(1)} under the profiler), Node ${process.version}`);
console.log("\n| self time | script |\n|---|---|");
for (const { name, share } of scriptShares(profile).slice(0, 12)) console.log(`| ${(100 * share).toFixed(1)} % | \`${name}\` |`);
console.log("\n| self time | function |\n|---|---|");
for (const { name, share } of selfShares(profile).slice(0, Number(arg("top", "25")))) {
  console.log(`| ${(100 * share).toFixed(1)} % | \`${name.slice(0, 140)}\` |`);
}
