// Peak engine memory of real-shaped parsers, Node, for BENCHMARKS.md ("Memory per parser") and
// for the default `maxMemoryBytes`: what the compatibility corpus (tests/corpus/compat), the
// shared bench parser and the fuzz corpus (tests/fuzz/corpus) need.
//
//   node tests/bench/corpus-memory.mjs [--pkg pkg] [--lines 2000] [--only NAME_PART] [--json]
//
// Each parser gets its own engine instance (512 MiB maximum, so none is cut short) and one run
// of `--lines` lines: its sample log repeated, each line with the corpus's deterministic ts.
// Reported per parser: the instance's linear memory after start and at the end (wasm memory
// only grows, so the end is the peak), and the growth over the run.

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { arg, packageDir } from "./args.mjs";
import { hermesLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = packageDir();
const LINES = Number(arg("lines", 2000));
const ONLY = arg("only", "");
const MIB = 1 << 20;
const { compileEngine, EngineInstance } = await import(pathToFileURL(join(pkgDir, "engine.js")).href);
const module = await compileEngine(readFileSync(join(pkgDir, "parsebox_engine.wasm")));

const config = JSON.stringify({ lineBudgetMs: 50, initBudgetMs: 200, maxSourceBytes: 1 << 20, maxLineBytes: 4 * MIB, maxMemoryBytes: 512 * MIB });
const ts = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
const fed = (log) => log.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/** [name, source, lines] for every parser measured. */
function parsers() {
  const out = [];
  const compat = join(here, "../corpus/compat");
  for (const name of readdirSync(compat).sort()) {
    out.push([`compat/${name}`, readFileSync(join(compat, name, "ui-parser.js"), "utf8"), fed(readFileSync(join(compat, name, "sample.log"), "utf8"))]);
  }
  out.push(["bench/ui-parser (hermes)", readFileSync(join(here, "../../../shared/bench/ui-parser.js"), "utf8"), fed(hermesLog(LINES))]);
  const fuzz = join(here, "../fuzz/corpus");
  for (const file of readdirSync(fuzz).sort()) {
    const c = JSON.parse(readFileSync(join(fuzz, file), "utf8"));
    out.push([`fuzz/${c.name}`, c.source.join("\n"), fed(c.log.join(""))]);
  }
  return out;
}

const rows = [];
for (const [name, source, sample] of parsers()) {
  if (sample.length === 0 || !name.includes(ONLY)) continue;
  const engine = new EngineInstance(module, { maxMemoryBytes: 512 * MIB });
  const started = JSON.parse(engine.start(source, config));
  if (!("Ok" in started)) {
    rows.push({ name, error: JSON.stringify(started.Err) });
    engine.dispose();
    continue;
  }
  const afterStart = engine.memoryBytes;
  const ops = [{ op: "newRun", run: 1 }];
  for (let i = 0; i < LINES; i++) ops.push({ op: "line", seq: i + 1, run: 1, line: sample[i % sample.length], ts: ts(i), replay: false });
  // In batches of 500, as a Worker is sent them.
  for (let i = 0; i < ops.length; i += 500) engine.run(JSON.stringify(ops.slice(i, i + 500)));
  rows.push({ name, afterStartMiB: afterStart / MIB, peakMiB: engine.memoryBytes / MIB, growthMiB: (engine.memoryBytes - afterStart) / MIB });
  process.stderr.write(`${name}: ${(engine.memoryBytes / MIB).toFixed(1)} MiB\n`);
  engine.dispose();
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows));
} else {
  console.log(`| parser | after start MiB | peak after ${LINES} lines MiB | growth MiB |`);
  console.log("|---|---|---|---|");
  for (const r of rows) console.log(r.error ? `| ${r.name} | did not start: ${r.error} | | |` : `| ${r.name} | ${r.afterStartMiB.toFixed(1)} | ${r.peakMiB.toFixed(1)} | ${r.growthMiB.toFixed(1)} |`);
  const ok = rows.filter((r) => !r.error);
  const peak = ok.reduce((m, r) => Math.max(m, r.peakMiB), 0);
  const worst = ok.find((r) => r.peakMiB === peak);
  console.log(`\n${ok.length} parsers; largest peak ${peak.toFixed(1)} MiB (${worst?.name})`);
}
