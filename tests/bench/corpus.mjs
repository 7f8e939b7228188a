// Per parser, the project's own (issue 55): every parser the repository holds with a log to
// run it on — the compatibility corpus (tests/corpus/compat: JSON stream events, prefixed
// lines, CommonJS builds, generators, classes, Unicode, a char scanner near its budget), the
// viewer's samples (www/samples, without the hostile one), the per-shape parsers
// (tests/bench/shapes) and the hermes-style benchmark parser — in parsebox, quickjs-emscripten
// and unsandboxed (core.mjs' three engines), in one Node process, engines interleaved trial by
// trial. Prints lines/s per parser and engine, parsebox ÷ quickjs, and whether parsebox's and
// quickjs's entries are native's (parsebox gives a parser the line's time where the others keep
// the machine's clock: a parser that reads it answers differently on purpose).
// A benchmark command, not a test.
//
//   node --expose-gc tests/bench/corpus.mjs [--pkg DIR] [--lines 1000] [--trials 3] [--only a,b] [--json FILE] [--browser chromium]
//
// Needs `npm ci` in tests/bench (quickjs-emscripten), as run.sh does.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { arg, packageDir } from "./args.mjs";
import { launchChromium, openBenchPage, serve } from "./chromium.mjs";
import { corpusRows, makeEngines } from "./core.mjs";
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
  for (const shape of ["floor", "jsonparse", "regex", "charscan", "strbuild", "chains", "tokens"]) {
    list.push({ name: `shapes/${shape}`, source: readFileSync(join(here, "shapes", `${shape}.js`), "utf8"), lines: shapeLog(count) });
  }
  list.push({ name: "bench/hermes-parser", source: readFileSync(join(here, "hermes-parser.js"), "utf8"), lines: fit(logLines(hermesLog(count))) });
  return list.filter((p) => !only || only.some((o) => p.name.includes(o)));
}

/** Each parser's rows in Node: the package under test, quickjs-emscripten and native, in this process. */
async function nodeRows(items) {
  const dir = packageDir();
  const pb = await import(pathToFileURL(join(dir, "index.js")).href);
  pb.initSync({ module: readFileSync(join(dir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(dir, "parsebox_engine.wasm")) });
  const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
  const quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);
  const importSource = (src) => import(`data:text/javascript;base64,${Buffer.from(src).toString("base64")}`);
  return corpusRows(makeEngines({ parsebox: pb, quickjs, importSource }), items, trials, (m) => console.error(m));
}

/** The same rows in a page of headless Chromium (page.mjs' `runCorpus`), the package served from --pkg. */
async function chromiumRows(items) {
  const server = await serve(packageDir());
  const browser = await launchChromium();
  try {
    const { context, page, errors } = await openBenchPage(browser, server);
    page.on("console", (m) => {
      if (m.type() === "log") console.error(`chromium: ${m.text()}`);
    });
    const rows = await page.evaluate(([i, t]) => window.runCorpus(i, t), [items, trials]);
    if (errors.length) throw errors[0];
    await context.close();
    return { rows, where: `Chromium ${browser.version()}` };
  } finally {
    await browser.close();
    await server.close();
  }
}

const browser = arg("browser");
if (browser && browser !== "chromium") throw new Error(`--browser: only chromium, not ${browser}`);
const { rows, where } = browser ? await chromiumRows(corpus()) : { rows: await nodeRows(corpus()), where: `Node ${process.version}` };

const fmt = (x) => (x == null ? "–" : Math.round(x).toLocaleString("en-US"));
console.log(`${rows.length} parsers, ${count} lines each, ${trials} trials (after a warm-up), ${where}; lines/s, median trial\n`);
console.log("| parser | parsebox | quickjs-emscripten | native | parsebox ÷ quickjs | entries as native's (parsebox / quickjs) |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) {
  const same = (e) => (r.error ? `failed: ${r.error}` : r.agreement[e] === "same" ? "yes" : r.agreement[e].startsWith("same entries") ? "yes, keys in another order" : "differ");
  console.log(`| ${r.name} | ${fmt(r.parsebox)} | ${fmt(r.quickjs)} | ${fmt(r.native)} | ${r.ratio == null ? "–" : r.ratio.toFixed(2) + "×"} | ${same("parsebox")} / ${same("quickjs")} |`);
}
const ratios = rows.map((r) => r.ratio).filter((x) => x != null).sort((a, b) => a - b);
const q = (p) => ratios[Math.min(ratios.length - 1, Math.floor(p * (ratios.length - 1)))];
console.log(`\nparsebox ÷ quickjs over ${ratios.length} parsers: median ${q(0.5).toFixed(2)}× (p25 ${q(0.25).toFixed(2)}, p75 ${q(0.75).toFixed(2)}), lowest ${ratios[0].toFixed(2)}×, below 1.0× on ${ratios.filter((x) => x < 1).length}`);
if (arg("json")) writeFileSync(arg("json"), JSON.stringify(rows, null, 2));
