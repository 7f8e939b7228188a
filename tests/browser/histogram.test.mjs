// The viewer's line-time percentiles (www/histogram.js) against sorting every time: within 1 %
// above the exact value, never below it, the maximum exact. Node only, no browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TimeHistogram } from "../../www/histogram.js";
import { mulberry32 } from "../../www/chunks.js";

test("TimeHistogram percentiles are within 1 % of the sorted times, and the maximum is exact", () => {
  const empty = new TimeHistogram();
  assert.ok(Number.isNaN(empty.percentile(50)) && Number.isNaN(empty.max));
  const rand = mulberry32(3);
  // Line times as the viewer sees them: mostly tenths of a millisecond, a long tail, some zeros.
  const times = Array.from({ length: 20000 }, () => (rand() < 0.1 ? 0 : Math.round(10 * 0.1 * Math.exp(rand() * 7)) / 10));
  const hist = new TimeHistogram();
  for (const t of times) hist.add(t);
  const sorted = [...times].sort((a, b) => a - b);
  for (const p of [1, 10, 50, 90, 99, 99.9, 100]) {
    const exact = sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
    const got = hist.percentile(p);
    assert.ok(got >= exact && got <= exact * 1.01 + 1e-9, `p${p}: ${got} for ${exact}`);
  }
  assert.equal(hist.max, sorted.at(-1));
  assert.equal(hist.count, times.length);
});
