// Benchmark (not a test): a page's first parsers, per engine (PARSEBOX_BROWSER), each round in
// a fresh browser, where none of the engine's code is compiled yet. Two pages a round:
//   - honest: the shared bench parser is registered at once; "ready" is from the page's script
//     start (init() called) to the parser's `ready`; then 200 lines of the bench log go through
//     it (Worker host), push to idle, twice, in two registries;
//   - hostile first: three hostile parsers (a catastrophic regex, a polynomial one, a loop that
//     never ends) each get "before / attack / after" right after init(), and each attack line
//     is ended at the deadline; then the bench parser runs the same 200 lines, twice; the
//     second run's time per line is set beside the honest page's second run.
// What it shows: JavaScriptCore leaves a wasm function in its interpreter for good when a
// Worker running that module is ended while the function's compilation is under way (session
// 32), so in WebKit a page whose first Workers were ended parsed every later line at that
// speed. The honest lines around each attack must be answered ("lost" counts those that fell
// back). `--deadline MS` sets hardDeadlineMs (default: the package's default, 1 s); `--pkg DIR`
// measures another build of the package, and `--before DIR` one more in the same rounds, so
// two builds compare side by side.
//
//   PARSEBOX_BROWSER=webkit node tests/browser/bench-cold-start.mjs [--rounds 5] [--deadline 150] [--parser bench|charscan|heavy] [--pkg DIR] [--before DIR]
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { BROWSER, serve, openReady } from "./harness.mjs";
import { hermesLog, logLines } from "../bench/gen-log.mjs";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const rounds = Number(arg("rounds") ?? 5);
const deadline = arg("deadline") === undefined ? undefined : Number(arg("deadline"));
const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = resolve(arg("pkg") ?? `${repo}/pkg`);
// `--before DIR`: a second build, measured in the same rounds, alternating which goes first.
const pkgs = arg("before") === undefined ? [pkg] : [resolve(arg("before")), pkg];
// The honest parser: the shared bench parser (mostly native JSON.parse and regexes), or with
// `--parser charscan` a char-by-char scan, the shape of real parsers whose time is the engine's,
// or `--parser heavy` 30,000 turns of a loop a line (tests/browser/fixtures/heavy-counter.js).
const parserName = arg("parser") ?? "bench";
const parserFile =
  parserName === "bench"
    ? new URL("../../../shared/bench/ui-parser.js", import.meta.url)
    : parserName === "heavy"
      ? new URL("fixtures/heavy-counter.js", import.meta.url)
      : new URL(`../bench/shapes/${parserName}.js`, import.meta.url);
const parser = await readFile(parserFile, "utf8");
const hostileDir = new URL("../corpus/hostile/", import.meta.url);
const attacks = await Promise.all(["regex_catastrophic", "regex_polynomial", "infinite_loop"].map((n) => readFile(new URL(`${n}.js`, hostileDir), "utf8")));
const lines = logLines(hermesLog(200));

// Served from / so that --pkg may be any directory.
const PAGE = `<!doctype html><script type="module">
const t0 = performance.now();
const pkg = new URLSearchParams(location.search).get("pkg");
const { default: init, ParserRegistry, TranscriptBuilder } = await import(pkg + "/index.js");
await init();
const options = { loadSource: null, ...(${JSON.stringify(deadline === undefined ? {} : { hardDeadlineMs: deadline })}) };
const run = async (source, lines) => {
  const registry = new ParserRegistry(options);
  registry.registerSource("bench", source);
  await registry.idle();
  const readyMs = performance.now() - t0;
  const builder = new TranscriptBuilder(registry, "bench");
  const started = performance.now();
  builder.push({ ts: "2026-01-01T00:00:01Z", stream: "stdout", chunk: lines.join("\\n") + "\\n" });
  await registry.idle();
  const ms = performance.now() - started;
  // Used after idle(): a builder nothing holds may be collected, and its run dropped, before
  // its lines are answered (JavaScriptCore did, and idle() then came early).
  builder.entries();
  const d = registry.diagnostics("bench");
  const lost = Object.values(d.fallbacks).reduce((a, b) => a + b, 0);
  registry.dispose();
  return { readyMs, ms, kills: d.host.deadlineKills, lost, byParser: d.linesByParser, memo: d.host.memoAnswers };
};
// One hostile parser: its honest lines must be answered, its attack line falls back.
const attack = async (source) => {
  const registry = new ParserRegistry(options);
  registry.registerSource("hostile", source);
  await registry.idle();
  const builder = new TranscriptBuilder(registry, "hostile");
  builder.push({ ts: "2026-01-01T00:00:01Z", stream: "stdout", chunk: "before\\nattack\\nafter\\n" });
  await registry.idle();
  const texts = builder.entries().map((e) => e.text);
  const kills = registry.diagnostics("hostile").host.deadlineKills;
  registry.dispose();
  return { kills, lost: texts.filter((t) => t.startsWith("Chat transcript error") && !t.endsWith("attack")).length };
};
window.honest = async (source, lines) => {
  const first = await run(source, lines);
  const second = await run(source, lines);
  return { readyMs: first.readyMs, firstMs: first.ms, secondMs: second.ms, kills: first.kills + second.kills, lost: first.lost + second.lost, byParser: [first.byParser, second.byParser], memo: [first.memo, second.memo] };
};
window.hostileFirst = async (attacks, source, lines) => {
  let kills = 0, lost = 0;
  for (const a of attacks) { const o = await attack(a); kills += o.kills; lost += o.lost; }
  // Twice, as on the honest page: the second run is compared, with the code of both warm.
  const first = await run(source, lines);
  const after = await run(source, lines);
  return { ms: after.ms, kills: kills + first.kills + after.kills, lost: lost + first.lost + after.lost, byParser: [first.byParser, after.byParser], memo: [first.memo, after.memo] };
};
window.ready = true;
</script>`;
const server = await serve("/", { "/bench.html": () => ({ type: "text/html; charset=utf-8", body: PAGE }) });
const rows = new Map(pkgs.map((p) => [p, []]));
const perLine = (ms) => Number((ms / lines.length).toFixed(2));
for (let r = 0; r < rounds; r++) {
  for (const p of r % 2 ? [...pkgs].reverse() : pkgs) {
    const path = `/bench.html?pkg=${encodeURIComponent(p)}`;
    // A browser of its own per page: no compiled code carries over from an earlier one. A page
    // that does not finish (WebKit's driver gives up after 300 s) is reported, not retried.
    const inPage = async (fn, args) => {
      const { browser, page } = await openReady(server, path);
      try {
        return await page.evaluate(fn, args);
      } catch (e) {
        return { failed: String(e.message ?? e).split("\n")[0] };
      } finally {
        await browser.close().catch(() => {});
      }
    };
    const honest = await inPage(([s, l]) => window.honest(s, l), [parser, lines]);
    const hostile = await inPage(([a, s, l]) => window.hostileFirst(a, s, l), [attacks, parser, lines]);
    if (honest.failed || hostile.failed) {
      console.log(JSON.stringify({ browser: BROWSER, pkg: p, parser: parserName, deadline: deadline ?? "default", honest: honest.failed ?? "done", hostileFirst: hostile.failed ?? "done" }));
      continue;
    }
    const row = {
      readyMs: Math.round(honest.readyMs),
      firstMsPerLine: perLine(honest.firstMs),
      secondMsPerLine: perLine(honest.secondMs),
      afterAttacksMsPerLine: perLine(hostile.ms),
      attackKills: hostile.kills,
      honestKills: honest.kills,
      lost: honest.lost + hostile.lost,
      // Lines answered by the parser, and from the registry's memo, in each run (a check).
      byParser: [...honest.byParser, ...hostile.byParser],
      memo: [...honest.memo, ...hostile.memo],
    };
    rows.get(p).push(row);
    console.log(JSON.stringify({ browser: BROWSER, pkg: p, parser: parserName, deadline: deadline ?? "default", ...row }));
  }
}
for (const [p, rs] of rows) {
  const median = (k) => rs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
  console.log(
    JSON.stringify({
      browser: BROWSER,
      pkg: p,
      parser: parserName,
      deadline: deadline ?? "default",
      medians: true,
      rounds,
      readyMs: median("readyMs"),
      firstMsPerLine: median("firstMsPerLine"),
      secondMsPerLine: median("secondMsPerLine"),
      afterAttacksMsPerLine: median("afterAttacksMsPerLine"),
      attackKills: rs.map((r) => r.attackKills),
      lost: rs.map((r) => r.lost),
    }),
  );
}
await server.close();
