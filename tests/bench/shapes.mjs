// Per-line time by parser shape (issue 40): the shapes real parsers have (a char-by-char scan,
// split/map/filter chains, string building, JSON.parse, regexes, a regex tokeniser) and the floor (a parser that
// returns the line as it came), tests/bench/shapes/*.js, each on the same 410-character lines,
// in parsebox, in quickjs-emscripten (wrapped as tests/bench/core.mjs wraps it) and unsandboxed
// (the parser imported into the page, as Paperclip does today), in one Node process, engines
// alternating trial by trial.
// Per shape and engine: lines/s, and the per-line p50 / p99 / max over every trial's lines.
// A benchmark command, not a test.
//
//   node --expose-gc tests/bench/shapes.mjs [--pkg DIR] [--before DIR] [--lines 2000] [--trials 5] [--only a,b] [--json FILE] [--boa-native]
//
// `--before DIR` adds a second build of the package (measured the same way, interleaved), for a
// before/after table. `--boa-native` adds boa itself, natively (the sandbox's release build on
// this machine, `crates/parsebox-sandbox/examples/shape_costs.rs`, best of five passes over the
// same lines), after the others: what the engine costs with no wasm and no page around it, the
// ceiling the package's per-shape speed can reach. Needs `npm ci` in tests/bench
// (quickjs-emscripten), as run.sh does.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { arg, loadPackage, packageDir } from "./args.mjs";
import { makeEngines } from "./core.mjs";
import { shapeLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const SHAPES = ["floor", "charscan", "chains", "strbuild", "jsonparse", "regex", "tokens"].filter((s) => !arg("only") || arg("only").split(",").includes(s));
const lineCount = Number(arg("lines", "2000"));
const trials = Number(arg("trials", "5"));

const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
const quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);

// makeEngines gives [parsebox, quickjs, native].
const engines = [];
const after = await loadPackage(packageDir());
const importSource = (src) => import(`data:text/javascript;base64,${Buffer.from(src).toString("base64")}`);
const [parsebox, qjs, native] = makeEngines({ parsebox: after, quickjs, importSource });
engines.push({ label: "parsebox", engine: parsebox });
if (arg("before")) engines.unshift({ label: "parsebox before", engine: makeEngines({ parsebox: await loadPackage(resolve(arg("before"))), quickjs, importSource })[0] });
engines.push({ label: "quickjs-emscripten", engine: qjs });
engines.push({ label: "native", engine: native });

const lines = shapeLog(lineCount);
const ts = "2026-01-01T00:00:00.000Z";
const results = {};
for (const shape of SHAPES) {
  const src = readFileSync(join(here, "shapes", `${shape}.js`), "utf8");
  const per = Object.fromEntries(engines.map((e) => [e.label, { perLine: [], totals: [], answers: null }]));
  for (let t = 0; t <= trials; t++) {
    for (const e of t % 2 ? [...engines].reverse() : engines) {
      const p = await e.engine.load(src);
      globalThis.gc?.();
      const times = new Float64Array(lines.length);
      const answers = [];
      const t0 = performance.now();
      for (let i = 0; i < lines.length; i++) {
        const a = performance.now();
        answers.push(p.parseLine(lines[i], ts));
        times[i] = performance.now() - a;
      }
      const total = performance.now() - t0;
      p.dispose();
      const r = per[e.label];
      if (t === 0) {
        r.answers = JSON.stringify(answers); // trial 0 warms up and checks the engines agree
        continue;
      }
      r.perLine.push(...times);
      r.totals.push(total);
    }
  }
  // Every engine's answers against this build's (a build before a fix may differ on purpose).
  const ours = JSON.parse(per.parsebox.answers);
  for (const [label, r] of Object.entries(per)) {
    const theirs = JSON.parse(r.answers);
    const i = theirs.findIndex((a, k) => JSON.stringify(a) !== JSON.stringify(ours[k]));
    if (i >= 0) console.error(`${shape}: ${label} answered line ${i + 1} differently from parsebox: ${JSON.stringify(theirs[i]).slice(0, 300)} vs ${JSON.stringify(ours[i]).slice(0, 300)}`);
  }
  results[shape] = Object.fromEntries(Object.entries(per).map(([label, r]) => [label, summary(r)]));
}

function summary({ perLine, totals }) {
  const sorted = [...perLine].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const medianTotal = [...totals].sort((a, b) => a - b)[totals.length >> 1];
  return { linesPerSecond: Math.round((lineCount / medianTotal) * 1000), p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] };
}

const us = (ms) => `${Math.round(ms * 1000).toLocaleString("en")}`;
console.log(`${lineCount} lines of 410 characters, ${trials} trials (after a warm-up), Node ${process.version}; per-line times in µs`);
console.log("");
console.log(`| shape | engine | lines/s (median trial) | p50 µs | p99 µs | max µs | p99 ÷ p50 | lines/s ÷ quickjs |`);
console.log("|---|---|---|---|---|---|---|---|");
for (const [shape, per] of Object.entries(results)) {
  const q = per["quickjs-emscripten"].linesPerSecond;
  for (const [label, s] of Object.entries(per)) {
    console.log(`| ${shape} | ${label} | ${s.linesPerSecond.toLocaleString("en")} | ${us(s.p50)} | ${us(s.p99)} | ${us(s.max)} | ${(s.p99 / s.p50).toFixed(1)} | ${(s.linesPerSecond / q).toFixed(2)}× |`);
  }
}

if (process.argv.includes("--boa-native")) {
  // The same lines, to the native example; the wasm engines' time per line from their median trial.
  const root = join(here, "..", "..");
  const dir = mkdtempSync(join(tmpdir(), "parsebox-shapes-"));
  const log = join(dir, "shape.log");
  writeFileSync(log, lines.join("\n"));
  const cargo = ["run", "--release", "--locked", "-q", "-p", "parsebox-sandbox", "--example", "shape_costs", "--"];
  console.log("");
  console.log("| shape | boa native µs | parsebox µs | quickjs-emscripten µs | parsebox ÷ boa native (time) | boa native ÷ quickjs-emscripten (speed) |");
  console.log("|---|---|---|---|---|---|");
  for (const [shape, per] of Object.entries(results)) {
    const out = execFileSync("cargo", [...cargo, join(here, "shapes", `${shape}.js`), log], { cwd: root, encoding: "utf8" });
    const m = /whole ([\d.]+) µs\/line/.exec(out);
    if (!m) throw new Error(`shape_costs said: ${out}`);
    const boa = Number(m[1]);
    const perLine = (label) => 1e6 / per[label].linesPerSecond;
    per["boa native"] = { microsecondsPerLine: boa };
    const [pb, qjs] = [perLine("parsebox"), perLine("quickjs-emscripten")];
    console.log(`| ${shape} | ${boa.toFixed(1)} | ${pb.toFixed(1)} | ${qjs.toFixed(1)} | ${(pb / boa).toFixed(1)}× | ${(qjs / boa).toFixed(2)}× |`);
  }
  rmSync(dir, { recursive: true });
}
if (arg("json")) writeFileSync(arg("json"), JSON.stringify(results, null, 1));
