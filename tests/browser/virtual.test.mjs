// The viewer's windowed list (www/virtual.js) alone, in each browser: the reader's row stays where
// it is while rows above it change height by fractions of a pixel, draw after draw. WebKit
// scrolls by whole pixels while rows are laid out in fractions; a list that took its place back
// from the rounded scroll position after each draw lost the fraction every time, and the reader's
// row crept down the screen (issue 56: "the row above ended 1.016 px into the view"). A place
// taken from a scroll position a fraction of a pixel above a row is that row, not the one above
// it (a CI run saw the reader's row pushed 2.7 px down when the row above it grew).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { openReady, serve } from "./harness.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROWS = 2000;
const server = await serve(ROOT, {
  "/virtual.html": () => ({
    type: "text/html; charset=utf-8",
    body: `<!doctype html><meta charset="utf-8">
<style>body { margin: 0 } #pane { height: 600px; overflow-y: auto; overflow-anchor: none } #root > div { box-sizing: border-box; overflow: hidden }</style>
<div id="pane"><div id="root"></div></div>
<script type="module">
  import { VirtualList } from "/www/virtual.js";
  const pane = document.getElementById("pane");
  const root = document.getElementById("root");
  // Row heights in fractions of a pixel, as text wrapped in a proportional font gives.
  const heights = Array.from({ length: ${ROWS} }, (_, i) => 30 + ((i * 7) % 10) / 8);
  const list = new VirtualList(root, pane, {
    key: (i) => i,
    build: (i) => {
      const el = document.createElement("div");
      el.dataset.row = String(i);
      el.style.height = heights[i] + "px";
      el.textContent = "row " + i;
      return el;
    },
  });
  list.reset(heights.length);
  list.draw();
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  /** Where row i's top is, in px from the pane's top (negative: above it). */
  const topOf = (i) => {
    const el = root.querySelector('[data-row="' + i + '"]');
    return el ? el.getBoundingClientRect().top - pane.getBoundingClientRect().top : null;
  };
  /** The reader scrolls to y; the row at the top then is theirs. */
  window.scrollReader = async (y) => {
    pane.scrollTop = y;
    await frame();
    await frame();
    list.draw();
    const held = list.place();
    return { held, top: topOf(held.i), scrollTop: pane.scrollTop };
  };
  /** Rows in the DOM above row i grow by dy px each (their content changed), then a draw. */
  window.growAbove = (i, dy) => {
    for (const el of root.children) {
      const r = Number(el.dataset.row);
      if (r >= i) continue;
      heights[r] += dy;
      list.changed(r);
    }
    list.draw();
    return { top: topOf(i), scrollTop: pane.scrollTop, place: list.place() };
  };
  /**
   * The reader scrolls to the whole pixel just above row i's top (as a browser rounds a scroll
   * position), so the row above shows by a fraction of a pixel; the row at the top is then theirs.
   */
  window.scrollJustAbove = async (i) => {
    const y = Math.floor(pane.scrollTop + topOf(i));
    pane.scrollTop = y;
    await frame();
    await frame();
    list.draw();
    return { held: list.place(), top: topOf(i), scrollTop: pane.scrollTop };
  };
  window.ready = true;
</script>`,
  }),
});
after(() => server.close());

test("the reader's row holds within a pixel while rows above it grow by fractions, draw after draw", async (t) => {
  const errors = [];
  const { browser, page } = await openReady(server, "/virtual.html", errors);
  t.after(() => browser.close());
  const start = await page.evaluate(() => window.scrollReader(20_000));
  assert.ok(start.held && start.top !== null, `a row is at the top (${JSON.stringify(start)})`);
  // Each draw's change is under a pixel (a few rows of the margin above, 0.05 px each); forty
  // of them move the rows above by many pixels in all.
  const tops = [];
  for (let step = 0; step < 40; step++) {
    const now = await page.evaluate(([i]) => window.growAbove(i, 0.05), [start.held.i]);
    tops.push(now.top);
    const where = `draw ${step + 1}: row ${start.held.i} at ${now.top} px, its place ${-start.held.off} px (scrollTop ${start.scrollTop} → ${now.scrollTop}; tops ${tops.map((t) => t.toFixed(2)).join(" ")})`;
    // The place is the reader's row and how far into it, unchanged; the row shows there to within
    // the half pixel the browser rounds the scroll position by (and a layout unit, 1/64 px).
    assert.deepEqual(now.place, start.held, `${where}: the reader's place changed`);
    assert.ok(Math.abs(now.top + start.held.off) <= 0.5 + 1 / 64, `${where}: the row is more than half a pixel from its place`);
  }
  assert.deepEqual(errors, []);
});

test("a reader scrolled to a fraction of a pixel above a row keeps that row at the top when the rows above it grow", async (t) => {
  const errors = [];
  const { browser, page } = await openReady(server, "/virtual.html", errors);
  t.after(() => browser.close());
  const start = await page.evaluate(() => window.scrollReader(20_000));
  // A row whose top is not on a whole pixel (heights are eighths of one).
  let at;
  for (let i = start.held.i + 2; i < start.held.i + 10 && !at; i++) {
    const now = await page.evaluate((i) => window.scrollJustAbove(i), i);
    const fraction = now.top;
    if (fraction > 0.01 && fraction < 1) at = { i, ...now };
  }
  assert.ok(at, "a row that starts between two whole pixels");
  assert.equal(at.held.i, at.i, `the place is the row that starts ${at.top} px below the top (${JSON.stringify(at)})`);
  // The rows above it (the one showing by a fraction included) grow by 3 px each.
  const grown = await page.evaluate((i) => window.growAbove(i, 3), at.i);
  assert.ok(Math.abs(grown.top - at.top) < 1, `row ${at.i} stayed at ${at.top} px, is at ${grown.top} px (${JSON.stringify(grown)})`);
  assert.deepEqual(errors, []);
});
