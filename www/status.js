// The viewer's parser panel: the adapter's status (its state, entry point, module format, host and the history
// of states; a load error with the source around its position) and the registry's diagnostics
// beside the viewer's own timings.
import { h, formatMs } from "./render.js";

const $ = (id) => document.getElementById(id);

const STATE_TEXT = { generic: "generic", loading: "loading…", ready: "ready", failed: "failed", builtin: "built-in" };

export function renderStatus(run) {
  const s = run.status;
  const pill = $("status-pill");
  pill.textContent = STATE_TEXT[s.state] ?? s.state;
  pill.dataset.state = s.state;
  $("status-type").textContent = run.type;
  const via = [
    s.entryPoint && `via ${s.entryPoint}()`,
    s.module && (s.module.format === "esm" ? "ES module" : "CommonJS module"),
    s.contractVersion && `contract ${s.contractVersion}`,
    run.sourceName && `from ${run.sourceName}`,
    s.host === "worker" && "in the worker host",
  ];
  const hostEl = $("status-host");
  if (hostEl) {
    hostEl.hidden = s.host !== "worker";
    hostEl.textContent = s.host === "worker" ? `Runs in a Web Worker: ${s.hostReason}` : "";
  }
  $("status-entry").textContent = via.filter(Boolean).join(" · ");
  $("status-timeline").replaceChildren(
    ...run.statusHistory.map((x) => h("li", { "data-state": x.state }, h("span", { text: x.state }), h("time", { text: `+${formatMs(x.t)}` }))),
  );
  const reasonEl = $("status-reason");
  const excerpt = $("status-excerpt");
  reasonEl.hidden = !s.reason;
  excerpt.hidden = true;
  if (!s.reason) return;
  reasonEl.replaceChildren();
  reasonEl.dataset.state = s.state;
  reasonEl.append(h("strong", { text: s.state === "failed" ? "Parser failed to load: " : "Note: " }), h("span", { testid: "status-reason-text", text: s.reason }));
  // A load error with a position in the source (a syntax error): point at it.
  if (s.error?.line && s.error?.column) {
    const line = s.error.line;
    const col = s.error.column;
    reasonEl.append(h("div.location", { testid: "status-location", text: `line ${line}, column ${col}` }));
    if (run.source) {
      // A window of the source around the column, so the caret is visible on a phone too.
      const lines = run.source.split(/\r?\n/);
      const from = Math.max(0, col - 28);
      const cut = (text) => (from > 0 ? `…${text.slice(from + 1, from + 56)}` : text.slice(0, 56));
      const shown = [];
      for (let n = Math.max(1, line - 2); n <= Math.min(lines.length, line); n++) shown.push(`${String(n).padStart(4)} | ${cut(lines[n - 1])}`);
      shown.push(`${" ".repeat(4)} | ${" ".repeat(Math.max(0, col - 1 - from))}^`);
      excerpt.textContent = shown.join("\n");
      excerpt.hidden = false;
    }
  }
}

function reasonList(el, counts) {
  const rows = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  el.replaceChildren(...(rows.length ? rows.map(([k, n]) => h("li", { "data-reason": k }, h("code", { text: k }), h("span", { text: String(n) }))) : [h("li.muted", { text: "none" })]));
}

export function renderDiagnostics(run, reset = false) {
  const d = reset ? null : run.registry.diagnostics(run.type);
  $("d-lines").textContent = String(d?.linesParsed ?? 0);
  $("d-by-parser").textContent = String(d?.linesByParser ?? 0);
  $("d-entries").textContent = String(run.entries.length);
  const times = run.lineHistogram;
  $("d-p50").textContent = formatMs(times.percentile(50));
  $("d-p99").textContent = formatMs(times.percentile(99));
  $("d-max").textContent = formatMs(times.max);
  $("d-p50").title = $("d-p99").title = `${times.count} lines, timed around TranscriptBuilder.push (to within 1 %)`;
  $("d-load").textContent = d?.loadMs == null ? "—" : formatMs(d.loadMs);
  $("d-ready").textContent = run.readyAt !== null && run.loadingAt !== null ? formatMs(run.readyAt - run.loadingAt) : "—";
  $("d-rebuild").textContent = run.rebuildMs === null ? "—" : formatMs(run.rebuildMs);
  $("d-first").textContent = run.firstEntryMs === null ? "—" : formatMs(run.firstEntryMs);
  reasonList($("d-fallbacks"), d?.fallbacks);
  reasonList($("d-dropped"), d?.droppedEntries);
  const last = $("d-last-error");
  last.hidden = !d?.lastError;
  if (d?.lastError) last.replaceChildren(h("strong", { text: "last error: " }), h("span", { text: d.lastError }));
}
