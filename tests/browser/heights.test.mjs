// The viewer's row heights (www/heights.js, a Fenwick tree) against a plain array: every start
// offset, every row lookup and the total agree after random appends, drops, changes, and
// inserts and removals in the middle. Node only, no browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Heights } from "../../www/heights.js";
import { mulberry32 } from "../../www/chunks.js";

/** What Heights must say, by summing an array. */
function check(heights, plain, note) {
  assert.equal(heights.length, plain.length, note);
  let sum = 0;
  for (let i = 0; i < plain.length; i++) {
    assert.equal(heights.get(i), plain[i], `${note}: height of ${i}`);
    assert.equal(heights.start(i), sum, `${note}: start of ${i}`);
    // Inside the row, and at its first pixel, the row is found (zero-height rows are skipped).
    if (plain[i] > 0) {
      assert.equal(heights.indexAt(sum), i, `${note}: row at ${sum}`);
      assert.equal(heights.indexAt(sum + plain[i] - 0.5), i, `${note}: row at ${sum + plain[i] - 0.5}`);
    }
    sum += plain[i];
  }
  assert.equal(heights.total, sum, `${note}: total`);
  if (plain.length) {
    assert.equal(heights.indexAt(-10), 0, `${note}: above the first row`);
    assert.equal(heights.indexAt(sum + 10), plain.length - 1, `${note}: below the last row`);
  } else assert.equal(heights.indexAt(0), 0, `${note}: empty`);
}

test("Heights agrees with a plain array through appends, drops, changes, inserts and removals", () => {
  const rand = mulberry32(7);
  const h = () => Math.floor(rand() * 60); // 0 included: a row may be empty
  const heights = new Heights();
  const plain = [];
  check(heights, plain, "empty");
  for (let step = 0; step < 3000; step++) {
    const x = rand();
    let what;
    if (x < 0.5 || plain.length === 0) {
      const v = h();
      heights.push(v);
      plain.push(v);
      what = "push";
    } else if (x < 0.6) {
      heights.pop();
      plain.pop();
      what = "pop";
    } else if (x < 0.8) {
      const i = Math.floor(rand() * plain.length);
      const v = h();
      heights.set(i, v);
      plain[i] = v;
      what = `set ${i}`;
    } else if (x < 0.9) {
      const i = Math.floor(rand() * (plain.length + 1));
      const v = h();
      heights.insert(i, v);
      plain.splice(i, 0, v);
      what = `insert ${i}`;
    } else {
      const i = Math.floor(rand() * plain.length);
      heights.remove(i);
      plain.splice(i, 1);
      what = `remove ${i}`;
    }
    if (step % 50 === 0 || step > 2950) check(heights, plain, `step ${step} (${what})`);
  }
  heights.reset(1000, (i) => (i % 7) * 3);
  check(heights, Array.from({ length: 1000 }, (_, i) => (i % 7) * 3), "reset");
});
