// Many adapter types on one page (issue 41, "Scale"): Chromium gives a page room for about 120
// wasm memories, and each parser's engine holds one, so with 200 types 78 failed to start
// (`engine_fault`, "RangeError: could not allocate memory"). The registry keeps at most
// `maxLiveEngines` engines (default 32): an idle one is ended (parked) to make room, and its
// type's next line starts it again with its runs' state replayed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { serve, launch, newPage } from "./harness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const TYPES = 200;

const server = await serve(repo, {
  "/scale.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
  await init();
  // Each type's parser counts the lines of its run: a type whose engine was parked and started
  // again must go on counting where it was.
  const source = (type) => "export function createStdoutParser() { let n = 0; return { parseLine(line, ts) { n++; return [{ kind: 'assistant', ts, text: '" + type + ":' + n + ':' + line }]; } }; }";
  window.run = async (types) => {
    const registry = new ParserRegistry({ loadSource: null });
    const names = Array.from({ length: types }, (_, i) => "adapter-" + i);
    for (const t of names) registry.registerSource(t, source(t));
    await registry.idle();
    const states = {};
    for (const t of names) {
      const s = registry.status(t);
      const k = s.state + (s.reason ? ": " + s.reason : "");
      states[k] = (states[k] ?? 0) + 1;
    }
    // Two lines in each type's transcript, a round over every type at a time.
    const builders = names.map((t) => new TranscriptBuilder(registry, t));
    for (const line of ["first", "second"]) {
      for (const b of builders) b.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk: line + "\\n" });
      await registry.idle();
    }
    const texts = builders.map((b) => b.entries().map((e) => e.text));
    const d = registry.diagnostics().host;
    registry.dispose();
    return { states, texts, parked: d.parked, stateLost: d.stateLost, engineFaults: d.engineFaults };
  };
  window.ready = true;
</script>`,
  }),
});

after(() => server.close());

test("200 adapter types on one page: every parser starts, answers, and keeps its state when its engine is parked", async () => {
  const browser = await launch();
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    await page.goto(`${server.url}/scale.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const r = await page.evaluate((n) => window.run(n), TYPES);
    assert.deepEqual(r.states, { ready: TYPES }, JSON.stringify(r.states));
    r.texts.forEach((texts, i) => assert.deepEqual(texts, [`adapter-${i}:1:first`, `adapter-${i}:2:second`], `adapter-${i}`));
    assert.ok(r.parked >= TYPES - 32, `engines were parked to make room: ${r.parked}`);
    assert.deepEqual([r.stateLost, r.engineFaults], [0, 0]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
