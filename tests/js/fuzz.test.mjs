// The differential fuzzer's bounded slice (tests/fuzz/README.md): every corpus case, a random
// slice from a fixed seed and one from the clock (its seed printed on failure), and the
// exact-values property over 10^6 doubles and random nested values; each inline and in a
// Worker, every answer compared with Node's byte for byte.
import { test } from "node:test";
import assert from "node:assert/strict";

import { readCorpus } from "../fuzz/corpus.mjs";
import { KNOWN, OPEN, describe, runCase } from "../fuzz/differential.mjs";
import { generateCase } from "../fuzz/generate.mjs";
import { formatting } from "../fuzz/formatting.mjs";
import { roundTrip } from "../fuzz/roundtrip.mjs";

/** The failure text: which known bug each mismatch is (or NEW), then the details. */
function explain(c, mismatches) {
  const kinds = [...new Set(mismatches.map((m) => (m.known ? KNOWN[m.known] : "NEW mismatch")))];
  return `${c.name}: ${kinds.join("; ")}\n${mismatches.map((m) => describe(m, c)).join("\n")}`;
}

/** Whether every mismatch is a finding still open (tests/fuzz/README.md lists them). */
const onlyOpen = (mismatches) => mismatches.length > 0 && mismatches.every((m) => OPEN.has(m.known));

for (const c of readCorpus()) {
  test(`corpus ${c.name}: identical to Node inline and in a Worker`, async (t) => {
    const { mismatches } = await runCase(c);
    // An open finding is reported as a TODO with what it is; anything else fails.
    if (onlyOpen(mismatches)) return t.todo(explain(c, mismatches).split("\n")[0]);
    assert.equal(mismatches.length, 0, explain(c, mismatches));
  });
}

/** Runs `count` generated cases from `seed` on; the failures' descriptions. */
async function slice(seed, count) {
  const failures = [];
  for (let i = 0; i < count; i++) {
    const c = generateCase((seed + i) >>> 0);
    const { mismatches } = await runCase(c);
    if (mismatches.length && !onlyOpen(mismatches)) failures.push(`case seed ${c.seed} (node tests/fuzz/run.mjs --seed ${c.seed} --cases 1)\n${explain(c, mismatches)}`);
  }
  return failures;
}

test("a random slice from a fixed seed is identical to Node", async () => {
  const failures = await slice(20260101, 20);
  assert.deepEqual(failures, [], failures.join("\n\n"));
});

test("a random slice from the clock's seed is identical to Node", async () => {
  const seed = Date.now() >>> 0;
  const failures = await slice(seed, 10);
  assert.deepEqual(failures, [], `seed ${seed}:\n${failures.join("\n\n")}`);
});

for (const host of ["inline", "worker"]) {
  test(`10^6 doubles from random bit patterns and 1,000 nested values arrive exactly (${host})`, async () => {
    const r = await roundTrip({ host, seed: 40, doubles: 1_000_000, values: 1000 });
    assert.ok(r.compared >= 1_001_000, `${r.compared} values compared`);
    const labels = [r.offByUlp && `${KNOWN["float-ulp"]} (${r.offByUlp})`, r.toJSONKey && `${KNOWN["tojson-key"]} (${r.toJSONKey})`, r.failed > r.offByUlp + r.toJSONKey && `NEW mismatch (${r.failed - r.offByUlp - r.toJSONKey})`].filter(Boolean);
    assert.deepEqual(r.problems, [], `${r.failed} of ${r.compared} values differ: ${labels.join("; ")}\n${r.problems.join("\n")}`);
  });
}

test("toFixed, toExponential and toPrecision answer as Node for 50,000 random doubles and digit counts", async () => {
  const r = await formatting({ seed: 27, lines: 500, perLine: 100 });
  assert.equal(r.compared, 50_000);
  assert.deepEqual(r.problems, [], r.problems.join("\n"));
});
