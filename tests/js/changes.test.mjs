// The page's copy of a run's entries (pkg/changes.js), changed as the core's updates say: over
// generated copies and updates (entries dropped from the front, a stretch replaced by as many
// entries, by fewer or by more, the rest kept), the copy is what the whole list would be.
import { test } from "node:test";
import assert from "node:assert/strict";

import { applyChanges } from "../../pkg/changes.js";

/** A small deterministic generator (mulberry32). */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("an update leaves the copy equal to the whole list it describes, whatever the stretch replaced", () => {
  const rand = rng(55);
  const int = (n) => Math.floor(rand() * n);
  let made = 0;
  for (let round = 0; round < 2000; round++) {
    const before = Array.from({ length: int(40) }, () => ({ n: made++ }));
    const dropped = int(Math.min(before.length, 5) + 1) * (rand() < 0.3 ? 1 : 0);
    const rest = before.slice(dropped);
    const from = int(rest.length + 1);
    const replaced = int(rest.length - from + 1); // old entries the update replaces
    const entries = Array.from({ length: rand() < 0.5 ? replaced : int(6) }, () => ({ n: made++ }));
    const want = [...rest.slice(0, from), ...entries, ...rest.slice(from + replaced)];
    const copy = [...before];
    const kept = applyChanges(copy, { dropped, from, length: want.length, entries });
    assert.deepEqual(copy, want, `round ${round}: ${JSON.stringify({ before: before.length, dropped, from, replaced, entries: entries.length })}`);
    assert.equal(kept, rest.length - from - replaced);
  }
});
