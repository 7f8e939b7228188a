// Benchmark (not a test): one row per browser engine (PARSEBOX_BROWSER) of what a page pays,
// each round in a fresh browser (no compiled code carried over):
//   - core and engine module compile times (WebAssembly.compile of the fetched bytes, in the
//     page, before the package is loaded);
//   - source → ready: registerSource to `ready`, for the page's first parser (the engine's
//     warm-up included) and for a second one;
//   - the page thread's time in TranscriptBuilder.push per 1,000 lines: 10,000 ~300-byte lines
//     in 100 pushes, with no adapter parser (the core alone) and with a simple parser in a
//     Worker (the default host);
//   - the Worker's throughput over those 10,000 lines (first push to idle()), the lines it did
//     not answer (lost: shown generic or failed), and its deadline kills;
//   - the page thread's longest task meanwhile (long-task entries in Chromium, timer gaps
//     elsewhere, as the tests measure it).
// `--pkg DIR` measures another build; `--before DIR` one more in the same rounds, alternating
// which goes first, so two builds compare side by side.
//
//   PARSEBOX_BROWSER=webkit node tests/browser/bench-engines.mjs [--rounds 3] [--before DIR] [--pkg DIR]
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { BROWSER, serve, openReady } from "./harness.mjs";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const rounds = Number(arg("rounds") ?? 3);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = resolve(arg("pkg") ?? `${repo}/pkg`);
const pkgs = arg("before") === undefined ? [pkg] : [resolve(arg("before")), pkg];

// Served from / so that --pkg may be any directory.
const PAGE = `<!doctype html><script type="module">
import { watchTasks } from "${resolve(repo, "tests/browser/pages/watch-tasks.js")}";
const pkg = new URLSearchParams(location.search).get("pkg");
const bytes = async (f) => (await fetch(pkg + "/" + f)).arrayBuffer();
const compileMs = async (f) => { const b = await bytes(f); const t = performance.now(); await WebAssembly.compile(b); return performance.now() - t; };
const PARSER = "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line.slice(0, 40) }]; }";
const push10k = async (registry, type) => {
  const builder = new TranscriptBuilder(registry, type);
  const word = "the build reads its config then checks every module ";
  let pushMs = 0;
  const stop = watchTasks({ atLeastMs: 0 });
  const t0 = performance.now();
  for (let p = 0; p < 100; p++) {
    let chunk = "";
    for (let k = 0; k < 100; k++) chunk += "line " + (p * 100 + k) + " " + word.repeat(5) + "\\n";
    const t = performance.now();
    builder.push({ stream: "stdout", chunk, ts: new Date(Date.UTC(2026, 0, 1) + p * 1000).toISOString() });
    pushMs += performance.now() - t;
    await new Promise((r) => setTimeout(r, 0));
  }
  await registry.idle();
  const totalMs = performance.now() - t0;
  const longestTask = Math.max(0, ...stop());
  const entries = builder.entries();
  builder.dispose();
  return { pushMs, totalMs, longestTask, entries };
};
let TranscriptBuilder;
window.measure = async () => {
  const coreCompileMs = await compileMs("parsebox_wasm_bg.wasm");
  const engineCompileMs = await compileMs("parsebox_engine.wasm");
  const mod = await import(pkg + "/index.js");
  TranscriptBuilder = mod.TranscriptBuilder;
  await mod.default();
  const registry = new mod.ParserRegistry({ loadSource: null });
  let t = performance.now();
  registry.registerSource("simple", PARSER);
  await registry.idle();
  const firstReadyMs = performance.now() - t;
  t = performance.now();
  registry.registerSource("second", PARSER);
  await registry.idle();
  const secondReadyMs = performance.now() - t;
  const plain = await push10k(registry, "none");
  const parsed = await push10k(registry, "simple");
  const d = registry.diagnostics("simple");
  const lost = parsed.entries.filter((e) => e.kind !== "assistant").length;
  registry.dispose();
  return {
    coreCompileMs, engineCompileMs, firstReadyMs, secondReadyMs,
    plainPushMsPer1k: plain.pushMs / 10, workerPushMsPer1k: parsed.pushMs / 10,
    workerLinesPerS: 10000 / (parsed.totalMs / 1000),
    longestTaskMs: Math.max(plain.longestTask, parsed.longestTask),
    lost, kills: d.host.deadlineKills,
  };
};
window.ready = true;
</script>`;

const server = await serve("/", { "/bench.html": () => ({ type: "text/html; charset=utf-8", body: PAGE }) });
const rows = new Map(pkgs.map((p) => [p, []]));
for (let r = 0; r < rounds; r++) {
  for (const p of r % 2 ? [...pkgs].reverse() : pkgs) {
    const { browser, page } = await openReady(server, `/bench.html?pkg=${encodeURIComponent(p)}`);
    let row;
    try {
      row = await page.evaluate(() => window.measure());
    } catch (e) {
      console.log(JSON.stringify({ browser: BROWSER, pkg: p, failed: String(e.message ?? e).split("\n")[0] }));
      continue;
    } finally {
      await browser.close().catch(() => {});
    }
    rows.get(p).push(row);
    console.log(JSON.stringify({ browser: BROWSER, pkg: p, ...Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Math.round(v * 10) / 10])) }));
  }
}
const fmt = (v) => (v >= 100 ? Math.round(v) : Math.round(v * 10) / 10);
console.log(`\n| ${BROWSER}, median of ${rounds} (range) | core compile ms | engine compile ms | first parser ready ms | second parser ready ms | push ms per 1,000 lines, no parser | push ms per 1,000 lines, Worker parser | Worker lines/s | longest task ms | lost lines | deadline kills |`);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const [p, rs] of rows) {
  if (rs.length === 0) continue;
  const cell = (k) => {
    // Chromium's long-task entries start at 50 ms: 0 there is "none of 50 ms or more".
    if (k === "longestTaskMs" && rs.every((r) => r[k] === 0)) return "< 50";
    const v = rs.map((r) => r[k]).sort((a, b) => a - b);
    const mid = v[Math.floor(v.length / 2)];
    return v.length > 1 ? `${fmt(mid)} (${fmt(v[0])}–${fmt(v.at(-1))})` : `${fmt(mid)}`;
  };
  const sum = (k) => rs.reduce((a, r) => a + r[k], 0);
  console.log(`| ${p} | ${cell("coreCompileMs")} | ${cell("engineCompileMs")} | ${cell("firstReadyMs")} | ${cell("secondReadyMs")} | ${cell("plainPushMsPer1k")} | ${cell("workerPushMsPer1k")} | ${cell("workerLinesPerS")} | ${cell("longestTaskMs")} | ${sum("lost")} | ${sum("kills")} |`);
}
await server.close();
