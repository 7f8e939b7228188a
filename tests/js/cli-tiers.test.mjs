// The npm command's V8 tiering budget (cli/tiers.js): set unless the person running the
// command chose how V8 compiles wasm on node's command line; and the command gives the same
// report whatever the tiers. What the budget buys is a benchmark's (tests/bench/cli-tiers.mjs): which tier
// runs the engine's code changes no output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import { TIERING_BUDGET, tieringFlags } from "../../pkg/cli/tiers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the command sets its tiering budget unless wasm's compile was chosen on node's command line", () => {
  const ours = [`--wasm-tiering-budget=${TIERING_BUDGET}`];
  assert.deepEqual(tieringFlags([]), ours);
  assert.deepEqual(tieringFlags(["--max-old-space-size=4096", "--enable-source-maps", "--stack-size=2000"]), ours);
  for (const theirs of ["--liftoff-only", "--no-liftoff", "--liftoff", "--wasm-tiering-budget=5", "--wasm_tiering_budget=5", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering", "--wasm-lazy-compilation"]) {
    assert.deepEqual(tieringFlags(["--max-old-space-size=4096", theirs]), [], theirs);
  }
  // A value that merely mentions a flag is not one.
  assert.deepEqual(tieringFlags(["--title=--liftoff-only"]), ours);
});

test("the command gives the same report with its budget, V8's default and the baseline tier only", () => {
  const args = ["check", join(root, "www/samples/codex_local/ui-parser.js"), "--log", join(root, "www/samples/codex_local/run.ndjson"), "--json"];
  const reports = [[], ["--wasm-tiering-budget=1800000"], ["--liftoff-only"]].map((flags) => {
    const r = spawnSync(process.execPath, [...flags, join(root, "pkg/cli.js"), ...args], { encoding: "utf8" });
    assert.equal(r.status, 0, `node ${flags.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  });
  assert.deepEqual(reports[1], reports[0]);
  assert.deepEqual(reports[2], reports[0]);
});
