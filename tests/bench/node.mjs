// Driver of the side-by-side benchmark (issue 7): runs core.mjs in Node, then in headless
// Chromium (playwright-core from tests/node_modules, Debian's /usr/bin/chromium), cold starts in
// fresh processes / fresh browser contexts, measures sizes, and prints the tables.
//
//   node --expose-gc tests/bench/node.mjs --pkg DIR [--trials 5] [--baseline-trials N]
//        [--json FILE] [--only node|chromium] [--quick] [--cold-only]
//
// run.sh is the entry point: it installs what is missing and copies pkg/ to a private dir.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib from "node:zlib";

import { launchChromium, openBenchPage, serve } from "./chromium.mjs";
import { engineBytes, makeEngines, memoryRun, newRegistry, quickjsUsed, suite } from "./core.mjs";
import { claudeLog, hermesLog } from "./gen-log.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const SHARED = process.env.PARSEBOX_SHARED_BENCH ?? resolve(repo, "../shared/bench");

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith("--") ? true : v;
}

const pkgDir = resolve(arg("pkg", join(repo, "pkg")));
const quick = arg("quick", false) === true;
const trials = Number(arg("trials", quick ? 2 : 5));
const baselineTrials = Number(arg("baseline-trials", trials));
const only = arg("only", null);
const jsonOut = arg("json", null);
/** Cold starts of parsebox alone, printed as JSON (for side-by-side runs of two packages). */
const coldOnly = arg("cold-only", false) === true;
const coldEngines = coldOnly ? ["parsebox"] : ["parsebox", "quickjs", "native"];

const SOURCES = {
  own: readFileSync(join(here, "hermes-parser.js"), "utf8"),
  claude: readFileSync(join(repo, "tests/corpus/compat/claude-stream-json/ui-parser.js"), "utf8"),
  shared: existsSync(join(SHARED, "ui-parser.js")) && existsSync(join(SHARED, "gen-log.js")) ? readFileSync(join(SHARED, "ui-parser.js"), "utf8") : null,
};

function sharedLog(n) {
  const r = spawnSync(process.execPath, [join(SHARED, "gen-log.js"), String(n)], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`gen-log.js: ${r.stderr}`);
  return r.stdout;
}

function config() {
  const big = quick ? 20000 : 100000;
  const workloads = [
    { name: "own hermes 10k", src: SOURCES.own, log: { gen: "hermes", n: 10000 }, latency: true },
    { name: `own hermes ${big / 1000}k`, src: SOURCES.own, log: { gen: "hermes", n: big } },
  ];
  if (SOURCES.shared) {
    workloads.push({ name: "shared bench 10k", src: SOURCES.shared, log: { url: "/shared-log/10000" }, latency: true });
    workloads.push({ name: `shared bench ${big / 1000}k`, src: SOURCES.shared, log: { url: `/shared-log/${big}` } });
  }
  workloads.push({ name: "claude long lines 2k", src: SOURCES.claude, log: { gen: "claude", n: 2000 }, latency: true });
  return {
    trials,
    baselineTrials,
    workloads,
    live: [
      { name: "3,577 lines", src: SOURCES.own, log: { gen: "hermes", n: 3577 }, chunkSize: 4096 },
      { name: `${big.toLocaleString("en")} lines`, src: SOURCES.own, log: { gen: "hermes", n: big }, chunkSize: 4096 },
    ],
    memorySrc: SOURCES.own,
  };
}

const sharedLogs = new Map();
function sharedLogCached(n) {
  if (!sharedLogs.has(n)) sharedLogs.set(n, sharedLog(n));
  return sharedLogs.get(n);
}

// ---------------------------------------------------------------------------------------------
// Cold start in a fresh Node process (this file with --cold).

const LINE = "┊ $ ls /home/user/project";
const TS = "2026-01-01T00:00:00.000Z";

async function coldNode(engine, srcPath) {
  const src = readFileSync(srcPath, "utf8");
  const now = () => performance.now();
  const t0 = now();
  if (engine === "parsebox") {
    const pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
    pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });
    const tInit = now();
    const registry = newRegistry(pb, { loadSource: null });
    registry.parseLine("generic", LINE, TS);
    const tFirst = now();
    // As in the browser (page.mjs): the engine's code is warmed (in Node, a worker thread that
    // engineReady() starts), so "source → ready" is the registration's own time.
    await pb.engineReady();
    const tEngine = now();
    const status = registry.registerSource("bench", src);
    const tReady = now();
    const entry = registry.parseLine("bench", LINE, TS);
    const tEntry = now();
    if (status.state !== "ready" || entry[0].kind !== "tool_call") throw new Error("cold parsebox failed");
    return { initMs: tInit - t0, firstEntryMs: tFirst - t0, engineReadyMs: tEngine - t0, sourceReadyMs: tReady - tEngine, sourceFirstEntryMs: tEntry - tEngine };
  }
  if (engine === "quickjs") {
    const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
    const variant = (await import("@jitl/quickjs-wasmfile-release-sync")).default;
    const qjs = await newQuickJSWASMModuleFromVariant(variant);
    const tInit = now();
    const { makeEngines } = await import("./core.mjs");
    const [, quickjs] = makeEngines({ quickjs: qjs });
    const tFirst = now();
    const p = await quickjs.load(src);
    const tReady = now();
    const entry = p.parseLine(LINE, TS);
    const tEntry = now();
    if (entry[0].kind !== "tool_call") throw new Error("cold quickjs failed");
    return { initMs: tInit - t0, firstEntryMs: null, sourceReadyMs: tReady - tFirst, sourceFirstEntryMs: tEntry - tFirst };
  }
  const tFirst = now();
  const ns = await import(`data:text/javascript;base64,${Buffer.from(src).toString("base64")}`);
  const p = typeof ns.createStdoutParser === "function" ? ns.createStdoutParser() : { parseLine: ns.parseStdoutLine };
  const tReady = now();
  const entry = p.parseLine(LINE, TS);
  const tEntry = now();
  if (entry[0].kind !== "tool_call") throw new Error("cold native failed");
  return { initMs: 0, firstEntryMs: null, sourceReadyMs: tReady - tFirst, sourceFirstEntryMs: tEntry - tFirst };
}

async function memoryNode(engine, srcPath) {
  const src = readFileSync(srcPath, "utf8");
  const deps = { importSource: (s) => import(`data:text/javascript;base64,${Buffer.from(s).toString("base64")}`) };
  let probe;
  if (engine === "parsebox") {
    deps.parsebox = await import(pathToFileURL(join(pkgDir, "index.js")).href);
    deps.parsebox.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });
    const wasm = (await import(pathToFileURL(join(pkgDir, "parsebox_wasm.js")).href)).initSync({});
    // The core's memory plus every engine instance of the newest registry.
    probe = () => wasm.memory.buffer.byteLength + engineBytes();
  } else if (engine === "quickjs") {
    const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
    deps.quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);
    probe = quickjsUsed;
  } else {
    probe = () => process.memoryUsage().heapUsed;
  }
  const e = makeEngines(deps).find((x) => x.name === engine);
  return memoryRun(e, src, probe, 16, typeof globalThis.gc === "function" ? () => globalThis.gc() : null);
}

if (arg("memory", null)) {
  process.stdout.write(JSON.stringify(await memoryNode(arg("memory"), arg("src"))));
  process.exit(0);
}

if (arg("cold", null)) {
  const r = await coldNode(arg("cold"), arg("src"));
  process.stdout.write(JSON.stringify(r));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------

const say = (m) => console.error(`[bench ${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${m}`);
const loads = [];
const noteLoad = (when) => loads.push({ when, load1: os.loadavg()[0] });

function stats(values) {
  const s = values.filter((v) => v !== null && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!s.length) return null;
  return { min: s[0], median: s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, max: s[s.length - 1], n: s.length };
}

function sizes(bytes) {
  return {
    raw: bytes.length,
    gzip: zlib.gzipSync(bytes, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length,
  };
}

function fileSizes(files) {
  return sizes(Buffer.concat(files.map((f) => readFileSync(f))));
}

function sizeReport() {
  const qdir = join(here, "node_modules");
  const core = join(qdir, "quickjs-emscripten-core/dist");
  const variant = join(qdir, "@jitl/quickjs-wasmfile-release-sync/dist");
  const coreFiles = readFileSync(join(core, "index.mjs"), "utf8");
  const chunkFiles = [...coreFiles.matchAll(/"\.\/(chunk-[A-Z0-9]+\.mjs)"/g)].map((m) => join(core, m[1]));
  return {
    parsebox: {
      // Both modules, each compressed on its own (they are two downloads).
      wasm: ["parsebox_wasm_bg.wasm", "parsebox_engine.wasm"]
        .filter((f) => existsSync(join(pkgDir, f)))
        .map((f) => fileSizes([join(pkgDir, f)]))
        .reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli })),
      js: fileSizes(staticImports(join(pkgDir, "index.js"))),
    },
    quickjs: {
      wasm: fileSizes([join(variant, "emscripten-module.wasm")]),
      js: fileSizes([
        join(core, "index.mjs"),
        ...new Set(chunkFiles),
        join(core, readdirMatch(core, /^module-(?!asyncify)[A-Z0-9]+\.mjs$/)),
        join(qdir, "@jitl/quickjs-ffi-types/dist/index.mjs"),
        join(variant, "index.mjs"),
        join(variant, "ffi.mjs"),
        join(variant, "emscripten-module.browser.mjs"),
      ]),
    },
  };
}

/** `entry` and every relative module it imports statically (what a page loads up front). */
function staticImports(entry, seen = new Set()) {
  if (seen.has(entry)) return [...seen];
  seen.add(entry);
  const src = readFileSync(entry, "utf8");
  for (const m of src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["'](\.\/[^"']+)["']/gm)) staticImports(join(dirname(entry), m[1]), seen);
  return [...seen];
}

function readdirMatch(dir, re) {
  const f = readdirSync(dir).find((n) => re.test(n));
  if (!f) throw new Error(`no ${re} in ${dir}`);
  return f;
}

async function nodeSuite(cfg) {
  const pb = await import(pathToFileURL(join(pkgDir, "index.js")).href);
  pb.initSync({ module: readFileSync(join(pkgDir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(pkgDir, "parsebox_engine.wasm")) });
  const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
  const variant = (await import("@jitl/quickjs-wasmfile-release-sync")).default;
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  const gc = typeof globalThis.gc === "function" ? () => globalThis.gc() : null;
  const deps = {
    parsebox: pb,
    quickjs,
    gc,
    importSource: (src) => import(`data:text/javascript;base64,${Buffer.from(src).toString("base64")}`),
    loadText: async (spec) => {
      if (spec.gen === "hermes") return hermesLog(spec.n);
      if (spec.gen === "claude") return claudeLog(spec.n);
      return sharedLogCached(Number(spec.url.split("/").pop()));
    },
  };
  return suite(deps, cfg, (m) => say(`node: ${m}`));
}

function memoryNodeAll(srcPath) {
  const out = {};
  for (const engine of ["parsebox", "quickjs", "native"]) {
    const r = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--memory", engine, "--pkg", pkgDir, "--src", srcPath], { encoding: "utf8", cwd: here });
    if (r.status !== 0) throw new Error(`memory ${engine}: ${r.stderr}`);
    out[engine] = JSON.parse(r.stdout);
  }
  return out;
}

function coldNodeTrials(srcPath) {
  const out = {};
  for (const engine of coldEngines) {
    const runs = [];
    for (let t = 0; t < trials; t++) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--cold", engine, "--pkg", pkgDir, "--src", srcPath], { encoding: "utf8", cwd: here });
      if (r.status !== 0) throw new Error(`cold ${engine}: ${r.stderr}`);
      runs.push(JSON.parse(r.stdout));
    }
    out[engine] = Object.fromEntries(Object.keys(runs[0]).map((k) => [k, stats(runs.map((r) => r[k]))]));
  }
  return out;
}

async function chromiumRun(cfg) {
  const server = await serve(pkgDir, { "/shared-log/": (path) => sharedLogCached(Number(path.split("/").pop())) });
  const browser = await launchChromium();
  const version = browser.version();
  const open = () => openBenchPage(browser, server);
  try {
    const cold = {};
    for (const engine of [...coldEngines, "parsebox-worker"]) {
      const runs = [];
      for (let t = 0; t < trials; t++) {
        const { context, page, errors } = await open();
        runs.push(await page.evaluate(([e, s]) => window.coldStart(e, s), [engine, SOURCES.own]));
        if (errors.length) throw errors[0];
        await context.close();
      }
      cold[engine] = Object.fromEntries(Object.keys(runs[0]).map((k) => [k, stats(runs.map((r) => r[k]))]));
    }
    say("chromium: cold starts done");
    if (coldOnly) return { version, cold };
    const memoryPerParser = {};
    for (const engine of ["parsebox", "quickjs", "native"]) {
      const { context, page, errors } = await open();
      memoryPerParser[engine] = await page.evaluate(([e, s]) => window.memoryRun(e, s), [engine, SOURCES.own]);
      if (errors.length) throw errors[0];
      await context.close();
    }
    const { context, page, errors } = await open();
    page.on("console", (m) => {
      if (m.type() === "log") say(`chromium: ${m.text()}`);
    });
    const out = await page.evaluate((c) => window.runSuite(c), cfg);
    if (errors.length) throw errors[0];
    await context.close();
    return { version, cold, memoryPerParser, ...out };
  } finally {
    await browser.close();
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (n, d = 0) => (n === null || n === undefined || Number.isNaN(n) ? "–" : n.toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }));
const kb = (n) => `${fmt(n / 1024, 0)} KB`;

function report(res) {
  const L = [];
  const envs = ["node", "chromium"].filter((e) => res[e]);
  L.push(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), load average (1 min) ${loads.map((l) => `${l.when} ${l.load1.toFixed(2)}`).join(", ")}; Node ${process.version}${res.chromium ? `, Chromium ${res.chromium.version}` : ""}; ${trials} trials (baseline live runs: ${baselineTrials}).`);
  L.push("");
  L.push("Per-line throughput (lines/s, min / median of trials; ratio = parsebox ÷ other, medians):");
  L.push("");
  L.push("| workload | env | parsebox | quickjs-emscripten | native eval | parsebox ÷ quickjs | parsebox ÷ native |");
  L.push("|---|---|---|---|---|---|---|");
  for (const env of envs) {
    for (const [w, r] of Object.entries(res[env].throughput)) {
      const t = r.linesPerSec;
      const cell = (e) => `${fmt(t[e].min)} / ${fmt(t[e].median)}`;
      L.push(`| ${w} | ${env} | ${cell("parsebox")} | ${cell("quickjs")} | ${cell("native")} | ${fmt(t.parsebox.median / t.quickjs.median, 2)}× | ${fmt(t.parsebox.median / t.native.median, 3)}× |`);
    }
  }
  L.push("");
  L.push("Per-line latency while streaming (ms per parseLine call; median over trials of each trial's p50 / p99 / max):");
  L.push("");
  L.push("| workload | env | parsebox p50 / p99 / max | quickjs p50 / p99 / max | native p50 / p99 / max |");
  L.push("|---|---|---|---|---|");
  for (const env of envs) {
    for (const [w, r] of Object.entries(res[env].latency)) {
      const cell = (e) => `${fmt(r[e].p50.median, 3)} / ${fmt(r[e].p99.median, 3)} / ${fmt(r[e].max.median, 2)}`;
      L.push(`| ${w} | ${env} | ${cell("parsebox")} | ${cell("quickjs")} | ${cell("native")} |`);
    }
  }
  L.push("");
  L.push("Live run (hermes-style log in ~4 KB stdout chunks; total main-thread ms to keep the transcript current, min / median; per-update p99 and max, medians):");
  L.push("");
  L.push("| run | env | updates | parsebox TranscriptBuilder total | p99 / max per update | re-parse baseline total | p99 / max per update | baseline ÷ parsebox |");
  L.push("|---|---|---|---|---|---|---|---|");
  for (const env of envs) {
    for (const [w, r] of Object.entries(res[env].live)) {
      L.push(`| ${w} | ${env} | ${fmt(r.updates)} | ${fmt(r.parsebox.totalMs.min)} / ${fmt(r.parsebox.totalMs.median)} ms | ${fmt(r.parsebox.updateP99Ms.median, 2)} / ${fmt(r.parsebox.updateMaxMs.median, 1)} ms | ${fmt(r.baseline.totalMs.min)} / ${fmt(r.baseline.totalMs.median)} ms | ${fmt(r.baseline.updateP99Ms.median, 1)} / ${fmt(r.baseline.updateMaxMs.median, 1)} ms | ${fmt(r.baseline.totalMs.median / r.parsebox.totalMs.median, 1)}× |`);
    }
  }
  L.push("");
  L.push("Cold start (ms, min / median over fresh processes / fresh browser contexts): engine load = module import + wasm compile + instantiate (parsebox: the core); first entry = … + registry + one generic line; engine ready = parsebox's engine module compiled and its code warmed in a Worker (`engineReady()`; in Node a worker thread, after initSync compiled both modules); source → ready = compile the hermes parser, after engine ready (parsebox: registerSource; quickjs: context + eval + factory; native: import); → first entry = … + the first parsed line:");
  L.push("");
  L.push("| engine | env | engine load | init → first generic entry | engine ready | source → ready | source → first parser entry |");
  L.push("|---|---|---|---|---|---|---|");
  for (const env of envs) {
    const c = env === "node" ? res.node.cold : res.chromium.cold;
    for (const e of ["parsebox", "quickjs", "native"]) {
      const cell = (s) => (s ? `${fmt(s.min, 1)} / ${fmt(s.median, 1)}` : "–");
      L.push(`| ${e} | ${env} | ${e === "native" ? "–" : cell(c[e].initMs)} | ${cell(c[e].firstEntryMs)} | ${cell(c[e].engineReadyMs)} | ${cell(c[e].sourceReadyMs)} | ${cell(c[e].sourceFirstEntryMs)} |`);
    }
  }
  const w = res.chromium?.cold["parsebox-worker"];
  if (w) {
    L.push("");
    L.push(`The browser's default host (each parser in a Worker of its own), chromium: source → ready (registerSource until idle(), the parser ready) ${fmt(w.sourceReadyMs.min, 1)} / ${fmt(w.sourceReadyMs.median, 1)} ms; registerSource on the page's thread ${fmt(w.registerSyncMs.min, 1)} / ${fmt(w.registerSyncMs.median, 1)} ms (max ${fmt(w.registerSyncMs.max, 1)}).`);
  }
  L.push("");
  const s = res.sizes;
  L.push("Size (bytes on the wire; gzip -9, brotli q11) and memory per registered parser (one parser loaded + one line answered; in a fresh process / page, one parser first, then the growth over 16 more ÷ 16: parsebox = wasm memory growth, quickjs = what its runtimes allocated (QuickJS memory_used_size), native = JS heap growth after gc):");
  L.push("");
  L.push("| engine | wasm raw / gzip / brotli | JS glue raw / gzip / brotli | memory per parser (node) | memory per parser (chromium) |");
  L.push("|---|---|---|---|---|");
  const z = (x) => `${kb(x.raw)} / ${kb(x.gzip)} / ${kb(x.brotli)}`;
  const mem = (env, e) => (res[env]?.memoryPerParser?.[e] === undefined ? "–" : kb(res[env].memoryPerParser[e]));
  L.push(`| parsebox | ${z(s.parsebox.wasm)} | ${z(s.parsebox.js)} | ${mem("node", "parsebox")} | ${mem("chromium", "parsebox")} |`);
  L.push(`| quickjs-emscripten | ${z(s.quickjs.wasm)} | ${z(s.quickjs.js)} | ${mem("node", "quickjs")} | ${mem("chromium", "quickjs")} |`);
  L.push(`| native eval | – | – | ${mem("node", "native")} | ${mem("chromium", "native")} |`);
  L.push("");
  const dis = [];
  for (const env of envs) for (const [w, a] of Object.entries(res[env].agreement)) for (const [e, v] of Object.entries(a)) if (v !== "same") dis.push(`${env} ${w} ${e}: ${v}`);
  L.push(dis.length ? `Output vs native eval, first 2,000 lines of each workload (anything not listed: identical JSON):\n${dis.map((d) => `- ${d}`).join("\n")}` : "All three engines returned identical entries (JSON) for the first 2,000 lines of every workload.");
  if (!SOURCES.shared) L.push(`The shared yardstick (${SHARED}/ui-parser.js + gen-log.js) was absent: skipped.`);
  return L.join("\n");
}

const res = { pkg: pkgDir, pkgMtime: statSync(join(pkgDir, "parsebox_wasm_bg.wasm")).mtime.toISOString(), started: new Date().toISOString(), trials, baselineTrials };
noteLoad("start");
res.sizes = sizeReport();
const cfg = config();
if (only !== "chromium") {
  say("node: cold starts");
  const srcPath = join(here, "hermes-parser.js");
  const cold = coldNodeTrials(srcPath);
  if (coldOnly) res.node = { cold };
  else res.node = { cold, memoryPerParser: memoryNodeAll(srcPath), ...(await nodeSuite(cfg)) };
  noteLoad("after node");
}
if (only !== "node") {
  res.chromium = await chromiumRun(cfg);
  noteLoad("end");
}
res.loads = loads;
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(res, null, 1));
if (coldOnly) console.log(JSON.stringify({ node: res.node?.cold.parsebox, chromium: res.chromium?.cold.parsebox, chromiumWorker: res.chromium?.cold["parsebox-worker"] }));
else console.log(report(res));
