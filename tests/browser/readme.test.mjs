// The README's JavaScript example, run as written in headless Chromium against the built pkg/:
// the first lines render at once through the generic parser, then the adapter's parser (served
// at GET /api/adapters/hermes_local/ui-parser.js) becomes ready and the transcript is rebuilt.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve, launch, newPage } from "./harness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
const example = readme.match(/```js\n([\s\S]*?)```/)[1];
const parser = await readFile(new URL("fixtures/hermes-ui-parser.js", import.meta.url), "utf8");

const server = await serve(repo, {
  "/readme-example.js": () => ({ body: example }),
  "/api/adapters/hermes_local/ui-parser.js": () => ({ body: parser }),
  "/readme.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="importmap">{"imports":{"parsebox":"/pkg/index.js"}}</script>
<script type="module">
  window.rendered = [];
  window.renders = 0;
  window.socket = {};
  window.render = (entries) => { window.rendered = entries; window.renders++; };
  window.renderFrom = (from, entries) => { window.rendered.length = from; window.rendered.push(...entries); };
  const logs = [];
  const log = console.log; console.log = (...a) => { logs.push(a.join(" ")); log(...a); };
  window.logs = logs;
  await import("/readme-example.js");
  window.exampleDone = true;
</script>`,
  }),
});
const browser = await launch();
after(async () => {
  await browser.close();
  await server.close();
});

test("the README example runs as written and lines become structured once the parser is ready", async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${server.url}/readme.html`);
  await page.waitForFunction(() => window.exampleDone === true, null, { timeout: 30_000 });
  // The example's own parseLine answered at once, before the parser loaded.
  assert.deepEqual(await page.evaluate(() => window.logs), ["stdout loading"]);
  // Stream a run: the first lines render at once (generic).
  await page.evaluate(() => {
    const send = (ts, stream, chunk) => window.socket.onmessage({ data: JSON.stringify({ ts, stream, chunk }) });
    send("2026-01-01T00:00:01Z", "stdout", "[hermes] Session resumed: abc123\n┊ $ ls /home/user/project\n");
    send("2026-01-01T00:00:02Z", "stdout", "┊ [done] $ ls /home/user/project — /src /README.md  0.3s\nThe project is a CLI tool.\n");
  });
  await page.waitForFunction(() => window.renders > 0, null, { timeout: 30_000 });
  // The parser's answers arrive from its Worker and replace the generic entries in place.
  const want = ["init", "tool_call", "tool_result", "assistant"];
  await page
    .waitForFunction((w) => window.rendered.map((e) => e.kind).join() === w.join(), want, { timeout: 30_000 })
    .catch(() => {});
  const kinds = await page.evaluate(() => window.rendered.map((e) => e.kind));
  assert.deepEqual(kinds, want);
  const [call, result] = await page.evaluate(() => window.rendered.slice(1, 3));
  assert.equal(call.toolUseId, result.toolUseId);
  assert.deepEqual(errors, []);
});
