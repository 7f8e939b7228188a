// The differential corpus in the headless browser (Chromium, Firefox ESR or WebKitGTK:
// PARSEBOX_BROWSER), with every core kept busy by a CPU hog this test starts itself (issue 40).
// Budgets count the engine's work, not the clock, so a busy machine must change nothing a user
// sees: every parser gives Node's entries, inline and in real Web Workers, and no honest line
// falls back. It also ran once without the hogs, with the same assertion: a minute and a half of
// a CI run over the three browsers, for no case the loaded run does not check. A failure names
// its cases; `node tests/fuzz/run.mjs --corpus --browser [--match NAME]` runs them in Chromium
// without the hogs.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

import { readCorpus } from "../fuzz/corpus.mjs";
import { KNOWN, OPEN, runCase } from "../fuzz/differential.mjs";
import { browserPackage } from "../fuzz/browser.mjs";
import { BROWSER } from "./harness.mjs";

const chromium = await browserPackage();
const hogs = [];
const stopHogs = () => {
  for (const h of hogs.splice(0)) h.kill("SIGKILL");
};
after(async () => {
  stopHogs();
  await chromium.close();
});

/** Every corpus case through the browser: `name → mismatch labels` for the cases that differ. */
async function corpusRun() {
  const differing = {};
  for (const c of readCorpus()) {
    const { mismatches } = await runCase(c, { target: chromium });
    // An open finding (tests/fuzz/README.md) is not this test's concern; anything else is.
    const other = mismatches.filter((m) => !OPEN.has(m.known));
    // The first difference itself goes with the label: a rare one must be readable from CI's log.
    if (other.length) differing[c.name] = other.map((m) => `${m.check} (${m.host}): ${m.known ? KNOWN[m.known] : "NEW"} at ${m.perLine ? "line" : "entry"} ${m.index + 1}: ${JSON.stringify(m.diffs?.[0] ?? null).slice(0, 1500)}; diagnostics: ${JSON.stringify(m.diagnostics ?? null)}`);
  }
  return differing;
}

test(`the corpus gives Node's entries in ${BROWSER} with every core kept busy by a CPU hog`, async () => {
  // One spinning process per core, started here, so the run is loaded however CI's machine is.
  for (let i = 0; i < availableParallelism(); i++) {
    hogs.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  }
  try {
    assert.deepEqual(await corpusRun(), {});
  } finally {
    stopHogs();
  }
});
