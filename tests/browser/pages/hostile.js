// The attack suite's one run, in a page: a hostile parser under the browser's default host (a
// Worker), as a page that passes no host option gets it, with a 50 ms line budget and a 100 ms
// deadline. worker.test.mjs asserts on it; bench-attack-sweep.mjs times it. A page imports this
// module and calls `installHostile` with the package's two classes; it then has
// `window.runHostile(name, source)` and the frame-gap watch it reports (`window.maxGap`, the
// longest gap between two frames while `window.measuring` is set).
export function installHostile({ ParserRegistry, TranscriptBuilder }) {
  // Frame gaps, measured while hostile parsers run (from the first push to idle). A Worker
  // engine loads its parser off this thread; the run waits for it before measuring.
  window.maxGap = 0;
  window.measuring = false;
  let last = performance.now();
  const tick = (t) => {
    if (window.measuring) window.maxGap = Math.max(window.maxGap, t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));

  /**
   * Loads `source` as type `name`; if it is ready, pushes "before", "attack" and "after" and
   * waits for every answer. Returns `{ refused }` (the load's reason) or what the page saw:
   * the first push's texts, the texts at the end, the longest frame gap, the entries and
   * timeline items the frames' updates sent, the time from the push to idle, the host and the
   * type's counters.
   */
  window.runHostile = async (name, source) => {
    const registry = new ParserRegistry({ loadSource: null, lineBudgetMs: 50, hardDeadlineMs: 100 });
    registry.registerSource(name, source);
    await registry.idle();
    const status = registry.status(name);
    if (status.state !== "ready") {
      registry.dispose();
      return { refused: status.reason };
    }
    const builder = new TranscriptBuilder(registry, name);
    // The work the frames' folds did for this run, counted: the entries they made anew (an
    // update's entries are every entry from \`from\` on; those it did not change are the
    // objects the page holds already) and the timeline items they sent.
    const seen = new WeakSet();
    let updateWork = 0;
    builder.onUpdate((u) => {
      for (const e of u.entries) if (!seen.has(e)) { seen.add(e); updateWork++; }
      updateWork += u.timeline.changed.length + u.timeline.added.length + u.timeline.removed.length;
    });
    await nextFrame();
    window.measuring = true;
    const gapBefore = window.maxGap;
    window.maxGap = 0;
    const started = performance.now();
    const first = builder.push({ ts: "2026-01-01T00:00:01Z", stream: "stdout", chunk: "before\nattack\nafter\n" }).entries.map((e) => e.text);
    await registry.idle();
    await nextFrame();
    window.measuring = false;
    const gap = window.maxGap;
    window.maxGap = Math.max(gapBefore, gap);
    const ms = performance.now() - started;
    const out = { gap, updateWork, first, texts: builder.entries().map((e) => e.text), ms, host: registry.status(name).host, counters: registry.diagnostics(name).host };
    registry.dispose();
    return out;
  };
}
