// Benchmark (not a test): the page thread's time in TranscriptBuilder.push, per engine
// (PARSEBOX_BROWSER), with no adapter parser (the generic one, all in the core), then with a simple parser in a Worker (the default host): 10,000
// ~300-byte lines in 100 pushes, three rounds in one page (a later round shows what the
// engine's wasm tiers gave once warm). With the parser, each round also says how many lines
// the parser did not answer (lost: shown generic or failed) and the Worker deadline's kills.
//
//   PARSEBOX_BROWSER=webkit node tests/browser/bench-push-engines.mjs [--lines 10000] [--rounds 3]
import { fileURLToPath } from "node:url";
import { BROWSER, serve, openReady } from "./harness.mjs";

const i = process.argv.indexOf("--lines");
const lines = i === -1 ? 10_000 : Number(process.argv[i + 1]);
const r = process.argv.indexOf("--rounds");
const rounds = r === -1 ? 3 : Number(process.argv[r + 1]);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = `<!doctype html><script type="module">
import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
await init();
const PARSER = "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line.slice(0, 40) }]; }";
window.round = async (lines, withParser) => {
  const registry = new ParserRegistry({ loadSource: null });
  const type = withParser ? "simple_local" : "none_local";
  if (withParser) {
    registry.registerSource(type, PARSER);
    await registry.idle();
  }
  const builder = new TranscriptBuilder(registry, type);
  const word = "the build reads its config then checks every module ";
  const chunkLines = lines / 100;
  const times = [];
  for (let p = 0; p < 100; p++) {
    let chunk = "";
    for (let k = 0; k < chunkLines; k++) chunk += "line " + (p * chunkLines + k) + " " + word.repeat(5) + "\\n";
    const t0 = performance.now();
    builder.push({ stream: "stdout", chunk, ts: new Date(Date.UTC(2026, 0, 1) + p * 1000).toISOString() });
    times.push(performance.now() - t0);
  }
  const t1 = performance.now();
  await registry.idle();
  const settleMs = Math.round(performance.now() - t1);
  const entries = builder.entries().length;
  const kinds = new Set(builder.entries().map((e) => e.kind));
  const answered = builder.entries().filter((e) => e.kind === "assistant").length;
  const lost = withParser ? lines - answered : undefined;
  const kills = withParser ? registry.diagnostics(type).host.deadlineKills : undefined;
  builder.dispose();
  registry.dispose();
  times.sort((a, b) => a - b);
  return { totalMs: Math.round(times.reduce((a, b) => a + b, 0)), medianMs: times[50], maxMs: times[99], settleMs, entries, kinds: [...kinds], lost, kills };
};
window.ready = true;
</script>`;
const server = await serve(repo, { "/bench.html": () => ({ type: "text/html; charset=utf-8", body: PAGE }) });
const { browser, page } = await openReady(server, "/bench.html");
const out = [];
for (const withParser of [false, true]) for (let k = 0; k < rounds; k++) out.push({ withParser, ...(await page.evaluate(([n, w]) => window.round(n, w), [lines, withParser])) });
console.log(JSON.stringify({ browser: BROWSER, lines, rounds: out }));
await browser.close();
await server.close();
