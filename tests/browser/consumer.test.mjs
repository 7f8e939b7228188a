// A fresh Vite app installs the packed tarball, builds with no special configuration, and runs
// in headless Chromium: lines are generic at first and structured once the parser is ready. A
// React component in the same app follows a live run through parsebox/react's useTranscript.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync } from "node:fs";
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
  writeFileSync(join(app, "index.html"), `<!doctype html><html><body><ul id="log"></ul><div id="live"></div><script type="module" src="/main.js"></script><script type="module" src="/live.js"></script></body></html>`);
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
  writeFileSync(
    join(app, "live.js"),
    `import init, { ParserRegistry } from "parsebox";
import { loadDynamicParser, usePaperclipRegistry } from "parsebox/paperclip";
import { useTranscript } from "parsebox/react";
import { createElement as h, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const PAIRS = 20;
const WINDOW = 10;
window.renders = [];
function Live() {
  const [chunks, setChunks] = useState([]);
  useEffect(() => {
    let i = 0;
    let timer;
    // The run starts once the parser is ready, so every slide of the window is checked.
    loadDynamicParser("hermes_local").then(
      () => {
        timer = setInterval(tick, 50);
      },
      (e) => {
        window.failed = String(e);
      },
    );
    const tick = () => {
      const n = i++;
      setChunks((c) => [...c, { ts: "2026-01-01T00:00:0" + (n % 10) + "Z", stream: "stdout", chunk: "┊ $ ls /p" + n + "\\n┊ [done] $ ls /p" + n + " — /src  0.3s\\n" }]);
      if (i === PAIRS) clearInterval(timer);
    };
    return () => clearInterval(timer);
  }, []);
  // As Paperclip's run view: a window of the last chunks (200 there, 10 here).
  const entries = useTranscript(chunks.slice(-WINDOW), "hermes_local");
  // Which lines of the run (by their index in the run) this render shows parsed.
  const first = 2 * Math.max(0, chunks.length - WINDOW);
  const parsedLines = entries.flatMap((e, i) => (e.kind === "stdout" ? [] : [first + i]));
  window.renders.push({ total: chunks.length, chunks: Math.min(chunks.length, WINDOW), entries: entries.length, parsed: parsedLines.length, first, parsedLines });
  return h("ol", null, entries.map((e, i) => h("li", { key: i, className: e.kind }, e.kind)));
}
init().then(() => {
  usePaperclipRegistry(new ParserRegistry());
  createRoot(document.getElementById("live")).render(h(Live));
});
`,
  );
  npm(["install", `./${tarball}`, "vite@^7", "react@^19", "react-dom@^19"], app);
  npm(["run", "build"], app);
});

after(async () => {
  await browser?.close();
  await server?.close();
  // The app's node_modules (Vite, React) is some 50 MB: every run would leave one.
  rmSync(app, { recursive: true, force: true });
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

test("a React component follows a live window through useTranscript: never blank, parsed lines stay parsed", async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(server.url + "/");
  await page.waitForFunction(() => window.renders.at(-1)?.total === 20 && document.querySelectorAll("#live li").length === 20 && document.querySelectorAll("#live li.stdout").length === 0, null, { timeout: 30_000 });
  const kinds = await page.evaluate(() => [...document.querySelectorAll("#live li")].map((li) => li.className));
  assert.deepEqual(kinds, Array.from({ length: 20 }, (_, i) => (i % 2 ? "tool_result" : "tool_call")));
  const renders = await page.evaluate(() => window.renders);
  // Every render shows every line of the window (generic until answered): no empty flash.
  for (const r of renders) assert.equal(r.entries, r.chunks * 2, JSON.stringify(r));
  // The window slides with each chunk past the tenth; a line once shown parsed stays parsed in
  // every later render that still holds it: only new lines wait for the Worker, never the whole
  // window again. (How many new lines wait at once depends on how busy the machine is, so the
  // test does not count them.)
  const sliding = renders.filter((r) => r.total > 10);
  assert.ok(sliding.length >= 10);
  for (let k = 1; k < renders.length; k++) {
    const [before, now] = [renders[k - 1], renders[k]];
    const shown = new Set(now.parsedLines);
    const lost = before.parsedLines.filter((line) => line >= now.first && !shown.has(line));
    assert.deepEqual(lost, [], `render ${k} shows lines generic again: ${JSON.stringify({ before, now })}`);
  }
  console.log(`# ${renders.length} renders for 20 chunks in a 10-chunk window; most lines waiting in one render while sliding: ${Math.max(...sliding.map((r) => r.entries - r.parsed))}`);
  assert.deepEqual(errors, []);
});
