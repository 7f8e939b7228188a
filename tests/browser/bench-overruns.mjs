// Benchmark (not a test): a stateful parser that runs past its deadline once every 300 lines,
// in Chromium's default frame (a Worker engine, killed at the deadline and started again). How
// does the time to parse the whole run grow with the run? Each recovery used to replay the
// run's whole history; a type's replay allowance now bounds that.
//   node tests/browser/bench-overruns.mjs [pkg dir under the repo, default pkg] [rounds...]
// PARSEBOX_TIMELINE=1 gives the builder a timeline (the viewer's default) instead of none.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

const pkg = process.argv[2] ?? "pkg";
const rounds = process.argv.slice(3).map(Number);
const withTimeline = process.env.PARSEBOX_TIMELINE === "1";
if (!rounds.length) rounds.push(10, 20, 40);
const repo = fileURLToPath(new URL("../..", import.meta.url));
// Counts its lines; "hang" runs a regex no in-engine budget stops (the Worker's deadline does).
const source = await readFile(new URL("fixtures/hanging-counter.js", import.meta.url), "utf8");

const server = await serve(repo, {
  "/overruns.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  const { default: init, ParserRegistry, TranscriptBuilder } = await import("/${pkg}/index.js");
  await init();
  let longest = 0;
  let long = 0;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) { longest = Math.max(longest, e.duration); long += 1; } }).observe({ type: "longtask" });
  window.run = async (source, rounds) => {
    const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 50, hardDeadlineMs: 100 });
    registry.registerSource("o", source);
    await registry.idle();
    const b = new TranscriptBuilder(registry, "o", { timeline: ${withTimeline} });
    await new Promise((res) => setTimeout(res, 100));
    longest = 0;
    long = 0;
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      const lines = [];
      for (let i = 0; i < 300; i++) lines.push("line " + r + "-" + i);
      lines.push("hang");
      b.push({ ts: "t", stream: "stdout", chunk: lines.join("\\n") + "\\n" });
      await new Promise((res) => setTimeout(res, 0));
    }
    await registry.idle();
    const ms = performance.now() - t0;
    await new Promise((res) => setTimeout(res, 100));
    const d = registry.diagnostics("o").host;
    const entries = b.entries();
    const out = { ms, longest, long, kills: d.deadlineKills, replayed: d.replayedLines, stateLost: d.stateLost, entries: entries.length, generic: entries.filter((e) => e.kind === "stdout").length };
    registry.dispose();
    return out;
  };
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/overruns.html");
console.log(`## an overrun every 300 lines, Worker host (hardDeadlineMs 100), /${pkg}, ${withTimeline ? "with" : "no"} timeline, Chromium ${browser.version()}`);
for (const r of rounds) {
  const o = await page.evaluate(([s, n]) => window.run(s, n), [source, r]);
  console.log(`${r} overruns, ${r * 301} lines: every line answered after ${o.ms.toFixed(0)} ms (${(o.ms / r).toFixed(0)} ms per overrun); ${o.kills} deadline kills, ${o.replayed} lines replayed, state lost ${o.stateLost} times; ${o.entries} entries, ${o.generic} generic; ${o.long} main-thread tasks of 50 ms or more, the longest ${o.longest.toFixed(0)} ms`);
}
await browser.close();
await server.close();
