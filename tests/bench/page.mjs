// The Chromium side of the benchmark: bench.html loads this; node.mjs drives it through
// playwright. The package under test is served at /pkg/ (a private copy), quickjs-emscripten
// from /bench/node_modules through bench.html's import map.
import { corpusRows, engineBytes, makeEngines, memoryRun, newRegistry, quickjsUsed, suite } from "./core.mjs";
import { claudeLog, hermesLog } from "./gen-log.mjs";

async function loadText(spec) {
  if (spec.gen === "hermes") return hermesLog(spec.n);
  if (spec.gen === "claude") return claudeLog(spec.n);
  const r = await fetch(spec.url);
  if (!r.ok) throw new Error(`${spec.url}: ${r.status}`);
  return r.text();
}

async function importSource(src) {
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  try {
    return await import(url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

const gc = typeof globalThis.gc === "function" ? () => globalThis.gc() : null;

window.runSuite = async (cfg) => {
  const parsebox = await import("/pkg/index.js");
  await parsebox.default();
  const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
  const variant = (await import("@jitl/quickjs-wasmfile-release-sync")).default;
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  const deps = {
    parsebox,
    quickjs,
    importSource,
    loadText,
    gc,
  };
  const log = [];
  const out = await suite(deps, cfg, (m) => {
    log.push(m);
    console.log(m);
  });
  return { ...out, log, crossOriginIsolated: globalThis.crossOriginIsolated };
};

/** corpus.mjs' rows in this page: `items` are `{ name, source, lines }`. */
window.runCorpus = async (items, trials) => {
  const parsebox = await import("/pkg/index.js");
  await parsebox.default();
  const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
  const quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);
  return corpusRows(makeEngines({ parsebox, quickjs, importSource }), items, trials, (m) => console.log(m));
};

const LINE = "┊ $ ls /home/user/project";
const TS = "2026-01-01T00:00:00.000Z";

/** One cold start in a fresh page: module load → first entry, then source → parser ready. */
window.coldStart = async (engine, src) => {
  const now = () => performance.now();
  const t0 = now();
  if (engine === "parsebox") {
    const pb = await import("/pkg/index.js");
    await pb.default();
    const tInit = now();
    const registry = newRegistry(pb, { loadSource: null });
    const first = registry.parseLine("generic", LINE, TS);
    const tFirst = now();
    // init() resolves with the core alone; the engine module compiles in the background, then
    // warms its code in a Worker (engineReady). Wait for both, so "source → ready" is the
    // registration's own time; engineReadyMs says when the page got there.
    await pb.engineReady();
    const tEngine = now();
    const status = registry.registerSource("bench", src);
    const tReady = now();
    const entry = registry.parseLine("bench", LINE, TS);
    const tEntry = now();
    if (status.state !== "ready" || first[0].kind !== "stdout" || entry[0].kind !== "tool_call") throw new Error(`cold parsebox: ${JSON.stringify([status, first, entry])}`);
    return { initMs: tInit - t0, firstEntryMs: tFirst - t0, engineReadyMs: tEngine - t0, sourceReadyMs: tReady - tEngine, sourceFirstEntryMs: tEntry - tEngine };
  }
  if (engine === "parsebox-worker") {
    // The browser's default host: the parser loads in a Worker of its own. "source → ready" is
    // registerSource until idle() with the parser ready; registerSyncMs is the page's part.
    const pb = await import("/pkg/index.js");
    await pb.default();
    const tInit = now();
    const registry = new pb.ParserRegistry({ loadSource: null });
    const first = registry.parseLine("generic", LINE, TS);
    const tFirst = now();
    await pb.engineReady();
    const tEngine = now();
    registry.registerSource("bench", src);
    const tSync = now();
    await registry.idle();
    const tReady = now();
    const status = registry.status("bench");
    if (status.state !== "ready" || status.host !== "worker" || first[0].kind !== "stdout") throw new Error(`cold parsebox-worker: ${JSON.stringify([status, first])}`);
    return { initMs: tInit - t0, firstEntryMs: tFirst - t0, engineReadyMs: tEngine - t0, registerSyncMs: tSync - tEngine, sourceReadyMs: tReady - tEngine };
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
    if (entry[0].kind !== "tool_call") throw new Error(`cold quickjs: ${JSON.stringify(entry)}`);
    return { initMs: tInit - t0, firstEntryMs: null, sourceReadyMs: tReady - tFirst, sourceFirstEntryMs: tEntry - tFirst };
  }
  const tFirst = now();
  const ns = await importSource(src);
  const p = typeof ns.createStdoutParser === "function" ? ns.createStdoutParser() : { parseLine: ns.parseStdoutLine };
  const tReady = now();
  const entry = p.parseLine(LINE, TS);
  const tEntry = now();
  if (entry[0].kind !== "tool_call") throw new Error(`cold native: ${JSON.stringify(entry)}`);
  return { initMs: 0, firstEntryMs: null, sourceReadyMs: tReady - tFirst, sourceFirstEntryMs: tEntry - tFirst };
};

/** Memory per registered parser in this fresh page (see core.mjs memoryRun). */
window.memoryRun = async (engine, src) => {
  const deps = { importSource };
  let probe;
  if (engine === "parsebox") {
    deps.parsebox = await import("/pkg/index.js");
    await deps.parsebox.default();
    const wasm = (await import("/pkg/parsebox_wasm.js")).initSync({}); // the instance init() made
    probe = () => wasm.memory.buffer.byteLength + engineBytes();
  } else if (engine === "quickjs") {
    const { newQuickJSWASMModuleFromVariant } = await import("quickjs-emscripten-core");
    deps.quickjs = await newQuickJSWASMModuleFromVariant((await import("@jitl/quickjs-wasmfile-release-sync")).default);
    probe = quickjsUsed;
  } else {
    probe = () => performance.memory.usedJSHeapSize;
  }
  const e = makeEngines(deps).find((x) => x.name === engine);
  return memoryRun(e, src, probe, 16, gc);
};

window.benchReady = true;
