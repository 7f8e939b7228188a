// Benchmark (not a test): memory per registered parser in headless Chromium, in the browser's
// default frame (each parser's engine in a Worker of its own) and inline, against the built pkg/.
//   node tests/browser/bench-memory.mjs [parsers=16] [trials=3]
//
// A page registers one parser (the hermes bench parser, answering one line), then `parsers`
// more, each in a registry of its own; what is reported per parser is the growth of the
// resident memory (RSS) of every Chromium process over those `parsers`, read from /proc, after
// a garbage collection of the page. Each trial is a fresh browser. Chromium runs a Worker as a
// thread of the page's renderer process, with a V8 isolate of its own: its cost is in the
// figure. Also reported, from the page: the engine instances' linear memory
// (`diagnostics().memoryBytes`, inline only: a Worker's instance is not in the page).
import { readFile, readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

const parsers = Number(process.argv[2] ?? 16);
const trials = Number(process.argv[3] ?? 3);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const source = await readFile(new URL("../bench/hermes-parser.js", import.meta.url), "utf8");

const server = await serve(repo, {
  "/bench.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry } from "/pkg/index.js";
  await init();
  window.held = [];
  window.add = async (host, source, n) => {
    for (let i = 0; i < n; i++) {
      const registry = new ParserRegistry({ host, loadSource: null });
      registry.registerSource("h", source);
      await registry.idle();
      const run = registry.adapter("h").createStdoutParser();
      run.parseLine("┊ $ ls -la", "2026-01-01T00:00:00.000Z");
      await registry.idle();
      if (registry.status("h").state !== "ready") throw new Error(JSON.stringify(registry.status("h")));
      window.held.push(registry);
    }
    return window.held.reduce((n, r) => n + (r.diagnostics("h").memoryBytes ?? 0), 0);
  };
  window.ready = true;
</script>`,
  }),
});

/** Resident bytes of every process whose command line names Chromium. */
async function chromiumRss() {
  let total = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("chromium")) continue;
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      total += kb * 1024;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

const settle = (page) => page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
const results = { worker: [], inline: [] };
for (let t = 0; t < trials; t++) {
  for (const host of ["worker", "inline"]) {
    const { browser, page } = await openReady(server, "/bench.html");
    const cdp = await page.context().newCDPSession(page);
    const gc = () => cdp.send("HeapProfiler.collectGarbage");
    await page.evaluate(([h, s]) => window.add(h, s, 1), [host, source]);
    await gc();
    await settle(page);
    const before = await chromiumRss();
    const linear = await page.evaluate(([h, s, n]) => window.add(h, s, n), [host, source, parsers]);
    await gc();
    await settle(page);
    const after = await chromiumRss();
    results[host].push({ rssPerParserKB: Math.round((after - before) / parsers / 1024), linearPerParserKB: Math.round(linear / (parsers + 1) / 1024) });
    await browser.close();
  }
}
await server.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`Chromium, ${parsers} parsers after one, ${trials} trials (RSS growth of all Chromium processes ÷ parsers):`);
console.log("| host | RSS per parser, median | per trial | engine linear memory per parser |");
console.log("|---|---|---|---|");
for (const [host, rs] of Object.entries(results)) {
  const rss = rs.map((r) => r.rssPerParserKB);
  const linear = host === "inline" ? `${median(rs.map((r) => r.linearPerParserKB))} KB` : "in the Worker";
  console.log(`| ${host} | ${median(rss)} KB | ${rss.join(", ")} KB | ${linear} |`);
}
console.log(JSON.stringify(results));
