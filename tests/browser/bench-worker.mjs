// Benchmark (not a test): the worker host's per-line cost and its respawn + replay time, in
// headless Chromium against the built pkg/.
//   node tests/browser/bench-worker.mjs [trials=5] [--before DIR]
// --before DIR: another build of the package (a copy of pkg/), measured in the same page for
// the throughput rows, the two alternating trial by trial.
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, openReady } from "./harness.mjs";

const trials = Number(process.argv[2] ?? 5);
const beforeAt = process.argv.indexOf("--before");
const beforeDir = beforeAt > 0 ? resolve(process.argv[beforeAt + 1]) : null;
const beforeRoutes = {};
for (const f of beforeDir ? await readdir(beforeDir) : []) {
  const type = f.endsWith(".wasm") ? "application/wasm" : f.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/plain";
  beforeRoutes[`/before/${f}`] = async () => ({ type, body: await readFile(join(beforeDir, f)) });
}
const repo = fileURLToPath(new URL("../..", import.meta.url));
const parser = await readFile(new URL("fixtures/hermes-ui-parser.js", import.meta.url), "utf8");
// Lines of the hermes-style fixture's dialect, deterministic.
const kinds = ["┊ 💬 thinking about the task", "┊ $ ls /home/user/project", "┊ [done] $ ls /home/user/project — /src /README.md  0.3s", "The project is a CLI tool written in TypeScript.", "┊ read /home/user/project/README.md", "┊ [done] read — Project overview  1.2s"];
const log = (n) => Array.from({ length: n }, (_, i) => kinds[i % kinds.length]).join("\n") + "\n";
// A stateful parser that counts lines and hangs (a regex no budget stops) on "hang".
const hanging = await readFile(new URL("fixtures/hanging-counter.js", import.meta.url), "utf8");

const server = await serve(repo, {
  ...beforeRoutes,
  "/bench.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "/pkg/index.js";
  await init();
  const builds = { pkg: { ParserRegistry, TranscriptBuilder } };
  if (${beforeDir !== null}) {
    builds.before = await import("/before/index.js");
    await builds.before.default();
  }
  window.stream = async (host, source, text, build = "pkg") => {
    const { ParserRegistry, TranscriptBuilder } = builds[build];
    const registry = new ParserRegistry({ host, loadSource: null });
    registry.registerSource("h", source);
    await registry.idle(); // a Worker engine starts off the page's thread
    const builder = new TranscriptBuilder(registry, "h");
    // Warm: one line through the same path.
    builder.push({ ts: "t", stream: "stdout", chunk: "warm\\n" });
    await registry.idle();
    const t0 = performance.now();
    let main = 0;
    const lines = text.split("\\n");
    for (let i = 0; i < lines.length; i += 100) {
      const s = performance.now();
      builder.push({ ts: "t", stream: "stdout", chunk: lines.slice(i, i + 100).join("\\n") + "\\n" });
      main += performance.now() - s;
    }
    await registry.idle();
    const total = performance.now() - t0;
    const kinds = new Set(builder.entries().map((e) => e.kind));
    registry.dispose();
    return { total, main, kinds: [...kinds] };
  };
  window.respawn = async (source, earlier) => {
    const registry = new ParserRegistry({ host: "worker", loadSource: null, hardDeadlineMs: 100 });
    registry.registerSource("h", source);
    await registry.idle();
    const run = registry.adapter("h").createStdoutParser();
    for (let i = 0; i < earlier; i++) run.parseLine("line " + i, "t");
    await registry.idle();
    const t0 = performance.now();
    run.parseLine("hang", "t");
    let answered = null;
    registry.onChange((type, status, lines) => { if (lines) for (const l of lines) if (l.line === "after") answered = { at: performance.now(), text: l.entries[0].text }; });
    run.parseLine("after", "t");
    await registry.idle();
    const d = registry.diagnostics("h").host;
    await new Promise((r) => setTimeout(r, 50));
    registry.dispose();
    return { ms: (answered?.at ?? performance.now()) - t0, text: answered?.text, kills: d.deadlineKills, replayed: d.replayedLines };
  };
  // How long a line stays generic in the worker host: a live run's pace (a chunk of \`perChunk\`
  // lines every \`gapMs\`), each line timed from its push to the onUpdate that replaced it, in
  // ms and in animation frames.
  window.latency = async (chunks, perChunk, gapMs) => {
    const registry = new ParserRegistry({ loadSource: null }); // the browser default: worker
    registry.registerSource("h", "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }");
    await registry.idle();
    const builder = new TranscriptBuilder(registry, "h");
    let frame = 0;
    let ticking = true;
    const tick = () => { frame++; if (ticking) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const pushed = new Map(); // text -> [ms, frame]
    const waits = [];
    builder.onUpdate(({ entries }) => {
      const now = performance.now();
      for (const e of entries) {
        const p = e.kind === "assistant" && pushed.get(e.text);
        if (p) { waits.push([now - p[0], frame - p[1]]); pushed.delete(e.text); }
      }
    });
    for (let c = 0; c < chunks; c++) {
      const lines = Array.from({ length: perChunk }, (_, i) => "line " + (c * perChunk + i));
      const now = performance.now();
      for (const l of lines) pushed.set(l, [now, frame]);
      builder.push({ ts: "t", stream: "stdout", chunk: lines.join("\\n") + "\\n" });
      await new Promise((r) => setTimeout(r, gapMs));
    }
    await registry.idle();
    ticking = false;
    registry.dispose();
    return { waits, missing: pushed.size, host: "worker" };
  };
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/bench.html");
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)] };
};
const f = (x) => x.toFixed(1);

console.log(`## worker host vs inline, ${trials} trials each (Chromium ${browser.version()})${beforeDir ? `, pkg/ and ${beforeDir} alternating` : ""}`);
const builds = beforeDir ? ["pkg", "before"] : ["pkg"];
for (const n of [10_000]) {
  const text = log(n);
  for (const host of ["inline", "worker"]) {
    const rows = Object.fromEntries(builds.map((b) => [b, []]));
    for (let t = 0; t < trials; t++) {
      for (const b of t % 2 ? [...builds].reverse() : builds) rows[b].push(await page.evaluate(([h, s, x, b]) => window.stream(h, s, x, b), [host, parser, text, b]));
    }
    for (const b of builds) {
      const total = stats(rows[b].map((r) => r.total));
      const main = stats(rows[b].map((r) => r.main));
      console.log(`${beforeDir ? `${b.padEnd(6)} ` : ""}${host.padEnd(6)} ${n} lines: total min ${f(total.min)} ms / median ${f(total.median)} ms (${Math.round(n / (total.median / 1000))} lines/s); main-thread push time median ${f(main.median)} ms; kinds ${rows[b][0].kinds.join(",")}`);
    }
  }
}
console.log(`## how long a line stays generic (worker host, the browser default), ${trials} trials`);
for (const [chunks, perChunk, gap] of [[200, 1, 20], [100, 10, 50]]) {
  const waits = [];
  let missing = 0;
  for (let t = 0; t < trials; t++) {
    const r = await page.evaluate(([c, p, g]) => window.latency(c, p, g), [chunks, perChunk, gap]);
    waits.push(...r.waits);
    missing += r.missing;
  }
  const ms = waits.map((w) => w[0]).sort((a, b) => a - b);
  const frames = waits.map((w) => w[1]).sort((a, b) => a - b);
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  console.log(`${chunks} chunks of ${perChunk} line(s) every ${gap} ms: generic for median ${f(q(ms, 0.5))} ms / p95 ${f(q(ms, 0.95))} ms / max ${f(ms.at(-1))} ms; frames median ${q(frames, 0.5)}, p95 ${q(frames, 0.95)}, max ${frames.at(-1)}; lines never replaced ${missing}`);
}
console.log(`## respawn + replay after a deadline kill (hardDeadlineMs 100), ${trials} trials`);
for (const earlier of [100, 1_000, 10_000]) {
  const rows = [];
  for (let t = 0; t < trials; t++) rows.push(await page.evaluate(([s, e]) => window.respawn(s, e), [hanging, earlier]));
  const ms = stats(rows.map((r) => r.ms));
  console.log(`${String(earlier).padStart(6)} earlier lines: hang → next line answered min ${f(ms.min)} ms / median ${f(ms.median)} ms (includes the 100 ms deadline); next line "${rows[0].text}", kills ${rows[0].kills}, replayed ${rows[0].replayed}`);
}
await browser.close();
await server.close();
