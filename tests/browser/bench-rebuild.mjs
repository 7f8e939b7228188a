// Benchmark (not a test): what a TranscriptBuilder.rebuild() of a long run costs the page's
// thread in Chromium's default frame (the parser in a Worker), in slices (the default
// rebuildSliceMs) and whole, side by side in one page.
//   node tests/browser/bench-rebuild.mjs [lines=100000] [trials=3]
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { hermesLog } from "../bench/gen-log.mjs";
import { serve, openReady } from "./harness.mjs";

const lines = Number(process.argv[2] ?? 100_000);
const trials = Number(process.argv[3] ?? 3);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const parser = await readFile(new URL("../bench/hermes-parser.js", import.meta.url), "utf8");
const text = hermesLog(lines);

const server = await serve(repo, {
  "/rebuild.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
  await init();
  let longest = 0;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) longest = Math.max(longest, e.duration); }).observe({ type: "longtask" });
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  window.run = async (source, text, options) => {
    const registry = new ParserRegistry({ loadSource: null, ...options });
    registry.registerSource("h", source);
    await registry.idle();
    const b = new TranscriptBuilder(registry, "h", { timeline: false });
    for (let at = 0; at < text.length; at += 8192) b.push({ ts: "t", stream: "stdout", chunk: text.slice(at, at + 8192) });
    await registry.idle();
    const total = b.entries().length;
    let updates = 0;
    b.onUpdate(() => updates++);
    await frame();
    longest = 0;
    const t0 = performance.now();
    const first = b.rebuild().length;
    const firstMs = performance.now() - t0;
    // Until every line is parsed again (the Worker's answers folded in) and nothing is pending.
    await registry.idle();
    await frame();
    const allMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100)); // the long-task observer reports late
    const out = { total, first, firstMs, allMs, updates, longest, parsed: b.entries().length };
    registry.dispose();
    return out;
  };
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/rebuild.html");
const modes = { "in slices (default rebuildSliceMs, 8 ms)": {}, "whole (rebuildSliceMs: 3,600,000)": { rebuildSliceMs: 3_600_000 } };
const results = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
for (let t = 0; t < trials; t++) for (const [name, options] of Object.entries(modes)) results[name].push(await page.evaluate(([s, x, o]) => window.run(s, x, o), [parser, text, options]));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`## rebuild() of a ${lines}-line hermes run (8,192-unit chunks), Worker host, Chromium ${browser.version()}, ${trials} trials each, alternated`);
for (const [name, rs] of Object.entries(results)) {
  console.log(`${name}: rebuild() returns in median ${med(rs.map((r) => r.firstMs)).toFixed(1)} ms with ${med(rs.map((r) => r.first))} entries (the lines it re-sent to the Worker show generic ones); every line parsed again and nothing pending after ${med(rs.map((r) => r.allMs)).toFixed(0)} ms (${med(rs.map((r) => r.updates))} updates, ${rs[0].parsed} of ${rs[0].total} entries); longest main-thread task from the call to then: median ${med(rs.map((r) => r.longest)).toFixed(0)} ms (${rs.map((r) => r.longest.toFixed(0)).join(", ")})`);
}
await browser.close();
await server.close();
