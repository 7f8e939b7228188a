// A fresh Vite app installs the packed tarball, builds with no special configuration, and runs
// in headless Chromium: lines are generic at first and structured once the parser is ready.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch, newPage } from "./harness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const parser = readFileSync(new URL("fixtures/hermes-ui-parser.js", import.meta.url), "utf8");
const app = mkdtempSync(join(tmpdir(), "parsebox-consumer-"));
let browser;
let server;

const npm = (args, cwd) => execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

before(() => {
  npm(["pack", join(repo, "pkg"), "--pack-destination", app], repo);
  const tarball = readdirSync(app).find((f) => f.endsWith(".tgz"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", scripts: { build: "vite build" } }, null, 2));
  writeFileSync(join(app, "index.html"), `<!doctype html><html><body><ul id="log"></ul><script type="module" src="/main.js"></script></body></html>`);
  writeFileSync(
    join(app, "main.js"),
    `import init, { ParserRegistry, TranscriptBuilder } from "parsebox";

async function main() {
  await init();
  const registry = new ParserRegistry();
  const transcript = new TranscriptBuilder(registry, "hermes_local");
  window.first = transcript.push({ ts: "2026-01-01T00:00:01Z", stream: "stdout", chunk: "┊ $ ls /home/user/project\\n┊ [done] $ ls /home/user/project — /src  0.3s\\n" }).entries;
  // The parser runs in a Worker (the browser default): after the rebuild its answers arrive
  // through onUpdate and replace the generic entries.
  registry.onChange((type, status) => {
    if (status.state === "ready") transcript.rebuild();
  });
  transcript.onUpdate(() => {
    const entries = transcript.entries();
    if (entries.every((e) => e.kind !== "stdout")) window.ready = entries;
  });
  window.host = () => registry.status("hermes_local").host;
}
main().catch((e) => { window.failed = String(e); });
`,
  );
  npm(["install", `./${tarball}`, "vite@^7"], app);
  npm(["run", "build"], app);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("a Vite app built against the tarball turns lines into entries once the parser is ready", async () => {
  server = await serve(join(app, "dist"), {
    "/api/adapters/hermes_local/ui-parser.js": () => ({ body: parser }),
  });
  browser = await launch();
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(server.url + "/");
  await page.waitForFunction(() => window.ready || window.failed, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.failed), undefined);
  assert.deepEqual(await page.evaluate(() => window.first.map((e) => e.kind)), ["stdout", "stdout"]);
  assert.deepEqual(await page.evaluate(() => window.ready.map((e) => e.kind)), ["tool_call", "tool_result"]);
  assert.equal(await page.evaluate(() => window.host()), "worker", "parsers run in a Worker by default in the browser");
  assert.deepEqual(errors, []);
});
