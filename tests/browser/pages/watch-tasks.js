// The page thread's long tasks, as a test or a benchmark page measures them in every engine.
// worker.test.mjs asserts on them; bench-engines.mjs reports the longest.

/**
 * Watches the page thread's tasks until the returned function is called, which returns the
 * lengths (ms, rounded) of those of `atLeastMs` or more. Chromium's long-task entries where the
 * browser has them (50 ms or more only); elsewhere (Firefox, WebKit) the gaps of a chain of
 * zero-delay timers, which run every 4 ms or so on an idle thread, so a gap that long is a task
 * that long, or tasks back to back.
 */
export function watchTasks({ atLeastMs = 50 } = {}) {
  const tasks = [];
  if (PerformanceObserver.supportedEntryTypes?.includes("longtask")) {
    const observer = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (e.duration >= atLeastMs) tasks.push(Math.round(e.duration));
    });
    observer.observe({ type: "longtask" });
    return () => {
      observer.disconnect();
      return tasks;
    };
  }
  let on = true;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    if (now - last >= atLeastMs) tasks.push(Math.round(now - last));
    last = now;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return () => {
    on = false;
    return tasks;
  };
}
