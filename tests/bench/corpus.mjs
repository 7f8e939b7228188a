// Per parser, the project's own (issue 55): every parser the repository holds with a log to
// run it on — the compatibility corpus (tests/corpus/compat: JSON stream events, prefixed
// lines, CommonJS builds, generators, classes, Unicode, a char scanner near its budget), the
// viewer's samples (www/samples, without the hostile one), the per-shape parsers
// (tests/bench/shapes) and the hermes-style benchmark parser — in parsebox, quickjs-emscripten
// and unsandboxed, in one Node process, engines alternating trial by trial. Prints lines/s
// per parser and engine, parsebox ÷ quickjs, and whether each engine's entries were
// parsebox's (quickjs and native keep the machine's clock and random numbers, parsebox gives
// a parser the line's: a parser that reads them answers differently there on purpose).
// A benchmark command, not a test.
//
//   node --expose-gc tests/bench/corpus.mjs [--pkg DIR] [--lines 1000] [--trials 3] [--only a,b] [--json FILE]
//
// Needs `npm ci` in tests/bench (quickjs-emscripten), as run.sh does.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { arg, packageDir } from "./args.mjs";
import { makeEngines, quickjsContext, quickjsParser, INIT_BUDGET_MS } from "./core.mjs";
import { hermesLog, logLines, shapeLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const count = Number(arg("lines", "1000"));
const trials = Number(arg("trials", "3"));
const only = arg("only")?.split(",");

/** The parsers and their logs, each log repeated or cut to `count` lines. */
function corpus() {
  const list = [];
  const fit = (lines) => {
    const kept = lines.filter((l) => l.length > 0);
    let out = kept;
    while (out.length < count) out = out.concat(kept);
    return out.slice(0, count);
  };
  const compat = join(root, "tests/corpus/compat");
  for (const name of readdirSync(compat).sort()) {
    const dir = join(compat, name);
    if (!existsSync(join(dir, "sample.log"))) continue;
    list.push({ name: `compat/${name}`, source: readFileSync(join(dir, "ui-parser.js"), "utf8"), lines: fit(readFileSync(join(dir, "sample.log"), "utf8").split("\n")) });
  }
  const samples = join(root, "www/samples");
  for (const name of readdirSync(samples).sort()) {
    const dir = join(samples, name);
    if (name === "hostile_local" || !existsSync(join(dir, "run.ndjson"))) continue;
    const stdout = readFileSync(join(dir, "run.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((row) => JSON.parse(row))
      .filter((c) => c.stream === "stdout")
      .map((c) => c.chunk)
      .join("");
    list.push({ name: `samples/${name}`, source: readFileSync(join(dir, "ui-parser.js"), "utf8"), lines: fit(stdout.split("\n")) });
  }
  for (const shape of ["floor", "jsonparse", "regex", "charscan", "strbuild", "chains"]) {
    list.push({ name: `shapes/${shape}`, source: readFileSync(join(here, "shapes", `${shape}.js`), "utf8"), lines: shapeLog(count) });
  }
  list.push({ name: "bench/hermes-parser", source: readFileSync(join(here, "hermes-parser.js"), "utf8"), lines: fit(logLines(hermesLog(count))) });
  return list.filter((p) => !only || only.some((o) => p.name.includes(o)));
}

/** Whether a source is an ES module (else CommonJS: `module.exports` / `exports.x`). */
const isModule = (src) => /^\s*export\s/m.test(src);

const generic = (line, ts) => [{ kind: "stdout", ts, text: line }];
// The module's parser, called as core.mjs calls it (entries out as one JSON string).
const QJS_CALL = `
globalThis.__p = typeof __ns.createStdoutParser === "function" ? __ns.createStdoutParser() : { parseLine: __ns.parseStdoutLine };
globalThis.__call = (l, t) => { const r = __p.parseLine(l, t); return JSON.stringify(r == null ? [] : r); };`;

/** quickjs-emscripten as core.mjs wraps it, taking ES modules and CommonJS as they are. */
function quickjsEngine(quickjs) {
  return {
    async load(src) {
      const context = quickjsContext(quickjs);
      const { vm } = context;
      const run = (what, code, options) => {
        const res = context.within(INIT_BUDGET_MS, () => vm.evalCode(code, `${what}.js`, options));
        if (!res.error) return res.value;
        const e = vm.dump(res.error);
        res.error.dispose();
        vm.dispose();
        throw new Error(`quickjs ${what}: ${JSON.stringify(e)}`);
      };
      if (isModule(src)) {
        const ns = run("ui-parser", src, { type: "module" });
        vm.setProp(vm.global, "__ns", ns);
        ns.dispose();
      } else run("ui-parser", `var module = { exports: {} }; var exports = module.exports;\n${src}\n;globalThis.__ns = module.exports;`).dispose();
      run("call", QJS_CALL).dispose();
      return quickjsParser(context);
    },
  };
}

let nonce = 0;
/** The parser imported into this process unsandboxed, as Paperclip does (a failed line: generic). */
const nativeEngine = {
  async load(src) {
    let ns;
    if (isModule(src)) ns = await import(`data:text/javascript;base64,${Buffer.from(`${src}\n// ${++nonce}\n`).toString("base64")}`);
    else {
      const module = { exports: {} };
      new Function("module", "exports", src)(module, module.exports);
      ns = module.exports;
    }
    const p = typeof ns.createStdoutParser === "function" ? ns.createStdoutParser() : { parseLine: ns.parseStdoutLine };
    return {
      parseLine(line, ts) {
        try {
          return p.parseLine(line, ts) ?? [];
        } catch {
          return generic(line, ts);
        }
      },
      dispose() {},
    };
  },
};

const dir = packageDir();
const pb = await import(pathToFileURL(join(dir, "index.js")).href);
pb.initSync({ module: readFileSync(join(dir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(dir, "parsebox_engine.wasm")) });
const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
const quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);
const [parsebox] = makeEngines({ parsebox: pb, quickjs, importSource: null });
const engines = [
  { label: "parsebox", engine: parsebox },
  { label: "quickjs", engine: quickjsEngine(quickjs) },
  { label: "native", engine: nativeEngine },
];

const stamp = (i) => new Date(Date.UTC(2026, 0, 1) + i * 37).toISOString();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[(s.length - 1) >> 1] : NaN;
};

const rows = [];
for (const { name, source, lines } of corpus()) {
  const ts = lines.map((_, i) => stamp(i));
  const per = Object.fromEntries(engines.map((e) => [e.label, { rates: [], answers: null, error: null }]));
  for (let t = 0; t <= trials; t++) {
    for (const { label, engine } of t % 2 ? [...engines].reverse() : engines) {
      const r = per[label];
      if (r.error) continue;
      let p;
      try {
        p = await engine.load(source);
      } catch (e) {
        r.error = String(e.message ?? e).slice(0, 120);
        continue;
      }
      globalThis.gc?.();
      const answers = [];
      const t0 = performance.now();
      for (let i = 0; i < lines.length; i++) answers.push(p.parseLine(lines[i], ts[i]));
      const ms = performance.now() - t0;
      p.dispose();
      if (t === 0) r.answers = JSON.stringify(answers); // trial 0 warms up and keeps the answers
      else r.rates.push((lines.length / ms) * 1000);
    }
  }
  const row = { name, lines: lines.length };
  for (const [label, r] of Object.entries(per)) {
    row[label] = r.error ? null : median(r.rates);
    row[`${label}Error`] = r.error;
    row[`${label}Same`] = r.error ? null : r.answers === per.parsebox.answers;
  }
  row.ratio = row.parsebox && row.quickjs ? row.parsebox / row.quickjs : null;
  rows.push(row);
  console.error(`${name}: ${row.parsebox?.toFixed(0)} / ${row.quickjs?.toFixed(0)} / ${row.native?.toFixed(0)} lines/s`);
}

const fmt = (x) => (x == null ? "–" : Math.round(x).toLocaleString("en-US"));
console.log(`${rows.length} parsers, ${count} lines each, ${trials} trials (after a warm-up), Node ${process.version}; lines/s of the median trial\n`);
console.log("| parser | parsebox | quickjs-emscripten | native | parsebox ÷ quickjs | entries as parsebox's (quickjs / native) |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) {
  const same = (l) => (r[`${l}Error`] ? `failed: ${r[`${l}Error`]}` : r[`${l}Same`] ? "yes" : "differ");
  console.log(`| ${r.name} | ${fmt(r.parsebox)} | ${fmt(r.quickjs)} | ${fmt(r.native)} | ${r.ratio == null ? "–" : r.ratio.toFixed(2) + "×"} | ${same("quickjs")} / ${same("native")} |`);
}
const ratios = rows.map((r) => r.ratio).filter((x) => x != null).sort((a, b) => a - b);
const q = (p) => ratios[Math.min(ratios.length - 1, Math.floor(p * (ratios.length - 1)))];
console.log(`\nparsebox ÷ quickjs over ${ratios.length} parsers: median ${q(0.5).toFixed(2)}× (p25 ${q(0.25).toFixed(2)}, p75 ${q(0.75).toFixed(2)}), lowest ${ratios[0].toFixed(2)}×, below 1.0× on ${ratios.filter((x) => x < 1).length}`);
if (arg("json")) writeFileSync(arg("json"), JSON.stringify(rows, null, 2));
