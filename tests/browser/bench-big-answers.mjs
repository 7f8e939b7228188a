// Benchmark (not a test): the page thread's long tasks while big late answers are folded in.
// Headless Chromium, the built pkg/ (or --pkg DIR), the browser's default frame: a parser in a
// Worker that gives every line 1,000 entries of ~1 KB, 30 such lines pushed in one chunk; every
// task over 50 ms (`PerformanceObserver` "longtask") from the push until the registry is idle.
// Each trial is a fresh registry in the same page (the first one also pays the core's code being
// compiled and tiered up by the browser).
//
//   node tests/browser/bench-big-answers.mjs [--trials 5] [--pkg DIR]   (DIR from the repository's root)
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

const at = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const trials = Number(at("trials", 5));
const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = at("pkg", "pkg"); // a package directory, relative to the repository

const server = await serve(repo, {
  "/big.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/${pkg}/index.js";
  await init();
  const source = "export function parseStdoutLine(line, ts) { const out = []; for (let i = 0; i < 1000; i++) out.push({ kind: 'assistant', ts, text: 'y'.repeat(1000) + i }); return out; }";
  window.trial = async () => {
    const registry = new ParserRegistry({ loadSource: null });
    registry.registerSource("many", source);
    await registry.idle();
    const builder = new TranscriptBuilder(registry, "many");
    const tasks = [];
    const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(Math.round(e.duration)); });
    observer.observe({ type: "longtask" });
    const t0 = performance.now();
    builder.push({ ts: "2026-01-01T00:00:00Z", stream: "stdout", chunk: Array.from({ length: 30 }, (_, i) => "line " + i).join("\\n") + "\\n" });
    await registry.idle();
    await new Promise((r) => setTimeout(r, 200)); // the observer reports a little late
    observer.disconnect();
    const entries = builder.entries().length;
    registry.dispose();
    return { ms: Math.round(performance.now() - t0 - 200), entries, tasks };
  };
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/big.html");
console.log(`| trial | entries | time to idle (ms) | tasks over 50 ms (ms) |`);
console.log(`|---|---|---|---|`);
for (let i = 1; i <= trials; i++) {
  const r = await page.evaluate(() => window.trial());
  console.log(`| ${i} | ${r.entries} | ${r.ms} | ${r.tasks.join(", ") || "none"} |`);
}
await browser.close();
await server.close();
