// Renders a run's timeline (the TimelineItem[] that parsebox's TranscriptBuilder keeps) into
// the DOM, incrementally: `apply(changes, entries)` touches only the items a push changed, added
// or removed, and only the items near the viewport are in the DOM at all (virtual.js), so a run of
// 100,000 lines costs the page what a screenful does. Pairing, statuses and positions are the
// timeline's; this file only draws them. Items and entries are untrusted parser output: text only
// ever reaches the DOM through textContent.
//
// Layout: assistant/user messages, collapsible thinking, init and result events, tool cards
// (status badge, call → result duration, results and diff lines), raw and log lines; a connector
// on the left joins the items between two user messages (isFirst / isLast).
import { READER_EVENTS, VirtualList } from "./virtual.js";

/** `h("div.cls", { attrs }, ...children)`: a tiny element helper. */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = v;
    else if (k === "testid") el.dataset.testid = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function formatMs(ms) {
  if (!Number.isFinite(ms)) return "—";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} m ${Math.round((ms - m * 60_000) / 1000)} s`;
}

const formatInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");
const formatCost = (usd) => (usd >= 0.01 || usd === 0 ? `$${usd.toFixed(usd === 0 ? 2 : 4)}` : `$${usd.toPrecision(2)}`);
const clockTime = (ts) => {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toISOString().slice(11, 23);
};

/** Text with `code` spans; newlines are kept by CSS (white-space: pre-wrap). */
function richText(cls, text) {
  const el = h(cls);
  const parts = String(text).split(/(`[^`\n]+`)/);
  for (const p of parts) {
    if (p.length > 2 && p.startsWith("`") && p.endsWith("`")) el.append(h("code", { text: p.slice(1, -1) }));
    else if (p) el.append(p);
  }
  return el;
}

function firstLine(text, max = 120) {
  const s = String(text).trim();
  const nl = s.indexOf("\n");
  const line = nl < 0 ? s : s.slice(0, nl);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line + (nl >= 0 ? " …" : "");
}

/** The argument worth showing next to a tool's name. */
function inputSummary(input) {
  if (input === null || input === undefined) return "";
  if (typeof input !== "object") return firstLine(String(input), 100);
  for (const k of ["command", "cmd", "file_path", "path", "pattern", "query", "url", "description", "target", "action"]) {
    if (typeof input[k] === "string" && input[k]) return firstLine(input[k], 100);
  }
  if (Array.isArray(input.files)) return firstLine(input.files.join(", "), 100);
  for (const v of Object.values(input)) if (typeof v === "string" && v) return firstLine(v, 100);
  return firstLine(JSON.stringify(input), 100);
}

/** Milliseconds from the call to its latest result: a duration field, or the two timestamps. */
function durationBetween(call, result) {
  for (const e of [result, call]) {
    for (const k of ["durationMs", "duration_ms", "elapsedMs"]) if (typeof e?.[k] === "number" && e[k] >= 0) return e[k];
  }
  if (!call) return null;
  const d = Date.parse(result.ts) - Date.parse(call.ts);
  return Number.isFinite(d) && d > 0 ? d : null;
}

function entryAttrs(kind, index, extra = {}) {
  return { testid: "entry", "data-kind": kind, "data-index": index, ...extra };
}

/** How a card shows each status: `data-state` (CSS, tests) and the badge's text. */
const STATUS = {
  pending: { state: "running", badge: "running" },
  completed: { state: "done", badge: "done" },
  failed: { state: "error", badge: "error" },
  unanswered: { state: "unanswered", badge: "never answered" },
};

function diffLine(line, index) {
  const type = String(line.changeType);
  const sign = { add: "+", remove: "−", context: " " }[type] ?? "";
  return h(`div.line.${type}`, entryAttrs("diff", index, { "data-change": type }), h("span.sign", { text: sign }), h("span.text", { text: line.text }));
}

/** Diff lines as a block: `lines` is `[{ line, index }]`. */
function diffBlock(lines) {
  return h("div.group.diff", { testid: "diff-block" }, h("div.lines", null, ...lines.map(({ line, index }) => diffLine(line, index))));
}

/**
 * A tool card from its `toolCall` data; `entries` (the transcript) gives the entry index of each
 * piece and the timestamps of the duration. `open`: the body shows.
 */
function toolCard(item, entries, open) {
  const tc = item.toolCall;
  const shown = STATUS[tc.status] ?? STATUS.pending;
  // The entries the card shows: the call (if it has one) and, in order, one per content piece.
  let callIndex = null;
  const pieceIndex = [];
  for (const i of item.entries) {
    const kind = entries[i]?.kind;
    if (kind === "tool_call") callIndex ??= i;
    else if (kind === "tool_result" || kind === "diff") pieceIndex.push(i);
  }
  const call = callIndex === null ? null : entries[callIndex];
  let lastResult = null;
  for (const i of pieceIndex) if (entries[i]?.kind === "tool_result") lastResult = entries[i];

  const name = h("span.tool-name", { text: tc.title || "tool result" });
  const arg = h("span.tool-arg", { text: inputSummary(tc.rawInput) });
  const badge = h("span.badge", { text: shown.badge });
  const d = lastResult ? durationBetween(call, lastResult) : null;
  const dur = h("span.dur", { testid: "tool-duration", text: d === null ? "" : formatMs(d) });
  const summary = h("summary", null, name, arg, h("span.spacer"), badge, dur);
  const body = h("div.tool-body");
  if (callIndex !== null) {
    body.append(h("div.tool-call", entryAttrs("tool_call", callIndex), h("div.label", { text: "input" }), h("pre", { text: JSON.stringify(tc.rawInput ?? null, null, 2) })));
  }
  let latest = null;
  const diffs = [];
  tc.content.forEach((piece, k) => {
    const index = pieceIndex[k];
    if (piece.type === "diff") {
      diffs.push({ line: piece, index });
      return;
    }
    latest = piece;
    body.append(
      h(
        "div.tool-result",
        entryAttrs("tool_result", index, { "data-error": piece.isError }),
        h("div.label", { text: piece.isError ? "error" : "result" }),
        h("pre", { text: piece.text }),
      ),
    );
  });
  if (tc.status === "unanswered") body.append(h("div.label", { text: "the run ended before this call was answered" }));
  const details = h("details", { open }, summary, body);
  const previewText = latest ? (latest.text.trim() ? firstLine(latest.text, 160) : "(no output)") : "";
  const preview = h("div.preview", { testid: "tool-preview", text: previewText });
  return h(
    "div.tool",
    { testid: "tool-card", "data-state": shown.state, "data-status": tc.status, "data-tool-kind": tc.kind, "data-tool-use-id": tc.toolCallId ?? "" },
    details,
    preview,
    diffs.length ? diffBlock(diffs) : null,
  );
}

function messageBlock(item) {
  const who = item.type === "user" ? "User" : "Assistant";
  return h(
    `div.msg.${item.type}`,
    entryAttrs(item.type, item.entries[0]),
    h("div.who", null, h("span", { text: who }), h("time", { text: clockTime(item.timestamp) })),
    richText("div.text", item.content ?? ""),
  );
}

function thinkingBlock(item, open) {
  const text = item.content ?? "";
  return h(
    "details.thinking",
    entryAttrs("thinking", item.entries[0], { open, testid: "entry" }),
    h("summary", null, h("span.label", { text: "Thinking" }), h("span.think-preview", { text: firstLine(text, 140) })),
    richText("div.text", text),
  );
}

function initBlock(item) {
  const init = item.init ?? { model: "", sessionId: "" };
  return h(
    "div.event.init",
    entryAttrs("init", item.entries[0], { "data-role": "init-event" }),
    h("span.event-label", { text: "Session started" }),
    h("span.chip", { text: `model ${init.model}` }),
    h("span.chip.mono", { text: `session ${init.sessionId}` }),
  );
}

function resultBlock(item) {
  const r = item.result ?? { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "", isError: false, errors: [] };
  const chips = h(
    "div.chips",
    null,
    h("span.chip", { text: `${formatInt(r.inputTokens)} in` }),
    h("span.chip", { text: `${formatInt(r.outputTokens)} out` }),
    h("span.chip", { text: `${formatInt(r.cachedTokens)} cached` }),
    h("span.chip.cost", { testid: "result-cost", text: formatCost(Number(r.costUsd) || 0) }),
    h("span.chip", { text: r.subtype }),
  );
  const errors = r.errors.length ? h("ul.errors", null, ...r.errors.map((e) => h("li", { text: e }))) : null;
  return h(
    `div.event.result${r.isError ? ".error" : ""}`,
    entryAttrs("result", item.entries[0], { "data-role": "result-event" }),
    h("span.event-label", { text: r.isError ? "Run ended with an error" : "Result" }),
    chips,
    item.content ? richText("div.text", item.content) : null,
    errors,
  );
}

function stdoutLine(item) {
  const index = item.entries[0];
  return h("div.group.stdout", { testid: "stdout-group" }, h("div.lines", null, h("div.line", entryAttrs("stdout", index, { text: item.content ?? "", title: clockTime(item.timestamp) }))));
}

function logLine(item) {
  const kind = item.type;
  const line = h(`div.line.${kind}`, entryAttrs(kind, item.entries[0]), h("span.tag", { text: kind }), h("span.text", { text: String(item.content ?? "").replace(/\n$/, "") }));
  return h(`div.group.log${kind === "stderr" ? ".has-stderr" : ""}`, { testid: "log-group" }, h("div.lines", null, line));
}

/** The element of one timeline item. */
function itemBlock(item, entries, { thinkingOpen, cardOpen }) {
  switch (item.type) {
    case "tool_call":
    case "tool_result":
      return item.toolCall ? toolCard(item, entries, cardOpen) : null;
    case "user":
    case "assistant":
      return messageBlock(item);
    case "thinking":
      return thinkingBlock(item, thinkingOpen);
    case "init":
      return initBlock(item);
    case "result":
      return resultBlock(item);
    case "stdout":
      return stdoutLine(item);
    case "stderr":
    case "system":
      return logLine(item);
    case "diff":
      return diffBlock((item.diff ?? []).map((line, k) => ({ line, index: item.entries[k] })));
    default:
      return null;
  }
}

/**
 * Where an item stands in the run, from its id (`e<line>` or `e<line>.<n>`: the line that started
 * it and which of that line's entries): ids order as their items and, unlike entry indices, never
 * move when a late answer changes an earlier line's entries. (A line's entries past 2^21, far
 * past any `maxEntriesPerLine`, would share a key.)
 */
function orderKey(id) {
  const dot = id.indexOf(".");
  if (dot < 0) return Number(id.slice(1)) * 2 ** 21;
  return Number(id.slice(1, dot)) * 2 ** 21 + Math.min(Number(id.slice(dot + 1)), 2 ** 21 - 1);
}

/**
 * Applies one of a timeline update's `moved` to `item` (one the update does not name): its entry
 * indices at or past `at` move by `by`. Returns whether any did.
 */
export function moveEntries(item, { at, by }) {
  const entries = item.entries;
  if (entries[entries.length - 1] < at) return false;
  for (let k = 0; k < entries.length; k++) if (entries[k] >= at) entries[k] += by;
  return true;
}

/** The first index in `list`, ascending by `keyOf`, whose key is ≥ `value`. */
function lowerBound(list, value, keyOf = (x) => x) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(list[mid]) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Log lines of one stream in a row read as one block: a step says when the next joins it. */
const JOINING = new Set(["stdout", "stderr"]);
// Items added or removed in one frame past which apply() merges once instead of one at a time.
const MANY_MOVES = 64;

/**
 * The timeline view: one row per item, keyed by the item's id, in the order of the items' first
 * entries; only the rows near the viewport are in the DOM. Each item is a step of the connector:
 * `data-first` / `data-last` end it. What the reader opened (a tool card, a thinking block) stays
 * open when its row leaves the DOM and comes back, or is redrawn with new content.
 */
export class TranscriptView {
  // The reader's line (orderKey), held until they scroll: { key, off, id }. After a reset it
  // waits for the rows to reach it (`id` undefined); then, while no row starts at it, the row
  // that holds it (`id`, the one put at the top for it) stays at the top, and a row that starts
  // at the line, when one comes, takes its place.
  #held = null;

  constructor(root, scroller) {
    this.openThinking = new Set(); // ids of thinking items the reader opened
    this.cardOpen = new Map(); // tool card id -> open, as the reader (or its failure) left it
    // The toggle event comes in a task of its own, and a row may leave the DOM (the reader
    // scrolled on) before it fires, when it no longer reaches the root; a click on a summary
    // says the same at once (its default action, after this listener, flips `open`).
    root.addEventListener(
      "click",
      (e) => {
        const summary = e.target instanceof Element ? e.target.closest("summary") : null;
        const details = summary?.parentElement;
        if (details instanceof HTMLDetailsElement && details.querySelector(":scope > summary") === summary) {
          this.#remember(details, !details.open);
        }
      },
      true,
    );
    root.addEventListener(
      "toggle",
      (e) => {
        if (e.target instanceof HTMLDetailsElement) this.#remember(e.target, e.target.open);
      },
      true,
    );
    // The reader's own scroll says where they are now: a held place is not looked for any more.
    for (const ev of READER_EVENTS) {
      scroller.addEventListener(
        ev,
        () => {
          this.#held = null;
        },
        { passive: true },
      );
    }
    this.list = new VirtualList(root, scroller, {
      key: (i) => this.ids[i],
      build: (i) => this.#step(i),
      kind: (i) => this.#kind(this.items.get(this.ids[i])),
    });
    this.clear();
  }

  /** A new run: nothing drawn, nothing remembered as opened. */
  clear() {
    this.items = new Map(); // id -> latest item
    this.keys = []; // orderKey of each item, ascending (the row order)
    this.ids = []; // the id of each item, in the same order
    this.entries = [];
    this.openThinking.clear();
    this.cardOpen.clear();
    this.#held = null;
    this.list.reset(0);
  }

  /**
   * Takes `items` (a whole timeline) from scratch; what the reader opened stays open. `keepPlace`:
   * the reader is above the end (not following), and stays at the line they were reading once
   * the new timeline reaches it (a rebuild comes in slices).
   */
  reset(items, entries, { keepPlace = false } = {}) {
    const at = keepPlace ? this.#readerRow() : null;
    this.#held = at && { key: at.key, off: at.off, id: undefined };
    this.entries = entries;
    this.items = new Map();
    this.keys = new Array(items.length);
    this.ids = new Array(items.length);
    items.forEach((item, k) => {
      this.items.set(item.id, item);
      this.keys[k] = orderKey(item.id);
      this.ids[k] = item.id;
    });
    this.list.reset(items.length, { keepPlace });
    this.#keepLine();
  }

  /**
   * Takes one frame's changes: `changes` maps an id to its latest item, or to null when it is
   * gone. Only those items' rows (and a neighbour's, for joined log lines) are redrawn, and only
   * if they are in the DOM.
   */
  apply(changes, entries) {
    this.entries = entries;
    let moves = 0;
    for (const [id, item] of changes) if ((item === null) === this.items.has(id)) moves++;
    const place = this.#readerRow();
    if (moves > MANY_MOVES) this.#applyMany(changes);
    else this.#applyEach(changes);
    // The reader's row was taken away (a late answer joined their line into the row above, or
    // replaced it): their line is held until a row that starts at it is there again.
    if (place && !this.items.has(place.id) && !this.#held) this.#held = { key: place.key, off: 0, id: null };
    this.#keepLine();
  }

  /**
   * While the reader's line is held (`#held`, until they scroll): once the rows reach it, the row
   * that holds it (the item that started at or before it) goes to the top whenever that is
   * another row than the one put there last, at the held offset if it starts at the line. A
   * later answer may give the line a row of its own again (answers come out of order, a line's
   * row joins the one above for a frame, a rebuild's row of several lines is split by a late
   * answer): the reader is then back on their line, not left on the row above it.
   */
  #keepLine() {
    const held = this.#held;
    if (!held || !this.keys.length) return;
    if (held.id === undefined) {
      // A rebuild comes in slices: the line is found once the rows reach it.
      if (this.keys[this.keys.length - 1] < held.key) return;
    } else if (this.list.place() === null) {
      // The view keeps the end now (the reader asked for it): there is no line to hold.
      this.#held = null;
      return;
    }
    const i = this.#holder(held.key);
    const starts = this.keys[i] === held.key;
    if (this.ids[i] !== held.id) {
      this.list.placeAt(i, starts ? held.off : 0);
      held.id = this.ids[i];
    }
    if (starts) this.#held = null;
  }

  /** `apply` for a frame of few changes: each item inserted, removed or marked changed in turn. */
  #applyEach(changes) {
    for (const [id, item] of changes) {
      const known = this.items.has(id);
      if (item === null) {
        if (known) this.#remove(id);
        continue;
      }
      this.items.set(id, item);
      if (known) this.list.changed(id);
      else this.#insert(item);
    }
  }

  /**
   * Takes a frame's `moved` (entry indices that moved, a late answer before them), before its
   * changes: the items keep their rows; those in the DOM are drawn again with the new indices.
   */
  move(moves) {
    for (const m of moves) {
      // The items that move are the last ones (the timeline keeps every item before them
      // wholly before `at`): from the first row whose first entry is at or past it.
      const first = lowerBound(this.ids, m.at, (id) => this.items.get(id).entries[0]);
      for (let i = first; i < this.ids.length; i++) {
        const id = this.ids[i];
        if (moveEntries(this.items.get(id), m)) this.list.changed(id);
      }
    }
  }

  /** Updates the DOM; `follow` keeps the last item in view. */
  draw(options) {
    this.list.draw(options);
  }

  /**
   * `apply` for a frame that adds or removes many items (a rebuild's slice, late answers that
   * replace items in the middle): one merge of the kept rows and the new ones, in O(n + k log k),
   * where one insert or remove at a time costs O(n) each. The row before each new or removed
   * one is redrawn, as with one at a time (a log line may join its neighbour differently).
   */
  #applyMany(changes) {
    const gone = new Set();
    const added = [];
    for (const [id, item] of changes) {
      const known = this.items.has(id);
      if (item === null) {
        if (known) {
          this.items.delete(id);
          gone.add(id);
        }
        continue;
      }
      this.items.set(id, item);
      if (known) this.list.changed(id);
      else added.push(item);
    }
    const addedKeys = new Map(added.map((item) => [item, orderKey(item.id)]));
    added.sort((a, b) => addedKeys.get(a) - addedKeys.get(b));
    const ids = [];
    const keys = [];
    const from = []; // from[i]: the old row of new row i, or -1 for a new one
    const touched = new Set(); // new rows whose next row is new or was removed
    const take = (item) => {
      if (ids.length) touched.add(ids.length - 1);
      ids.push(item.id);
      keys.push(addedKeys.get(item));
      from.push(-1);
    };
    let a = 0;
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i];
      if (gone.has(id)) {
        if (ids.length) touched.add(ids.length - 1);
        continue;
      }
      while (a < added.length && addedKeys.get(added[a]) < this.keys[i]) take(added[a++]);
      ids.push(id);
      keys.push(this.keys[i]);
      from.push(i);
    }
    while (a < added.length) take(added[a++]);
    this.ids = ids;
    this.keys = keys;
    this.list.reorder(from);
    for (const i of touched) this.list.changed(ids[i]);
  }

  /**
   * The row at the top of the reader's view (its id and key) and how far into it (`off`), or
   * null when the view keeps the end.
   */
  #readerRow() {
    const at = this.list.place();
    return at && at.i < this.ids.length ? { id: this.ids[at.i], key: this.keys[at.i], off: at.off } : null;
  }

  /** The row that holds line `key`: the last one that starts at or before it (the first row when none does). */
  #holder(key) {
    return Math.max(0, lowerBound(this.keys, key + 1) - 1);
  }

  #insert(item) {
    const key = orderKey(item.id);
    const at = this.keys.length && key < this.keys[this.keys.length - 1] ? lowerBound(this.keys, key) : this.keys.length;
    this.keys.splice(at, 0, key);
    this.ids.splice(at, 0, item.id);
    this.list.insert(at);
    if (at > 0) this.list.changed(this.ids[at - 1]); // it may join the new one now
  }

  #remove(id) {
    this.items.delete(id);
    const at = lowerBound(this.keys, orderKey(id));
    if (this.ids[at] !== id) return;
    this.keys.splice(at, 1);
    this.ids.splice(at, 1);
    this.list.remove(at);
    if (at > 0) this.list.changed(this.ids[at - 1]);
  }

  /** Keeps what the reader made of a thinking block or tool card `details`: `open` or not. */
  #remember(details, open) {
    const id = details.closest("[data-id]")?.dataset.id;
    if (id === undefined) return;
    if (details.classList.contains("thinking")) {
      if (open) this.openThinking.add(id);
      else this.openThinking.delete(id);
    } else if (details.parentElement?.classList.contains("tool")) this.cardOpen.set(id, open);
  }

  #cardIsOpen(item) {
    return this.cardOpen.get(item.id) ?? item.toolCall?.status === "failed";
  }

  /** Rows of one kind share a height estimate; an open card is much taller than a closed one. */
  #kind(item) {
    return item.toolCall ? `card:${this.#cardIsOpen(item)}` : item.type;
  }

  #step(i) {
    const item = this.items.get(this.ids[i]);
    const next = this.items.get(this.ids[i + 1]);
    const block =
      itemBlock(item, this.entries, { thinkingOpen: this.openThinking.has(item.id), cardOpen: this.#cardIsOpen(item) }) ??
      h("pre.unknown", { text: JSON.stringify(item, null, 2) });
    const joinsNext = JOINING.has(item.type) && next?.type === item.type;
    return h(
      "div.step",
      { testid: "timeline-item", "data-id": item.id, "data-type": item.type, "data-first": item.isFirst, "data-last": item.isLast, "data-joins-next": joinsNext },
      block,
    );
  }
}

/** The raw view: one JSON line per entry, only those near the viewport in the DOM, drawn only while visible. */
export class RawView {
  constructor(root, scroller) {
    this.entries = [];
    this.list = new VirtualList(root, scroller, {
      key: (i) => String(i),
      build: (i) => h("li", { "data-index": i, "data-kind": this.entries[i].kind }, h("span.idx", { text: String(i) }), h("code", { text: JSON.stringify(this.entries[i]) })),
      defaultHeight: 20,
    });
  }
  clear() {
    this.entries = [];
    this.list.reset(0);
  }
  /** `entries` changed from index `from` on; `keepPlace`: the reader is above the end. */
  update(entries, from, { keepPlace = false } = {}) {
    this.entries = entries;
    if (from <= 0) return this.list.reset(entries.length, { keepPlace });
    this.list.truncate(Math.min(from, this.list.length));
    for (let i = this.list.length; i < entries.length; i++) this.list.insert(i);
  }
  /** Updates the DOM; `follow` keeps the last entry in view. */
  draw(options) {
    this.list.draw(options);
  }
}
