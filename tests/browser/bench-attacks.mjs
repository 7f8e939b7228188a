// Benchmark (not a test): the longest main-thread block each hostile parser of
// tests/corpus/hostile causes in headless Chromium, with `host: "auto"` (the browser default
// before issue 16: inline until the first overrun) and with the default host now (a Worker).
// Each attack parser gets "before", "attack", "after" pushed through a TranscriptBuilder; the
// block is the longest gap between animation frames from the push until idle.
//   node tests/browser/bench-attacks.mjs
import { readFile, readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const dir = new URL("../corpus/hostile/", import.meta.url);
const hostile = {};
for (const f of (await readdir(dir)).filter((f) => f.endsWith(".js")).sort()) hostile[f.replace(/\.js$/, "")] = await readFile(new URL(f, dir), "utf8");

const server = await serve(repo, {
  "/attacks.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
  await init();
  let last = performance.now(), worst = 0, measuring = false;
  const tick = (t) => { if (measuring) worst = Math.max(worst, t - last); last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  window.attack = async (host, name, source) => {
    const registry = new ParserRegistry({ ...(host ? { host } : {}), loadSource: null, lineBudgetMs: 50, hardDeadlineMs: 100 });
    registry.registerSource(name, source);
    await registry.idle();
    if (registry.status(name).state !== "ready") { registry.dispose(); return { refused: true }; }
    const builder = new TranscriptBuilder(registry, name);
    await frame();
    worst = 0; measuring = true; last = performance.now();
    const t0 = performance.now();
    builder.push({ ts: "2026-01-01T00:00:01Z", stream: "stdout", chunk: "before\\nattack\\nafter\\n" });
    const push = performance.now() - t0;
    await registry.idle();
    await frame(); await frame();
    measuring = false;
    const out = { worst: Math.max(worst, push), push, host: registry.status(name).host };
    registry.dispose();
    return out;
  };
  await window.attack(undefined, "warm", "export function parseStdoutLine(line, ts) { return [{ kind: 'stdout', ts, text: line }]; }");
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/attacks.html");
console.log(`## longest main-thread block per attack (ms; Chromium ${browser.version()})`);
console.log("| attack | auto (inline first) | default (worker) |");
console.log("|---|---|---|");
for (const [name, source] of Object.entries(hostile)) {
  const row = [];
  for (const host of ["auto", undefined]) {
    const r = await page.evaluate(([h, n, s]) => window.attack(h, n, s), [host, name, source]);
    row.push(r.refused ? "refused at load" : `${Math.round(r.worst)}`);
  }
  console.log(`| ${name} | ${row.join(" | ")} |`);
}
await browser.close();
await server.close();
