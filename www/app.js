// The run-log viewer: streams a stored run into parsebox's TranscriptBuilder and renders the
// transcript as the Paperclip run page would, using only the published package API.
//
// Flow: a ParserRegistry answers the first lines with the generic parser at once while the
// adapter's ui-parser.js loads in the background; when onChange reports "ready" the transcript
// is rebuilt with the real parser. Chunks are fed one line at a time in short time slices so a
// parser that burns its whole line budget never shares a task with another line, and the DOM is
// updated once per animation frame from what push() reports: the timeline items that changed,
// were added or removed (the transcript view) and the entries from `from` on (the raw view).
import init, { ParserRegistry, TranscriptBuilder } from "../pkg/index.js";
import { chunkPlainText, detectFormat, parseStoredNdjson, splitForIngest } from "./chunks.js";
import { h, formatMs, moveEntries, RawView, TranscriptView } from "./render.js";
import { TimeHistogram } from "./histogram.js";
import { READER_EVENTS } from "./virtual.js";
import { SAMPLES, parserUrl, runUrl } from "./samples.js";
import { Player } from "./player.js";
import { renderDiagnostics, renderStatus } from "./status.js";

const $ = (id) => document.getElementById(id);
const SLICE_MS = 8; // ingestion work per task before yielding to the browser
const SAMPLE_TYPES = new Set(SAMPLES.map((s) => s.type));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const params = new URLSearchParams(location.search);

/** What tests and the benchmark read (window.parseboxViewer). */
const viewer = {
  phase: "init", // init → streaming → done
  runId: 0,
  wasmReadyMs: null, // since navigation start
  firstEntryMs: null, // since navigation start (first run only)
  firstEntryState: null, // the parser status when the first entry was rendered
  firstEntryFrameMs: null, // the next frame after that (the entry is painted)
  runs: [], // per run: { type, statusHistory, firstEntryMs, readyMs, rebuilds, rebuildMs, done, longTasks }
  error: null,
  /** The transcript list's last anchor changes (the reader's place), for a test that saw it move. */
  anchorTrace: () => view.list.anchorTrace(),
};
window.parseboxViewer = viewer;

// ---------------------------------------------------------------------------------------------
// Run state

let current = null; // the run being shown
const view = new TranscriptView($("transcript"), $("pane"));
const raw = new RawView($("raw"), $("pane"));
let rawActive = false;
let follow = true; // keep the newest entry in view
// At the end but not following, until a scroll moves the pane off it: a wheel turned up whose
// scroll has not moved the pane yet, or a rebuild that left fewer rows under a reader above the end.
let leavingEnd = false;

/** Resolves after the next frame has been produced (the first entries are on screen). */
const afterNextFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Parser source for sample types: Paperclip's route, or the same file under samples/. Compiling
 * a parser is one long task, so the source is handed over only after the next frame: the
 * generic lines already received get painted first.
 */
async function loadSampleParser(run, type) {
  const source = await fetchSampleParser(type, run.latencyMs);
  await afterNextFrame();
  run.handoffAt = performance.now();
  return source;
}

async function fetchSampleParser(type, delay) {
  const api = `/api/adapters/${encodeURIComponent(type)}/ui-parser.js${delay ? `?delay=${delay}` : ""}`;
  const r = await fetch(api, { cache: "no-store" });
  const isHtml = /text\/html/.test(r.headers.get("content-type") ?? "");
  if (r.ok && !isHtml) return r.text();
  if ((r.status === 404 || isHtml) && SAMPLE_TYPES.has(type)) {
    // A plain static server has no API route: read the same file from samples/.
    if (delay) await sleep(delay);
    const s = await fetch(parserUrl(type));
    if (s.ok) return s.text();
  }
  throw new Error(`GET ${api.replace(/\?.*/, "")}: ${r.status} ${r.statusText}`.trim());
}

/**
 * Starts a run: a fresh registry (so the parser loads again: generic → loading → ready), a
 * builder, and a player. `source`, when given, is registered at once (a dropped parser).
 */
function startRun(spec) {
  const { type, label, about = "", chunks, loader = "sample", source = null, sourceName = null, latencyMs = 0, note = "" } = spec;
  stopRun();
  const run = {
    id: ++viewer.runId,
    spec,
    type,
    label,
    chunks,
    latencyMs,
    source,
    sourceName,
    startedAt: performance.now(),
    queue: [],
    qi: 0,
    partial: "",
    entries: [],
    dirtyFrom: Infinity,
    items: new Map(), // timeline changes since the last frame: id -> item, or null when removed
    moves: [], // entry index moves since the last frame (the drawn items take them first)
    resetTimeline: null, // a whole timeline to draw from scratch (after a rebuild)
    lineTimes: [],
    lineHistogram: new TimeHistogram(), // the same times, for the percentiles on screen
    statusHistory: [],
    status: null,
    loadingAt: null,
    readyAt: null,
    rebuildMs: null,
    rebuilds: 0,
    firstEntryMs: null,
    finished: false,
    pumpTimer: null,
    lastDiag: 0,
  };
  current = run;
  // longTasks: main-thread calls into parsebox, and renders, over 40 ms ({ what, start, ms,
  // line? }), so a frame gap can be traced to the line, compile, rebuild or render that caused it.
  const record = { type, startedAt: run.startedAt, statusHistory: run.statusHistory, firstEntryMs: null, firstEntryState: null, readyMs: null, rebuilds: 0, rebuildMs: null, done: false, lineTimes: run.lineTimes, longTasks: [] };
  run.record = record;
  viewer.runs.push(record);
  viewer.phase = "streaming";

  // Samples load through Paperclip's route; a dropped parser is registered directly, and
  // loading is disabled so a custom type without a parser stays generic.
  const budget = Number(params.get("budget"));
  run.registry = new ParserRegistry({
    loadSource: loader === "sample" ? (t) => loadSampleParser(run, t) : null,
    ...(budget > 0 ? { lineBudgetMs: budget } : {}), // ?budget=ms overrides the default line budget
  });
  run.unsubscribe = run.registry.onChange((t, status, lines) => {
    if (current !== run || t !== type) return;
    const was = run.status?.state;
    noteStatus(run, status);
    // Non-null `lines`: late answers from the worker host; the builder applies those itself.
    if (lines !== null) return;
    // Rebuild when the parser becomes ready, not on later changes (a move to the worker host).
    if (status.state === "ready" && was !== "ready") {
      // Rebuild in a task of its own, not in the one that compiled the parser.
      setTimeout(() => rebuild(run), 0);
    }
  });
  if (source !== null) noteStatus(run, run.registry.registerSource(type, source));
  else noteStatus(run, run.registry.status(type));
  run.builder = new TranscriptBuilder(run.registry, type);
  // Lines answered by the worker host replace their generic entries in place, once per frame.
  run.builder.onUpdate((update) => {
    if (current !== run) return;
    apply(run, update);
    scheduleRender();
  });

  view.clear();
  raw.clear();
  follow = true;
  leavingEnd = false;
  $("run-label").textContent = label;
  $("run-about").textContent = [about, note].filter(Boolean).join(" · ");
  $("empty").hidden = true;
  renderDiagnostics(run, true);

  run.player = new Player(chunks, {
    speed: currentSpeed(),
    onChunk: (c) => {
      for (const piece of splitForIngest(c)) run.queue.push(piece);
      schedulePump(run);
    },
    onEnd: () => schedulePump(run),
  });
  setPausedUi(false);
  if (params.get("autoplay") === "0" && run.id === 1) {
    run.player.pause();
    setPausedUi(true);
  } else run.player.start();
  scheduleRender();
  return run;
}

function stopRun() {
  const run = current;
  if (!run) return;
  current = null;
  run.player?.stop();
  clearTimeout(run.pumpTimer);
  run.unsubscribe?.();
  run.builder?.dispose();
  run.registry?.dispose();
}

function noteStatus(run, status) {
  const prev = run.status;
  run.status = status;
  if (prev && prev.state === status.state && prev.reason === status.reason && prev.host === status.host) return;
  const t = performance.now() - run.startedAt;
  run.statusHistory.push({ state: status.state, reason: status.reason, t });
  if (status.state === "loading" && run.loadingAt === null) run.loadingAt = performance.now();
  if (status.state === "ready" && run.readyAt === null) {
    run.readyAt = performance.now();
    run.record.readyMs = t;
    if (run.handoffAt) run.record.longTasks.push({ what: "parser compile", start: run.handoffAt, ms: run.readyAt - run.handoffAt });
  }
  renderStatus(run);
}

function schedulePump(run) {
  if (run.pumpTimer !== null || current !== run) return;
  run.pumpTimer = setTimeout(() => pump(run), 0);
}

/** Feeds queued pieces to the builder for at most SLICE_MS, then yields. */
function pump(run) {
  run.pumpTimer = null;
  if (current !== run) return;
  const end = performance.now() + SLICE_MS;
  while (run.qi < run.queue.length) {
    const piece = run.queue[run.qi++];
    // Is this push completing a (non-empty) line? Then it is one parser call to time.
    let completesLine = false;
    if (piece.stream === "stdout") {
      if (piece.chunk.endsWith("\n")) {
        run.lastLine = (run.partial + piece.chunk).trim();
        completesLine = run.lastLine !== "";
        run.partial = "";
      } else run.partial += piece.chunk;
    }
    const t0 = performance.now();
    const update = run.builder.push(piece);
    const dt = performance.now() - t0;
    if (completesLine) {
      run.lineTimes.push(dt);
      run.lineHistogram.add(dt);
    }
    if (dt > 40) run.record.longTasks.push({ what: "push", start: t0, ms: dt, line: (completesLine ? run.lastLine : piece.chunk).slice(0, 120) });
    apply(run, update);
    if (performance.now() >= end) break;
  }
  if (run.qi >= run.queue.length) {
    run.queue = [];
    run.qi = 0;
    if (run.player.done && !run.finished) {
      run.finished = true;
      apply(run, run.builder.finish());
      // Done once the Worker's last answers are in and drawn (they land a frame or two later).
      run.registry.idle().then(() =>
        requestAnimationFrame(() => {
          if (current !== run) return;
          run.record.done = true;
          viewer.phase = "done";
        }),
      );
    }
  } else schedulePump(run);
  if (run.status.state === "generic" || run.status.state === "loading") noteStatus(run, run.registry.status(run.type));
  scheduleRender();
}

function apply(run, { from, entries, timeline }) {
  run.entries.length = Math.min(run.entries.length, from);
  for (const e of entries) run.entries.push(e);
  run.dirtyFrom = Math.min(run.dirtyFrom, from);
  for (const m of timeline.moved ?? []) {
    // Items taken since the last frame (not drawn yet) move as the drawn ones will.
    for (const item of run.items.values()) if (item) moveEntries(item, m);
    for (const item of run.resetTimeline ?? []) moveEntries(item, m);
    if (!run.resetTimeline) run.moves.push(m);
  }
  for (const id of timeline.removed) run.items.set(id, null);
  for (const item of timeline.changed) run.items.set(item.id, item);
  for (const item of timeline.added) run.items.set(item.id, item);
}

function rebuild(run) {
  if (current !== run) return;
  const t0 = performance.now();
  const entries = run.builder.rebuild();
  const items = run.builder.timeline();
  run.rebuildMs = performance.now() - t0;
  run.record.rebuildEnd = t0 + run.rebuildMs;
  if (run.rebuildMs > 40) run.record.longTasks.push({ what: "rebuild", start: t0, ms: run.rebuildMs });
  run.rebuilds += 1;
  run.record.rebuilds = run.rebuilds;
  run.record.rebuildMs = run.rebuildMs;
  run.entries = entries;
  run.dirtyFrom = 0;
  run.resetTimeline = items;
  run.items.clear();
  run.moves = [];
  scheduleRender();
}

// ---------------------------------------------------------------------------------------------
// Rendering (once per frame)

let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(render);
}

function render() {
  renderQueued = false;
  const run = current;
  if (!run) return;
  const t0 = performance.now();
  drawRun(run);
  const ms = performance.now() - t0;
  if (ms > 40) run.record.longTasks.push({ what: "render", start: t0, ms });
}

function drawRun(run) {
  if (run.dirtyFrom !== Infinity || run.items.size || run.moves.length || run.resetTimeline) {
    const from = run.dirtyFrom;
    run.dirtyFrom = Infinity;
    if (run.resetTimeline) {
      view.reset(run.resetTimeline, run.entries, { keepPlace: !follow });
      if (!follow) leavingEnd = true;
    }
    run.resetTimeline = null;
    view.move(run.moves);
    run.moves = [];
    view.apply(run.items, run.entries);
    run.items.clear();
    if (rawActive && from !== Infinity) raw.update(run.entries, from, { keepPlace: !follow });
    if (run.firstEntryMs === null && run.entries.length) {
      run.firstEntryMs = performance.now() - run.startedAt;
      run.record.firstEntryMs = run.firstEntryMs;
      run.record.firstEntryState = run.status.state;
      if (viewer.firstEntryMs === null) {
        viewer.firstEntryMs = performance.now();
        viewer.firstEntryState = run.status.state;
        // The frame after the one that inserted it: the entry is on screen by then.
        requestAnimationFrame(() => (viewer.firstEntryFrameMs = performance.now()));
      }
    }
    (rawActive ? raw : view).draw({ follow });
  }
  $("progress").textContent = `${run.player.emitted} / ${run.player.total} chunks`;
  $("progress-bar").style.width = `${run.player.total ? (100 * run.player.emitted) / run.player.total : 100}%`;
  $("entry-count").textContent = `${run.entries.length} ${run.entries.length === 1 ? "entry" : "entries"}`;
  $("entry-count").dataset.count = String(run.entries.length);
  const now = performance.now();
  if (run.finished || now - run.lastDiag > 250) {
    run.lastDiag = now;
    renderDiagnostics(run);
  }
}

// ---------------------------------------------------------------------------------------------
// Controls

const currentSpeed = () => Number($("speed").value) || 1;

function setPausedUi(paused) {
  $("pause").textContent = paused ? "Resume" : "Pause";
  $("pause").setAttribute("aria-pressed", String(paused));
}

const runCache = new Map();
function fetchRun(type) {
  if (!runCache.has(type)) {
    runCache.set(
      type,
      fetch(runUrl(type)).then(async (r) => {
        if (!r.ok) throw new Error(`GET ${runUrl(type)}: ${r.status}`);
        return parseStoredNdjson(await r.text()).chunks;
      }),
    );
  }
  return runCache.get(type);
}

async function startSample(type) {
  const sample = SAMPLES.find((s) => s.type === type) ?? SAMPLES[0];
  const chunks = await fetchRun(sample.type);
  startRun({ type: sample.type, label: sample.label, about: sample.about, chunks, latencyMs: Number($("latency").value) || 0 });
}

function selectTab(rawTab) {
  rawActive = rawTab;
  $("tab-transcript").setAttribute("aria-selected", String(!rawTab));
  $("tab-raw").setAttribute("aria-selected", String(rawTab));
  $("transcript").hidden = rawTab;
  $("raw").hidden = !rawTab;
  if (rawTab && current) raw.update(current.entries, 0);
  if (!rawTab) raw.clear();
  (rawTab ? raw : view).draw({ follow });
}

// Custom files: a parser and/or a log, by picker or drop.
const custom = { parser: null, log: null };

function classify(file) {
  return /\.(c|m)?js$/i.test(file.name) ? "parser" : "log";
}

function showCustomFiles() {
  const parts = [];
  if (custom.parser) parts.push(`parser: ${custom.parser.name}`);
  if (custom.log) parts.push(`log: ${custom.log.name}`);
  $("custom-files").textContent = parts.length ? parts.join(" · ") : "No files yet. Without a log, the selected sample's run is used.";
}

async function runCustom() {
  const type = $("custom-type").value.trim() || "custom_local";
  let chunks;
  let note;
  if (custom.log) {
    const text = await custom.log.text();
    if (detectFormat(text) === "ndjson") {
      const r = parseStoredNdjson(text);
      chunks = r.chunks;
      note = `${custom.log.name}: stored NDJSON, ${r.chunks.length} chunks${r.skipped ? `, ${r.skipped} torn rows skipped` : ""}`;
    } else {
      chunks = chunkPlainText(text, { start: Date.now() });
      note = `${custom.log.name}: plain text, cut into ${chunks.length} chunks`;
    }
  } else {
    chunks = await fetchRun($("sample").value);
    note = `log: the ${$("sample").value} sample`;
  }
  const source = custom.parser ? await custom.parser.text() : null;
  if (source === null) note += " · no parser: generic only";
  startRun({
    type,
    label: custom.parser ? `Custom parser · ${custom.parser.name}` : "Custom log",
    chunks,
    loader: "none",
    source,
    sourceName: custom.parser?.name ?? null,
    note,
  });
}

function bindControls() {
  const select = $("sample");
  for (const s of SAMPLES) select.append(h("option", { value: s.type, text: s.label }));
  const wanted = params.get("sample");
  if (wanted && SAMPLE_TYPES.has(wanted)) select.value = wanted;
  const speed = params.get("speed");
  if (speed) {
    if (![...$("speed").options].some((o) => o.value === speed)) $("speed").append(h("option", { value: speed, text: `${speed}×` }));
    $("speed").value = speed;
  }
  const latency = params.get("latency");
  if (latency) {
    if (![...$("latency").options].some((o) => o.value === latency)) $("latency").append(h("option", { value: latency, text: formatMs(Number(latency)) }));
    $("latency").value = latency;
  }

  select.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("sample", select.value);
    history.replaceState(null, "", url);
    startSample(select.value).catch(showError);
  });
  $("speed").addEventListener("change", () => current?.player.setSpeed(currentSpeed()));
  $("latency").addEventListener("change", () => {
    if (current?.spec.loader === "sample") startSample(current.type).catch(showError);
  });
  $("pause").addEventListener("click", () => {
    const p = current?.player;
    if (!p) return;
    if (p.paused) p.start();
    else p.pause();
    setPausedUi(p.paused);
  });
  $("all").addEventListener("click", () => {
    current?.player.all();
    setPausedUi(false);
  });
  $("restart").addEventListener("click", () => {
    const spec = current?.spec;
    if (!spec) return;
    if (spec.loader === "sample") startSample(spec.type).catch(showError);
    else startRun(spec);
  });
  $("tab-transcript").addEventListener("click", () => selectTab(false));
  $("tab-raw").addEventListener("click", () => selectTab(true));

  // Follow the newest entry until the reader scrolls up; scrolling back to the bottom resumes.
  const pane = $("pane");
  let userScrollAt = 0;
  const intent = (e) => {
    userScrollAt = performance.now();
    // A wheel turned up is a reader leaving the end: follow stops now, not when the pane has
    // moved (a smooth scroll, as Firefox's, moves it frames later, and its first scroll events
    // still find it at the bottom).
    if (e.type === "wheel" && e.deltaY < 0) {
      follow = false;
      leavingEnd = true;
    }
  };
  for (const ev of READER_EVENTS) pane.addEventListener(ev, intent, { passive: true });
  let holding = false; // a pointer pressed on the pane (a drag of its scrollbar) and not let go
  pane.addEventListener("pointerdown", () => (holding = true), { passive: true });
  for (const ev of ["pointerup", "pointercancel"]) window.addEventListener(ev, () => (holding = false), { passive: true });
  // Only the reader's own scroll changes follow: a scroll the page made (the pane clamped to the
  // bottom when a rebuild left fewer rows under a reader above the end) is not theirs.
  pane.addEventListener("scroll", () => {
    const atEnd = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
    if (!atEnd) leavingEnd = false;
    if (!holding && performance.now() - userScrollAt >= 1000) return;
    // Where the view's last draw was clamped to the bottom: a later slice of a rebuild, still
    // short of the reader's row, however soon after their wheel.
    if (atEnd && (rawActive ? raw : view).list.clampedHere()) return;
    if (atEnd && !leavingEnd) follow = true;
    else if (!atEnd) follow = false;
  });

  $("parser-file").addEventListener("change", (e) => {
    custom.parser = e.target.files?.[0] ?? null;
    showCustomFiles();
  });
  $("log-file").addEventListener("change", (e) => {
    custom.log = e.target.files?.[0] ?? null;
    showCustomFiles();
  });
  $("custom-run").addEventListener("click", () => runCustom().catch(showError));
  const drop = $("drop");
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  for (const ev of ["dragleave", "drop"]) drop.addEventListener(ev, () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    for (const f of e.dataTransfer?.files ?? []) custom[classify(f)] = f;
    showCustomFiles();
    if (custom.parser || custom.log) runCustom().catch(showError);
  });
}

function showError(e) {
  viewer.error = String(e?.stack ?? e);
  const empty = $("empty");
  empty.hidden = false;
  empty.textContent = `Error: ${e?.message ?? e}`;
  empty.classList.add("error");
  console.error(e);
}

async function main() {
  bindControls();
  const type = $("sample").value;
  const firstRun = fetchRun(type); // in parallel with the wasm download
  await init(window.parseboxCore); // the download index.html started
  viewer.wasmReadyMs = performance.now();
  await firstRun;
  await startSample(type);
}

main().catch(showError);
