// Benchmark (not a test): what a parser stuck in `while (true) {}` on one line costs the page,
// per engine (PARSEBOX_BROWSER): the largest gap between animation frames while the Worker host
// stops it at the deadline and starts another, and the page-thread time of the Worker calls
// that involves (new Worker, postMessage, terminate), timed by wrapping them.
//
//   PARSEBOX_BROWSER=webkit node tests/browser/bench-hang-engines.mjs [--rounds 3]
import { fileURLToPath } from "node:url";
import { BROWSER, serve, openReady } from "./harness.mjs";

const i = process.argv.indexOf("--rounds");
const rounds = i === -1 ? 3 : Number(process.argv[i + 1]);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = `<!doctype html><script type="module">
const calls = {};
const record = (name, t0) => {
  const ms = performance.now() - t0;
  const c = (calls[name] ??= { n: 0, totalMs: 0, maxMs: 0 });
  c.n++; c.totalMs += ms; c.maxMs = Math.max(c.maxMs, ms);
};
const time = (name, fn) => function (...a) {
  const t0 = performance.now();
  try { return fn.apply(this, a); } finally { record(name, t0); }
};
const RealWorker = Worker;
window.Worker = class extends RealWorker {
  constructor(...a) { const t0 = performance.now(); super(...a); record("newWorker", t0); }
};
RealWorker.prototype.postMessage = time("postMessage", RealWorker.prototype.postMessage);
RealWorker.prototype.terminate = time("terminate", RealWorker.prototype.terminate);
const { default: init, ParserRegistry, TranscriptBuilder } = await import("/pkg/index.js");
await init();
const PARSER = "export function parseStdoutLine(line, ts) { if (line.includes('HANG')) { while (true) {} } return [{ kind: 'assistant', ts, text: line }]; }";
window.round = async () => {
  for (const k of Object.keys(calls)) delete calls[k];
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerSource("hang_local", PARSER);
  await registry.idle();
  const builder = new TranscriptBuilder(registry, "hang_local");
  let gap = 0, last = performance.now(), stop = false;
  const tick = (t) => { gap = Math.max(gap, t - last); last = t; if (!stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const t0 = performance.now();
  for (let k = 0; k < 40; k++) builder.push({ stream: "stdout", chunk: (k === 10 ? "HANG here" : "line " + k) + "\\n", ts: new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString() });
  await registry.idle();
  const ms = performance.now() - t0;
  stop = true;
  const kinds = builder.entries().map((e) => e.kind);
  const d = registry.diagnostics("hang_local");
  builder.dispose();
  registry.dispose();
  const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { n: v.n, totalMs: Math.round(v.totalMs), maxMs: Math.round(v.maxMs) }]));
  return { toIdleMs: Math.round(ms), largestFrameGapMs: Math.round(gap), parsed: kinds.filter((k) => k === "assistant").length, other: kinds.filter((k) => k !== "assistant"), deadlineKills: d.deadlineKills, respawns: d.respawns, calls: round(calls) };
};
window.ready = true;
</script>`;
const server = await serve(repo, { "/bench.html": () => ({ type: "text/html; charset=utf-8", body: PAGE }) });
const { browser, page } = await openReady(server, "/bench.html");
for (let r = 0; r < rounds; r++) console.log(JSON.stringify({ browser: BROWSER, ...(await page.evaluate(() => window.round())) }));
await browser.close();
await server.close();
