// The two wasm modules are compiled as they download (`WebAssembly.compileStreaming`) when the
// server says they are `application/wasm`, which also lets a browser keep their compiled code
// with the cached response (issue 55: start-up); served as anything else, they are read whole
// and compiled as before, and the page works the same. Counted: which compile each module took.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve, launch, newPage } from "./harness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkgFile = (name) => readFile(new URL(`../../pkg/${name}`, import.meta.url));

/** A page that counts the compiles, then runs `init(args)`, `engineReady()` and a parse. */
const page = (initArgs) => `<!doctype html><script type="importmap">{"imports":{"parsebox":"/pkg/index.js"}}</script>
<script type="module">
  window.compiles = { streaming: 0, bytes: 0 };
  const { compile, compileStreaming } = WebAssembly;
  WebAssembly.compileStreaming = (r) => (window.compiles.streaming++, compileStreaming.call(WebAssembly, r));
  WebAssembly.compile = (b) => (window.compiles.bytes++, compile.call(WebAssembly, b));
  const { default: init, engineReady, ParserRegistry } = await import("parsebox");
  await init(${initArgs});
  await engineReady();
  const registry = new ParserRegistry({ host: "inline", loadSource: async () => "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }" });
  registry.parseLine("t", "warm", "2026-01-01T00:00:00Z");
  await registry.idle();
  window.kind = registry.parseLine("t", "hello", "2026-01-01T00:00:01Z")[0].kind;
  registry.dispose();
  window.done = true;
</script>`;

const server = await serve(repo, {
  "/streaming.html": () => ({ type: "text/html", body: page("") }),
  "/octet.html": () => ({ type: "text/html", body: page(`"/octet/core.wasm", "/octet/engine.wasm"`) }),
  "/octet/core.wasm": async () => ({ type: "application/octet-stream", body: await pkgFile("parsebox_wasm_bg.wasm") }),
  "/octet/engine.wasm": async () => ({ type: "application/octet-stream", body: await pkgFile("parsebox_engine.wasm") }),
});
const browser = await launch();
after(async () => {
  await browser.close();
  await server.close();
});

/** What a page counted, once its parser answered. */
async function run(path) {
  const errors = [];
  const p = await newPage(browser, errors);
  await p.goto(`${server.url}${path}`);
  await p.waitForFunction(() => window.done === true, null, { timeout: 60_000 });
  const out = await p.evaluate(() => ({ compiles: window.compiles, kind: window.kind }));
  await p.close();
  assert.deepEqual(errors, []);
  return out;
}

test("served as application/wasm, both modules are compiled as they download", async () => {
  const { compiles, kind } = await run("/streaming.html");
  assert.deepEqual(compiles, { streaming: 2, bytes: 0 });
  assert.equal(kind, "assistant", "the parser answers");
});

test("served as another type, both modules are read whole and compiled, and the page works the same", async () => {
  const { compiles, kind } = await run("/octet.html");
  assert.deepEqual(compiles, { streaming: 0, bytes: 2 });
  assert.equal(kind, "assistant", "the parser answers");
});
