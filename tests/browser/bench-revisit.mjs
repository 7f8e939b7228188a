// Benchmark (not a test): how long a page waits for the engine module on its first visit and
// on a later one, in Chromium with a profile on disk (its HTTP cache, and the code cache V8
// keeps beside it for wasm compiled as it downloads). Each round: a fresh profile; visit 1
// (nothing cached), a pause for V8 to optimise the module's code and write its cache, visit 2.
// A visit's figures, from the page's script start, on the page's clock: the core ready
// (`init()`), the engine ready (`engineReady()`: compiled and warmed), and 200 lines answered
// by a parser in this thread (its engine's code compiled or taken from the cache). The server sends the modules as application/wasm with
// `Cache-Control: max-age=3600`, as a CDN would. `--pkg DIR` measures another build, and
// `--before DIR` one more in the same rounds, alternating which goes first, so two builds
// compare side by side.
//
//   node tests/browser/bench-revisit.mjs [--rounds 5] [--pause-ms 8000] [--pkg DIR] [--before DIR]
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const rounds = Number(arg("rounds") ?? 5);
const pauseMs = Number(arg("pause-ms") ?? 8000);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = resolve(arg("pkg") ?? `${repo}/pkg`);
const pkgs = arg("before") === undefined ? [pkg] : [resolve(arg("before")), pkg];

/** A small parser, so the engine's own code is what the first lines cost. */
const PARSER = `export function parseStdoutLine(line, ts) { const v = JSON.parse(line); return [{ kind: "assistant", ts, text: String(v.text ?? line) }]; }`;
const TYPES = { ".js": "text/javascript; charset=utf-8", ".wasm": "application/wasm", ".html": "text/html" };
const page = `<!doctype html><script type="importmap">{"imports":{"parsebox":"./index.js"}}</script>
<script type="module">
  const t0 = performance.now();
  const { default: init, engineReady, ParserRegistry } = await import("parsebox");
  await init();
  const core = performance.now() - t0;
  await engineReady();
  const engine = performance.now() - t0;
  // A parser in this thread (inline): its engine instance's code runs here, compiled or cached.
  const registry = new ParserRegistry({ host: "inline", loadSource: async () => ${JSON.stringify(PARSER)} });
  registry.parseLine("t", "{}", "2026-01-01T00:00:00Z");
  await registry.idle();
  for (let i = 0; i < 200; i++) registry.parseLine("t", JSON.stringify({ type: "assistant", text: "line " + i }), "2026-01-01T00:00:01Z");
  const lines = performance.now() - t0;
  registry.dispose();
  window.figures = { core, engine, lines };
</script>`;

/** Serves `dir` (a package build) and the page at /b<i>/, cacheable. */
function serve() {
  const server = http.createServer(async (req, res) => {
    const m = /^\/b(\d+)\/(.*)$/.exec(new URL(req.url, "http://x").pathname);
    const dir = m && pkgs[Number(m[1])];
    const file = m?.[2] || "page.html";
    try {
      const body = file === "page.html" ? page : await readFile(join(dir, file));
      const type = TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";
      res.writeHead(200, { "content-type": type, "cache-control": "max-age=3600" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(server)));
}

const server = await serve();
const base = `http://127.0.0.1:${server.address().port}`;
const results = pkgs.map(() => ({ first: [], later: [] }));

/** One visit of build `i` in `context`: its figures. */
async function visit(context, i) {
  const p = await context.newPage();
  await p.goto(`${base}/b${i}/page.html`);
  await p.waitForFunction(() => window.figures, null, { timeout: 60_000 });
  const f = await p.evaluate(() => window.figures);
  await p.close();
  return f;
}

for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...pkgs.keys()].reverse() : [...pkgs.keys()];
  for (const i of order) {
    const profile = mkdtempSync(join(tmpdir(), "parsebox-revisit-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    results[i].first.push(await visit(context, i));
    await new Promise((r) => setTimeout(r, pauseMs));
    results[i].later.push(await visit(context, i));
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
server.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [i, dir] of pkgs.entries()) {
  const r = results[i];
  const row = (visits) =>
    ["core", "engine", "lines"].map((k) => `${k} ${median(visits.map((v) => v[k])).toFixed(0)} ms`).join(", ");
  console.log(`${dir}\n  first visit: ${row(r.first)}\n  later visit: ${row(r.later)}`);
}
