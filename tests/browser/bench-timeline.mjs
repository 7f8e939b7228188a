// Benchmark (not a test): what the timeline adds to a live run's main-thread time in the
// browser's default frame, the sandboxed parser in a Worker (issue 15). Headless Chromium, the
// built pkg/. One page holds two registries (each with its Worker engine) and two builders over
// the same hermes-style run, one with the timeline and one without (`timeline: false`), each
// with a consumer that keeps the entries and a Map of items, as a renderer does.
//
// The run is fed as a live view sees it: one ~4 KB chunk at a time, then the answers of the
// Worker until the builder is idle and a frame has passed (so late answers are folded in and
// their updates handed to the consumer). The two builders take turns, a batch of chunks each,
// in alternating order; the page's main-thread time for each batch is read from Chromium's own
// count (DevTools `Performance.getMetrics`, `TaskDuration`: every task of the page's main
// thread, the Worker's excluded), so what is measured is all the main thread did for that
// builder, the Worker's messages and the frames included.
//
//   node tests/browser/bench-timeline.mjs [--lines 30000] [--trials 5] [--batch 10] [--pkg pkg]
//
// It also prints each mode's main-thread ms per quarter of the run: a cost that grows along the
// run shows there. --pkg serves another build of the package (a directory under the repository).
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const lines = arg("lines", 30000);
const trials = arg("trials", 5);
const batch = arg("batch", 10);
const pkgIndex = process.argv.indexOf("--pkg");
const pkg = pkgIndex === -1 ? "pkg" : process.argv[pkgIndex + 1];
const repo = fileURLToPath(new URL("../..", import.meta.url));

const server = await serve(repo, {
  "/bench.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/${pkg}/index.js";
  import { hermesLog } from "/tests/bench/gen-log.mjs";
  import { chunkLog, keptUpdates } from "/tests/bench/core.mjs";
  await init();
  const source = await (await fetch("/tests/bench/hermes-parser.js")).text();
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  let chunks = [];
  const sides = {};
  async function side(timeline) {
    const registry = new ParserRegistry({ loadSource: null }); // the browser default: a Worker
    registry.registerSource("hermes_local", source);
    await registry.idle();
    if (registry.status("hermes_local").state !== "ready") throw new Error("parser not ready");
    const builder = new TranscriptBuilder(registry, "hermes_local", { timeline });
    const kept = keptUpdates();
    // Items the timeline placed as generic stdout (a line it did not wait for) count apart.
    const s = { registry, builder, entries: kept.entries, items: kept.items, placedGeneric: 0 };
    s.take = (update) => {
      for (const item of update.timeline?.added ?? []) if (item.type === "stdout") s.placedGeneric++;
      kept.take(update);
    };
    builder.onUpdate(s.take);
    return s;
  }
  window.setUp = async (n) => {
    chunks = chunkLog(hermesLog(n), 4096);
    for (const s of Object.values(sides)) s.registry.dispose();
    sides.without = await side(false);
    sides.with = await side(true);
    return chunks.length;
  };
  window.feed = async (mode, from, to) => {
    const s = sides[mode];
    for (let i = from; i < Math.min(to, chunks.length); i++) {
      s.take(s.builder.push(chunks[i]));
      await s.registry.idle();
      await frame();
    }
    if (to >= chunks.length) {
      s.take(s.builder.finish());
      await s.registry.idle();
      await frame();
    }
  };
  window.shape = (mode) => {
    const s = sides[mode];
    const generic = s.entries.filter((e) => e.kind === "stdout").length;
    return { entries: s.entries.length, items: s.items.size, generic, placedGeneric: s.placedGeneric };
  };
  window.ready = true;
</script>`,
  }),
});

const { browser, page } = await openReady(server, "/bench.html");
const cdp = await page.context().newCDPSession(page);
await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
const taskMs = async () => {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return 1000 * metrics.find((m) => m.name === "TaskDuration").value;
};

const rows = [];
for (let t = 0; t <= trials; t++) {
  const n = await page.evaluate((k) => window.setUp(k), lines);
  // The last trial's garbage (two runs' entries and items) is collected now, not in whichever
  // batch a major collection happens to fall in.
  await cdp.send("HeapProfiler.collectGarbage");
  const ms = { without: 0, with: 0 };
  const quarters = { without: [0, 0, 0, 0], with: [0, 0, 0, 0] };
  for (let from = 0, b = 0; from < n; from += batch, b++) {
    for (const mode of b % 2 ? ["with", "without"] : ["without", "with"]) {
      const t0 = await taskMs();
      await page.evaluate(([m, f, e]) => window.feed(m, f, e), [mode, from, from + batch]);
      const dt = (await taskMs()) - t0;
      ms[mode] += dt;
      quarters[mode][Math.min(3, Math.floor((4 * from) / n))] += dt;
    }
  }
  const a = await page.evaluate(() => window.shape("without"));
  const b = await page.evaluate(() => window.shape("with"));
  if (a.entries !== b.entries) throw new Error(`the two builders disagree: ${JSON.stringify([a, b])}`);
  if (t === 0) continue; // warm-up
  rows.push({ ...ms, ratio: ms.with / ms.without, ...b });
  console.log(`trial ${t}: without ${ms.without.toFixed(0)} ms, with ${ms.with.toFixed(0)} ms, ×${(ms.with / ms.without).toFixed(3)} (${b.entries} entries, ${b.items} items, ${b.generic} stdout; ${b.placedGeneric} items placed generic first)`);
  const q = (mode) => quarters[mode].map((x) => x.toFixed(0)).join(" / ");
  console.log(`  per quarter of the run, ms: without ${q("without")}; with ${q("with")}`);
}
await browser.close();
await server.close();

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`\n${lines.toLocaleString("en")} lines, ${trials} trials, Worker host (the browser default), Chromium main-thread TaskDuration`);
console.log("| builder | main-thread ms, median | per trial |\n|---|---|---|");
for (const mode of ["without", "with"]) {
  console.log(`| ${mode === "with" ? "timeline (default)" : "timeline: false"} | ${median(rows.map((r) => r[mode])).toFixed(0)} | ${rows.map((r) => r[mode].toFixed(0)).join(", ")} |`);
}
console.log(`added by the timeline: ${((median(rows.map((r) => r.ratio)) - 1) * 100).toFixed(1)} % (median of the per-trial ratios: ${rows.map((r) => r.ratio.toFixed(3)).join(", ")})`);
