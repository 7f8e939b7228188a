// Benchmark (not a test): the viewer on a 100,000-line run in headless Chromium (issue 16, "the
// page never blocks"). The generated run (large-run.mjs) is served in place of the hermes_local
// sample's stored run and played at the viewer's fastest speed (20×, rows 20 ms apart: 1 ms) or
// all at once; every main-thread task over 50 ms is caught by a PerformanceObserver from the
// first script on, and laid against the viewer's own record of parsebox calls and renders over
// 40 ms to say what it was.
//
//   node tests/browser/bench-viewer.mjs [--lines 100000] [--trials 3] [--all] [--limit 600] [--root DIR] [--profile]
// --profile samples the page's main thread (DevTools CPU profiler) and prints each trial's
// functions by self time.
//
// --root serves another checkout (its www/ and pkg/), e.g. a `git worktree` of the commit before
// a change, to measure before and after with the same run and the same script.
//
// Prints, per trial and as a median: the long-task histogram, the worst task and its cause, the
// DOM size at the end (the whole page and the transcript), and the time from the run's start to
// its last entry on screen.
import { launch } from "./harness.mjs";
import { largeRun } from "./large-run.mjs";
import { startServer } from "../../www/server.mjs";

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 || process.argv[i + 1] === undefined ? fallback : process.argv[i + 1];
}
const lines = Number(arg("lines", 100000));
const trials = Number(arg("trials", 3));
const allAtOnce = process.argv.includes("--all");
const profiling = process.argv.includes("--profile");
const limitS = Number(arg("limit", 600)); // seconds a trial may take to reach the last entry

const BUCKETS = [
  [50, 100],
  [100, 250],
  [250, 1000],
  [1000, Infinity],
];
const bucketName = ([lo, hi]) => (hi === Infinity ? `>${lo}` : `${lo}–${hi}`);

const run = largeRun(lines);
const root = arg("root", null);
const server = await startServer({ port: 0, ...(root ? { root, samples: `${root}/www/samples` } : {}) });
const browser = await launch();
/** The 25 functions with the most self time in a CPU profile, with their share. */
function printProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const busy = [...self].filter(([k]) => !k.startsWith("(idle)"));
  const total = busy.reduce((a, [, us]) => a + us, 0);
  console.log(`  profile: ${(total / 1000).toFixed(0)} ms busy; by self time:`);
  for (const [k, us] of busy.sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`    ${(us / 1000).toFixed(0).padStart(6)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function trial() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
  });
  const cdp = profiling ? await context.newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.start");
  }
  await page.route("**/www/samples/hermes_local/run.ndjson", (route) => route.fulfill({ status: 200, contentType: "application/x-ndjson", body: run.ndjson }));
  await page.goto(`${server.url}/www/?sample=hermes_local&speed=20${allAtOnce ? "&autoplay=0" : ""}`);
  if (allAtOnce) {
    await page.waitForFunction(() => window.parseboxViewer?.runs.length === 1, null, { timeout: 60_000 });
    await page.click("[data-testid=replay-all-button]");
  }
  // The frame in which the last entry is drawn: the count is written in the same render. A
  // viewer that has not got there by the limit is reported as it stands.
  let endMs = null;
  try {
    const lastAt = await page.waitForFunction(
      (n) => window.parseboxViewer.phase === "done" && document.getElementById("entry-count").dataset.count === String(n) && performance.now(),
      run.expected.length,
      { timeout: limitS * 1000, polling: "raf" },
    );
    endMs = await lastAt.jsonValue();
  } catch (e) {
    if (e.name !== "TimeoutError") throw e;
  }
  await page.waitForTimeout(500); // trailing tasks reach the observer
  if (cdp) printProfile((await cdp.send("Profiler.stop")).profile);
  const r = await page.evaluate((last) => {
    const v = window.parseboxViewer.runs[0];
    const pane = document.getElementById("pane").getBoundingClientRect();
    const el = document.querySelector(`#transcript [data-index="${last}"]`)?.getBoundingClientRect();
    return {
      startedAt: v.startedAt,
      tasks: window.__longTasks,
      calls: v.longTasks,
      lineCount: v.lineTimes.length,
      shown: Number(document.getElementById("entry-count").dataset.count),
      now: performance.now(),
      pushMs: v.lineTimes.reduce((a, b) => a + b, 0),
      nodes: document.getElementsByTagName("*").length,
      transcriptNodes: document.getElementById("transcript").getElementsByTagName("*").length,
      lastVisible: !!el && el.bottom > pane.top && el.top < pane.bottom,
    };
  }, run.expected.length - 1);
  await context.close();
  if (errors.length) throw errors[0];

  // What each long task was: the recorded call or render that overlaps it most.
  const causeOf = (t) => {
    let best = null;
    let overlap = 0;
    for (const c of r.calls) {
      const o = Math.min(t.start + t.ms, c.start + c.ms) - Math.max(t.start, c.start);
      if (o > overlap) [best, overlap] = [c, o];
    }
    return best ? best.what : "other";
  };
  const tasks = r.tasks.filter((t) => t.start >= r.startedAt).map((t) => ({ ...t, cause: causeOf(t) }));
  const histogram = BUCKETS.map(([lo, hi]) => tasks.filter((t) => t.ms >= lo && t.ms < hi));
  const worst = tasks.reduce((a, t) => (t.ms > (a?.ms ?? 0) ? t : a), null);
  return { ...r, tasks, histogram, worst, toLastMs: endMs === null ? null : endMs - r.startedAt };
}

const results = [];
console.log(`${lines.toLocaleString("en")} lines, ${run.rows.length.toLocaleString("en")} rows, ${run.expected.length.toLocaleString("en")} entries; ${allAtOnce ? "all at once" : "20×, rows 20 ms apart"}; ${trials} trials`);
for (let i = 0; i < trials; i++) {
  const r = await trial();
  results.push(r);
  const causes = (ts) => {
    const by = {};
    for (const t of ts) by[t.cause] = (by[t.cause] ?? 0) + 1;
    return Object.entries(by).map(([k, n]) => `${k} ${n}`).join(", ");
  };
  const reached = r.toLastMs === null ? `NOT reached: ${r.shown.toLocaleString("en")} entries drawn after ${((r.now - r.startedAt) / 1000).toFixed(0)} s` : `${(r.toLastMs / 1000).toFixed(1)} s (last entry visible: ${r.lastVisible})`;
  console.log(`trial ${i + 1}: to last entry ${reached}; DOM ${r.nodes.toLocaleString("en")} elements, transcript ${r.transcriptNodes.toLocaleString("en")}`);
  console.log(`  long tasks: ${r.tasks.length}, ${r.tasks.reduce((a, t) => a + t.ms, 0).toFixed(0)} ms in all; worst ${r.worst ? `${r.worst.ms.toFixed(0)} ms (${r.worst.cause})` : "none"}`);
  for (const [k, b] of BUCKETS.entries()) console.log(`  ${bucketName(b).padStart(9)} ms: ${String(r.histogram[k].length).padStart(4)}${r.histogram[k].length ? `  (${causes(r.histogram[k])})` : ""}`);
  const calls = {};
  for (const c of r.calls) {
    const k = (calls[c.what] ??= { n: 0, max: 0 });
    k.n += 1;
    k.max = Math.max(k.max, c.ms);
  }
  const callText = Object.entries(calls).map(([what, k]) => `${what} ×${k.n} (max ${k.max.toFixed(0)} ms)`).join(", ");
  console.log(`  parsebox push, summed over ${r.lineCount.toLocaleString("en")} lines: ${(r.pushMs / 1000).toFixed(1)} s; the viewer's calls and renders over 40 ms: ${callText || "none"}`);
}
const col = (f) => median(results.map(f));
console.log(`\nmedian of ${trials}: | ${BUCKETS.map((b, k) => `${bucketName(b)} ms: ${col((r) => r.histogram[k].length)}`).join(" | ")} | worst ${col((r) => r.worst?.ms ?? 0).toFixed(0)} ms | DOM ${col((r) => r.nodes)} elements (transcript ${col((r) => r.transcriptNodes)}) | to last entry ${results.every((r) => r.toLastMs !== null) ? `${(col((r) => r.toLastMs) / 1000).toFixed(1)} s` : "not reached in every trial"} |`);
await browser.close();
await server.close();
