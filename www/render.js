// Renders a transcript (TranscriptEntry[]) into the DOM, incrementally: `update(entries, from)`
// touches only entries from index `from` on, which is what TranscriptBuilder.push reports.
// Entries are untrusted parser output: text only ever reaches the DOM through textContent.
//
// Layout rules: assistant/user messages, collapsible thinking, init and result events; tool
// calls are cards that a later tool_result with the same toolUseId attaches to (red when it is
// an error, with the call → result duration); consecutive stdout lines, stderr/system lines and
// diff lines are grouped.

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

function durationBetween(call, result) {
  for (const e of [result, call]) {
    for (const k of ["durationMs", "duration_ms", "elapsedMs"]) if (typeof e?.[k] === "number" && e[k] >= 0) return e[k];
  }
  const d = Date.parse(result.ts) - Date.parse(call.ts);
  return Number.isFinite(d) && d > 0 ? d : null;
}

function entryAttrs(kind, index, extra = {}) {
  return { testid: "entry", "data-kind": kind, "data-index": index, ...extra };
}

/** A block renders entries [start, end) (plus results attached to a card). */
class Block {
  constructor(start, el) {
    this.start = start;
    this.end = start + 1;
    this.el = el;
  }
  /** Groups take more entries of their kind; single-entry blocks never do. */
  accept() {
    return false;
  }
  /** Forgets entries from `index` on (only groups span several entries). */
  truncate() {}
}

class GroupBlock extends Block {
  constructor(start, el, body, kinds) {
    super(start, el);
    this.body = body;
    this.kinds = kinds;
    this.items = [];
    this.end = start;
  }
  accept(entry, index) {
    if (!this.kinds.has(entry.kind)) return false;
    this.add(entry, index);
    return true;
  }
  add(entry, index) {
    const el = this.line(entry, index);
    this.items.push(el);
    this.body.append(el);
    this.end = index + 1;
    this.changed();
  }
  truncate(index) {
    while (this.end > index && this.items.length) {
      this.items.pop().remove();
      this.end -= 1;
    }
    this.changed();
  }
  changed() {}
}

class StdoutGroup extends GroupBlock {
  constructor(start) {
    const body = h("div.lines");
    const label = h("div.group-label", { text: "raw output" });
    super(start, h("div.group.stdout", { testid: "stdout-group" }, label, body), body, new Set(["stdout"]));
    this.label = label;
  }
  line(entry, index) {
    return h("div.line", entryAttrs("stdout", index, { text: entry.text, title: clockTime(entry.ts) }));
  }
  changed() {
    this.label.textContent = this.items.length === 1 ? "raw output" : `raw output · ${this.items.length} lines`;
  }
}

class LogGroup extends GroupBlock {
  constructor(start) {
    const body = h("div.lines");
    const summary = h("summary");
    const details = h("details", { open: true }, summary, body);
    super(start, h("div.group.log", { testid: "log-group" }, details), body, new Set(["stderr", "system"]));
    this.summary = summary;
    this.counts = { stderr: 0, system: 0 };
  }
  line(entry, index) {
    this.counts[entry.kind] += 1;
    const el = h(`div.line.${entry.kind}`, entryAttrs(entry.kind, index), h("span.tag", { text: entry.kind }), h("span.text", { text: String(entry.text).replace(/\n$/, "") }));
    el.dataset.countedKind = entry.kind;
    return el;
  }
  truncate(index) {
    while (this.end > index && this.items.length) {
      const el = this.items.pop();
      this.counts[el.dataset.countedKind] -= 1;
      el.remove();
      this.end -= 1;
    }
    this.changed();
  }
  changed() {
    const parts = [];
    if (this.counts.stderr) parts.push(`${this.counts.stderr} stderr`);
    if (this.counts.system) parts.push(`${this.counts.system} system`);
    this.summary.textContent = parts.join(" · ");
    this.summary.hidden = this.items.length < 2;
    this.el.classList.toggle("has-stderr", this.counts.stderr > 0);
  }
}

class DiffGroup extends GroupBlock {
  constructor(start) {
    const body = h("div.lines");
    super(start, h("div.group.diff", { testid: "diff-block" }, body), body, new Set(["diff"]));
  }
  line(entry, index) {
    const type = String(entry.changeType);
    const sign = { add: "+", remove: "−", context: " " }[type] ?? "";
    return h(`div.line.${type}`, entryAttrs("diff", index, { "data-change": type }), h("span.sign", { text: sign }), h("span.text", { text: entry.text }));
  }
}

class ToolCard extends Block {
  constructor(start, call) {
    const name = h("span.tool-name", { text: call.kind === "tool_call" ? call.name : call.toolName ?? "tool result" });
    const arg = h("span.tool-arg", { text: call.kind === "tool_call" ? inputSummary(call.input) : "" });
    const badge = h("span.badge", { text: "running" });
    const dur = h("span.dur", { testid: "tool-duration" });
    const summary = h("summary", null, name, arg, h("span.spacer"), badge, dur);
    const preview = h("div.preview", { testid: "tool-preview" });
    const body = h("div.tool-body");
    const details = h("details", null, summary, body);
    super(start, h("div.tool", { testid: "tool-card", "data-state": "running" }, details, preview));
    this.call = call;
    this.details = details;
    this.badge = badge;
    this.dur = dur;
    this.preview = preview;
    this.body = body;
    this.result = null;
    this.resultEl = null;
    if (call.kind === "tool_call") {
      this.el.dataset.toolUseId = call.toolUseId ?? "";
      const callEl = h("div.tool-call", entryAttrs("tool_call", start), h("div.label", { text: "input" }), h("pre", { text: JSON.stringify(call.input, null, 2) }));
      this.body.append(callEl);
    }
  }
  attach(result, index) {
    this.result = result;
    const isError = result.isError === true;
    this.el.dataset.state = isError ? "error" : "done";
    this.badge.textContent = isError ? "error" : "done";
    const d = this.call.kind === "tool_call" ? durationBetween(this.call, result) : null;
    this.dur.textContent = d === null ? "" : formatMs(d);
    const content = String(result.content ?? "");
    this.preview.textContent = content.trim() ? firstLine(content, 160) : "(no output)";
    this.resultEl = h(
      "div.tool-result",
      entryAttrs("tool_result", index, { "data-error": isError }),
      h("div.label", { text: isError ? "error" : "result" }),
      h("pre", { text: content }),
    );
    this.body.append(this.resultEl);
    if (isError) this.details.open = true;
  }
  detach() {
    this.result = null;
    this.resultEl?.remove();
    this.resultEl = null;
    this.el.dataset.state = "running";
    this.badge.textContent = "running";
    this.dur.textContent = "";
    this.preview.textContent = "";
    this.details.open = false;
  }
}

function messageBlock(entry, index) {
  const who = entry.kind === "user" ? "User" : "Assistant";
  return h(
    `div.msg.${entry.kind}`,
    entryAttrs(entry.kind, index),
    h("div.who", null, h("span", { text: who }), h("time", { text: clockTime(entry.ts) })),
    richText("div.text", entry.text),
  );
}

function thinkingBlock(entry, index, open) {
  return h(
    "details.thinking",
    entryAttrs("thinking", index, { open, testid: "entry" }),
    h("summary", null, h("span.label", { text: "Thinking" }), h("span.think-preview", { text: firstLine(entry.text, 140) })),
    richText("div.text", entry.text),
  );
}

function initBlock(entry, index) {
  return h(
    "div.event.init",
    entryAttrs("init", index, { "data-role": "init-event" }),
    h("span.event-label", { text: "Session started" }),
    h("span.chip", { text: `model ${entry.model}` }),
    h("span.chip.mono", { text: `session ${entry.sessionId}` }),
  );
}

function resultBlock(entry, index) {
  const isError = entry.isError === true;
  const chips = h(
    "div.chips",
    null,
    h("span.chip", { text: `${formatInt(entry.inputTokens)} in` }),
    h("span.chip", { text: `${formatInt(entry.outputTokens)} out` }),
    h("span.chip", { text: `${formatInt(entry.cachedTokens)} cached` }),
    h("span.chip.cost", { testid: "result-cost", text: formatCost(Number(entry.costUsd) || 0) }),
    h("span.chip", { text: entry.subtype }),
  );
  const errors = Array.isArray(entry.errors) && entry.errors.length ? h("ul.errors", null, ...entry.errors.map((e) => h("li", { text: e }))) : null;
  return h(
    `div.event.result${isError ? ".error" : ""}`,
    entryAttrs("result", index, { "data-role": "result-event" }),
    h("span.event-label", { text: isError ? "Run ended with an error" : "Result" }),
    chips,
    entry.text ? richText("div.text", entry.text) : null,
    errors,
  );
}

function rawBlock(entry, index) {
  return h("pre.unknown", entryAttrs(String(entry.kind), index, { text: JSON.stringify(entry, null, 2) }));
}

export class TranscriptView {
  constructor(root) {
    this.root = root;
    this.openThinking = new Set(); // entry indices whose thinking the reader opened
    this.root.addEventListener(
      "toggle",
      (e) => {
        const t = e.target;
        if (t instanceof HTMLDetailsElement && t.classList.contains("thinking")) {
          const i = Number(t.dataset.index);
          if (t.open) this.openThinking.add(i);
          else this.openThinking.delete(i);
        }
      },
      true,
    );
    this.clear();
  }

  clear() {
    this.blocks = [];
    this.cards = new Map(); // toolUseId -> ToolCard
    this.attachments = []; // { index, card }, in entry order
    this.root.replaceChildren();
    this.openThinking.clear();
  }

  /** Renders `entries` from index `from` on; earlier entries are unchanged. */
  update(entries, from) {
    if (from <= 0) {
      const open = new Set(this.openThinking);
      this.clear();
      for (const i of open) this.openThinking.add(i);
      from = 0;
    }
    while (this.attachments.length && this.attachments.at(-1).index >= from) this.attachments.pop().card.detach();
    while (this.blocks.length && this.blocks.at(-1).start >= from) {
      const b = this.blocks.pop();
      b.el.remove();
      if (b instanceof ToolCard && b.call.toolUseId && this.cards.get(b.call.toolUseId) === b) this.cards.delete(b.call.toolUseId);
    }
    const last = this.blocks.at(-1);
    if (last && last.end > from) last.truncate(from);
    const frag = document.createDocumentFragment();
    for (let i = from; i < entries.length; i++) this.#add(entries[i], i, frag);
    this.root.append(frag);
  }

  #add(entry, index, frag) {
    const last = this.blocks.at(-1);
    if (last?.accept(entry, index)) return;
    let block;
    switch (entry.kind) {
      case "stdout":
        block = new StdoutGroup(index);
        break;
      case "stderr":
      case "system":
        block = new LogGroup(index);
        break;
      case "diff":
        block = new DiffGroup(index);
        break;
      case "tool_call":
        block = new ToolCard(index, entry);
        if (entry.toolUseId) this.cards.set(entry.toolUseId, block);
        break;
      case "tool_result": {
        const card = this.cards.get(entry.toolUseId);
        if (card && !card.result) {
          card.attach(entry, index);
          this.attachments.push({ index, card });
          return;
        }
        block = new ToolCard(index, entry); // a result whose call we never saw
        block.attach(entry, index);
        break;
      }
      case "assistant":
      case "user":
        block = new Block(index, messageBlock(entry, index));
        break;
      case "thinking":
        block = new Block(index, thinkingBlock(entry, index, this.openThinking.has(index)));
        break;
      case "init":
        block = new Block(index, initBlock(entry, index));
        break;
      case "result":
        block = new Block(index, resultBlock(entry, index));
        break;
      default:
        block = new Block(index, rawBlock(entry, index));
    }
    if (block instanceof GroupBlock) block.add(entry, index);
    this.blocks.push(block);
    frag.append(block.el);
  }
}

/** The raw view: one JSON line per entry, rendered only while visible. */
export class RawView {
  constructor(root) {
    this.root = root;
    this.items = [];
  }
  clear() {
    this.items = [];
    this.root.replaceChildren();
  }
  update(entries, from) {
    if (from <= 0) this.clear();
    while (this.items.length > Math.max(from, 0)) this.items.pop().remove();
    const frag = document.createDocumentFragment();
    for (let i = this.items.length; i < entries.length; i++) {
      const li = h("li", { "data-index": i, "data-kind": entries[i].kind }, h("span.idx", { text: String(i) }), h("code", { text: JSON.stringify(entries[i]) }));
      this.items.push(li);
      frag.append(li);
    }
    this.root.append(frag);
  }
}
