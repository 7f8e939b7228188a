// Benchmark (not a test): how long the page's thread spends in `Worker.postMessage` for the
// core's ops frames, with the frame's buffer transferred and with it copied. Headless Chromium,
// the built pkg/, the browser's default frame (the sandboxed hermes-style parser in a Worker): a
// run pushed a ~4 KB chunk at a time, each followed by its answers and a frame, as a live view
// sees it. Each variant runs in a fresh page, alternating; `Worker.prototype.postMessage` is
// wrapped to time the ops posts and to send them one way or the other, whatever the package does.
//
//   node tests/browser/bench-post.mjs [--lines 10000] [--rounds 3]
//
// Times come from performance.now(), which a page without cross-origin isolation rounds to
// 0.1 ms: read the sums and the share of posts over 1 ms, not single posts.
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const lines = arg("lines", 10000);
const rounds = arg("rounds", 3);
const repo = fileURLToPath(new URL("../..", import.meta.url));

const page = (transfer) => `<!doctype html><script type="module">
  const post = Worker.prototype.postMessage;
  const times = [];
  Worker.prototype.postMessage = function (message, transferList) {
    if (!message || !message.ops) return post.call(this, message, transferList);
    const t0 = performance.now();
    const out = ${transfer} ? post.call(this, message, [message.ops.buffer]) : post.call(this, message);
    times.push(performance.now() - t0);
    return out;
  };
  import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
  import { hermesLog } from "/tests/bench/gen-log.mjs";
  import { chunkLog } from "/tests/bench/core.mjs";
  await init();
  const source = await (await fetch("/tests/bench/hermes-parser.js")).text();
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  window.run = async (n) => {
    const registry = new ParserRegistry({ loadSource: null });
    registry.registerSource("hermes_local", source);
    await registry.idle();
    const builder = new TranscriptBuilder(registry, "hermes_local", { timeline: false });
    times.length = 0;
    for (const chunk of chunkLog(hermesLog(n), 4096)) {
      builder.push(chunk);
      await registry.idle();
      await frame();
    }
    registry.dispose();
    const sorted = [...times].sort((a, b) => a - b);
    const sum = sorted.reduce((a, b) => a + b, 0);
    return { posts: sorted.length, sumMs: sum, p90Ms: sorted[Math.floor(sorted.length * 0.9)], over1: sorted.filter((t) => t > 1).length };
  };
  window.ready = true;
</script>`;

const server = await serve(repo, {
  "/transfer.html": () => ({ type: "text/html", body: page(true) }),
  "/copy.html": () => ({ type: "text/html", body: page(false) }),
});
const results = { transfer: [], copy: [] };
for (let r = 0; r < rounds; r++) {
  for (const mode of r % 2 ? ["copy", "transfer"] : ["transfer", "copy"]) {
    const { browser, page: tab } = await openReady(server, `/${mode}.html`);
    const out = await tab.evaluate((n) => window.run(n), lines);
    await browser.close();
    results[mode].push(out);
    console.log(`round ${r + 1} ${mode}: ${out.posts} posts, ${out.sumMs.toFixed(1)} ms in all, p90 ${out.p90Ms.toFixed(1)} ms, ${out.over1} over 1 ms`);
  }
}
await server.close();
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`\n${lines.toLocaleString("en")} lines, ${rounds} rounds, ops posts on the page's thread`);
console.log("| frame's buffer | posts | ms in postMessage (median of rounds) | per round | posts over 1 ms (per round) |\n|---|---|---|---|---|");
for (const mode of ["transfer", "copy"]) {
  const rs = results[mode];
  console.log(`| ${mode === "transfer" ? "transferred" : "copied"} | ${rs[0].posts} | ${median(rs.map((x) => x.sumMs)).toFixed(1)} | ${rs.map((x) => x.sumMs.toFixed(1)).join(", ")} | ${rs.map((x) => x.over1).join(", ")} |`);
}
