// Benchmark (not a test): the attack suite's hostile parsers one after another in one page, as
// worker.test.mjs runs them (Worker host, 50 ms line budget, 100 ms deadline), per engine
// (PARSEBOX_BROWSER). For each attack: the time from its push to `idle()`, and the CPU time the
// browser's processes use in the second after it, while the page does nothing (a Worker the page
// ended that goes on running shows here). `--pkg DIR` measures another build of the package
// (for example one from tests/bench/build-pkg.sh), so two builds compare side by side.
//
//   PARSEBOX_BROWSER=webkit node tests/browser/bench-attack-sweep.mjs [--pkg DIR]
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BROWSER, serve, launch, newPage, descendantCpuTicks } from "./harness.mjs";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = resolve(arg("pkg") ?? `${repo}/pkg`);
const dir = `${repo}/tests/corpus/hostile/`;
const hostilePage = resolve(repo, "tests/browser/pages/hostile.js");
const hostile = readdirSync(dir).filter((f) => f.endsWith(".js")).sort().map((f) => [f.slice(0, -3), readFileSync(dir + f, "utf8")]);

// Served from / so that --pkg may be any directory.
const server = await serve("/", {
  "/sweep.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry, TranscriptBuilder } from "${pkg}/index.js";
  import { installHostile } from "${hostilePage}";
  await init();
  installHostile({ ParserRegistry, TranscriptBuilder });
  window.ready = true;
</script>`,
  }),
});
const browser = await launch();
const page = await newPage(browser, []);
await page.goto(`${server.url}/sweep.html`);
await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
const rows = [];
const sweepStart = Date.now();
for (const [name, source] of hostile) {
  const out = await page.evaluate(([n, s]) => window.runHostile(n, s), [name, source]);
  const before = descendantCpuTicks();
  await new Promise((r) => setTimeout(r, 1000));
  const honest = !out.refused && out.texts[0] === "before #1" && out.texts.at(-1) === "after #2";
  rows.push({ name, ...out, honest, kills: out.counters?.deadlineKills, idleTicks: descendantCpuTicks() - before });
}
const sweepS = (Date.now() - sweepStart) / 1000 - hostile.length; // without the idle seconds
await browser.close();
await server.close();

const ran = rows.filter((r) => !r.refused);
const slowest = [...ran].sort((a, b) => b.ms - a.ms).slice(0, 3);
const busy = rows.filter((r) => r.idleTicks >= 50);
console.log(`${BROWSER}, ${pkg}: ${hostile.length} attacks (${ran.length} loaded)`);
console.log(`sweep, push to idle summed: ${(ran.reduce((a, r) => a + r.ms, 0) / 1000).toFixed(1)} s (wall, without the idle seconds: ${sweepS.toFixed(1)} s)`);
console.log(`slowest: ${slowest.map((r) => `${r.name} ${(r.ms / 1000).toFixed(2)} s`).join(", ")}`);
console.log(`honest lines lost (before or after the attack): ${ran.filter((r) => !r.honest).map((r) => r.name).join(", ") || "none"}`);
console.log(`browser CPU in the idle second after an attack: max ${Math.max(...rows.map((r) => r.idleTicks))} ticks (100 = one core); attacks after which it was >= 50: ${busy.length}${busy.length ? ` (first: ${busy[0].name})` : ""}`);
if (process.env.PARSEBOX_VERBOSE) for (const r of rows) console.log(r.name.padEnd(28), r.refused ? "refused" : `${Math.round(r.ms)} ms, kills ${r.kills}${r.honest ? "" : ", honest line lost"}`, `idle ${r.idleTicks}`);
