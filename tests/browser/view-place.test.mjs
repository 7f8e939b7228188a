// The timeline view (www/render.js's TranscriptView) fed timeline changes directly, in each
// browser: where the reader is when a late answer takes their row away and a later one gives
// their line a row again. A Worker's answers may come out of order (a finished run spread over
// several Workers) or join a line into the row above for a frame, and a fresh run's Firefox
// once showed the reader the row above their line (viewer-large: "the row that holds line 4792
// is at the top", a tool card of line 4785 there instead): the view put the row that held their
// line at the top when their row went, and stayed on it when their row came back.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { openReady, serve } from "./harness.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const server = await serve(ROOT, {
  "/view-place.html": () => ({
    type: "text/html; charset=utf-8",
    body: `<!doctype html><meta charset="utf-8">
<style>body { margin: 0 } #pane { height: 600px; overflow-y: auto; overflow-anchor: none }</style>
<div id="pane"><div id="root"></div></div>
<script type="module">
  import { TranscriptView } from "/www/render.js";
  const pane = document.getElementById("pane");
  const root = document.getElementById("root");
  const view = new TranscriptView(root, pane);
  // One row a line, lines 0..2999, each a system line of its own.
  const item = (line) => ({ id: "e" + line, type: "system", entries: [line], content: "line " + line, timestamp: "2026-01-01T00:00:00.000Z" });
  const items = Array.from({ length: 3000 }, (_, line) => item(line));
  const entries = items.map((it) => ({ kind: "system", ts: it.timestamp, text: it.content }));
  view.reset(items, entries);
  view.draw({ follow: false });
  const frames = async (n) => { for (let k = 0; k < n; k++) await new Promise((r) => requestAnimationFrame(() => r())); };
  /** The rows on screen, top to bottom: id and top (px from the pane's top). */
  const shown = () => {
    const top = pane.getBoundingClientRect().top;
    return [...root.querySelectorAll("[data-testid=timeline-item]")]
      .map((e) => ({ id: e.dataset.id, top: e.getBoundingClientRect().top - top, bottom: e.getBoundingClientRect().bottom - top }))
      .filter((r) => r.bottom > 0 && r.top < pane.clientHeight)
      .map(({ id, top }) => ({ id, top }));
  };
  /** The reader scrolls (their hand on the pane) until line \`line\`'s row is at the top. */
  window.readAt = async (line) => {
    pane.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
    const el = () => root.querySelector('[data-id="e' + line + '"]');
    for (let tries = 0; tries < 20 && !(el() && Math.abs(el().getBoundingClientRect().top - pane.getBoundingClientRect().top) < 1); tries++) {
      const row = el();
      pane.scrollTop = row ? pane.scrollTop + row.getBoundingClientRect().top - pane.getBoundingClientRect().top : (pane.scrollHeight * line) / 3000;
      await frames(2);
      view.draw({ follow: false });
    }
    pane.dispatchEvent(new PointerEvent("pointerup", { bubbles: true }));
    return shown();
  };
  /** A frame of late answers: each line's row taken away (null) or given back; then a draw. */
  window.answer = async (changes) => {
    view.apply(new Map(changes.map(([line, there]) => ["e" + line, there ? item(line) : null])), entries);
    view.draw({ follow: false });
    await frames(2);
    return shown();
  };
  /**
   * A rebuild under the reader (a parser came ready): the timeline from scratch without the rows
   * of \`joined\` (the parser joined those lines into the row above), its first 1,000 rows at
   * once and the rest a frame later, as the viewer takes a rebuild in slices.
   */
  window.rebuild = async (joined) => {
    const kept = items.filter((_, line) => !joined.includes(line));
    view.reset(kept.slice(0, 1000), entries, { keepPlace: true });
    view.draw({ follow: false });
    await frames(2);
    view.apply(new Map(kept.slice(1000).map((it) => [it.id, it])), entries);
    view.draw({ follow: false });
    await frames(2);
    return shown();
  };
  window.ready = true;
</script>`,
  }),
});
after(() => server.close());

/**
 * A late answer gives line 1500, the reader's, a row of its own: the reader is back on it, to
 * the pixel; then rows coming back for lines 1498 and 1499, above it, do not move them.
 */
async function backOnLine1500(page) {
  const back = await page.evaluate(() => window.answer([[1500, true]]));
  assert.equal(back[0].id, "e1500", `the reader's own line is at the top again (${JSON.stringify(back.slice(0, 3))})`);
  assert.ok(Math.abs(back[0].top) < 1, `at the top, to the pixel (${back[0].top})`);
  const later = await page.evaluate(() => window.answer([[1498, true], [1499, true]]));
  assert.equal(later[0].id, "e1500", `rows coming back above it do not move the reader (${JSON.stringify(later.slice(0, 3))})`);
}

test("a reader whose row a late answer took away is back on their line when a later answer gives it a row again", async (t) => {
  const errors = [];
  const { browser, page } = await openReady(server, "/view-place.html", errors);
  t.after(() => browser.close());
  const start = await page.evaluate(() => window.readAt(1500));
  assert.equal(start[0].id, "e1500", `the reader reads line 1500 (${JSON.stringify(start.slice(0, 3))})`);

  // Lines 1494-1500 go (their answers join them into line 1493's row): the row that holds line
  // 1500 now, 1493's, is at the top.
  const joined = await page.evaluate(() => window.answer([1494, 1495, 1496, 1497, 1498, 1499, 1500].map((l) => [l, false])));
  assert.equal(joined[0].id, "e1493", `the row that holds line 1500 is at the top (${JSON.stringify(joined.slice(0, 3))})`);
  assert.ok(Math.abs(joined[0].top) < 1, `at the top, to the pixel (${joined[0].top})`);

  // A later answer gives line 1497 a row again: it holds line 1500 now.
  const nearer = await page.evaluate(() => window.answer([[1497, true]]));
  assert.equal(nearer[0].id, "e1497", `the row that now holds line 1500 is at the top (${JSON.stringify(nearer.slice(0, 3))})`);

  // And line 1500 its own: the reader is back on their line, and stays there.
  await backOnLine1500(page);
  assert.deepEqual(errors, []);
});

test("once the reader scrolls, a row that comes back for the line they had read does not move the view", async (t) => {
  const errors = [];
  const { browser, page } = await openReady(server, "/view-place.html", errors);
  t.after(() => browser.close());
  await page.evaluate(() => window.readAt(1500));
  await page.evaluate(() => window.answer([1497, 1498, 1499, 1500].map((l) => [l, false])));
  // The reader moves on to line 1600: that is their place now.
  const moved = await page.evaluate(() => window.readAt(1600));
  assert.equal(moved[0].id, "e1600");
  const after = await page.evaluate(() => window.answer([[1500, true]]));
  assert.equal(after[0].id, "e1600", `the reader stays on line 1600 (${JSON.stringify(after.slice(0, 3))})`);
  assert.ok(Math.abs(after[0].top) < 1, `at the top, to the pixel (${after[0].top})`);
  assert.deepEqual(errors, []);
});

test("after a rebuild put the row above the reader's line at the top, a late answer that gives their line a row of its own brings them back to it", async (t) => {
  // viewer-large in Chromium, a fresh run: the rebuild joined line 4207 into line 4205's row and
  // put that row at the top; a late answer split line 4207 out again and the view stayed on 4205.
  const errors = [];
  const { browser, page } = await openReady(server, "/view-place.html", errors);
  t.after(() => browser.close());
  await page.evaluate(() => window.readAt(1500));
  const rebuilt = await page.evaluate(() => window.rebuild([1498, 1499, 1500]));
  assert.equal(rebuilt[0].id, "e1497", `the row that holds line 1500 after the rebuild is at the top (${JSON.stringify(rebuilt.slice(0, 3))})`);
  assert.ok(Math.abs(rebuilt[0].top) < 1, `at the top, to the pixel (${rebuilt[0].top})`);
  await backOnLine1500(page);
  assert.deepEqual(errors, []);
});
