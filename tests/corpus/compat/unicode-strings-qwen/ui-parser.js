// Imitates a Qwen Code text-mode parser (`✦` assistant lines, `╭─╮ │ ✔  Tool args │ ╰─╯` tool
// boxes) that leans on UTF-16 string semantics: length/slice/substring, codePointAt and surrogate
// pairs, `\s` vs NBSP/BOM/U+2028/U+3000, trim, split with regex + limit, replace callbacks,
// matchAll with named groups, lookbehind, sticky `y` and dotAll `s` flags. ES module.

const STATUS = { "✔": "ok", "✓": "ok", x: "error", "✗": "error", "?": "confirm", "⊷": "running", "o": "pending", "-": "cancelled" };
const BOX_TOOL_RE = /^│\s*(?<mark>[✔✓x✗?⊷o-])\s+(?<name>[A-Z][A-Za-z]+)\s*(?<args>.*?)\s*│?$/u;
const ASTRAL_RE = /[\u{10000}-\u{10FFFF}]/gu;
const COST_RE = /(?<=\$)\d+(?:\.\d+)?/;
const NOT_DOLLAR_NUM_RE = /(?<![$\d.,])\b\d{1,3}(?:,\d{3})+\b/g;
const KV_RE = /(?<key>[a-z_]+)=(?<value>"[^"]*"|\S+)\s*/y;
const THINK_RE = /<think>(?<body>.*)<\/think>/s;
const THINK_NO_S_RE = /<think>(.*)<\/think>/;
const MENTION_RE = /@(?<path>[\w./\u4e00-\u9fff-]+)/gu;

function codePoints(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

// Cut to at most `max` UTF-16 units without splitting a surrogate pair.
function safeCut(s, max) {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return s.slice(0, end) + "…";
}

function metrics(text) {
  const words = text.split(/\s+/).filter(Boolean);
  const first = text.codePointAt(0) ?? 0;
  return {
    units: text.length,
    codePoints: codePoints(text),
    spread: [...text].length,
    astral: (text.match(ASTRAL_RE) || []).length,
    words: words.length,
    firstCodePoint: "U+" + first.toString(16).toUpperCase().padStart(4, "0"),
    lastUnit: text.length ? text.charCodeAt(text.length - 1).toString(16) : "",
    atMinus1IsLowSurrogate: /[\udc00-\udfff]/.test(text.at(-1) ?? ""),
  };
}

function parseKv(text) {
  const out = {};
  KV_RE.lastIndex = 0;
  let consumed = 0;
  let m;
  while ((m = KV_RE.exec(text)) !== null) {
    const { key, value } = m.groups;
    out[key] = value.startsWith('"') ? value.slice(1, -1) : value;
    consumed = KV_RE.lastIndex;
    if (consumed >= text.length) break;
  }
  // A failed sticky match resets lastIndex to 0; report it so engines can be compared.
  return { fields: out, consumed, lastIndexAfter: KV_RE.lastIndex, rest: text.substring(consumed) };
}

export function createStdoutParser() {
  let inBox = false;
  let pending = null; // { id, name, status, output: [] }
  let seq = 0;

  function closeBox(ts) {
    inBox = false;
    if (!pending) return [];
    const p = pending;
    pending = null;
    const content = p.output.join("\n");
    return [{
      kind: "tool_result",
      ts,
      toolUseId: p.id,
      toolName: p.name,
      content: safeCut(content, 400),
      isError: p.status === "error" || p.status === "cancelled",
    }];
  }

  function parseLine(line, ts) {
    // Box frame lines.
    if (line.startsWith("╭")) {
      const out = inBox ? closeBox(ts) : [];
      inBox = true;
      return out;
    }
    if (line.startsWith("╰")) return closeBox(ts);

    if (line.startsWith("│")) {
      const tool = BOX_TOOL_RE.exec(line);
      if (tool && STATUS[tool.groups.mark]) {
        const out = pending ? closeBox(ts) : [];
        inBox = true;
        const { mark, name, args } = tool.groups;
        const id = `qwen-${++seq}`;
        // "(description)" at the end of args is the human description.
        const desc = /\((?<d>[^()]*)\)$/.exec(args)?.groups.d ?? "";
        const bare = desc ? args.slice(0, -(desc.length + 2)).trimEnd() : args;
        pending = { id, name, status: STATUS[mark], output: [] };
        out.push({ kind: "tool_call", ts, name, input: { args: bare, description: desc }, toolUseId: id });
        return out;
      }
      const inner = line.replace(/^│\s?/u, "").replace(/\s*│$/u, "");
      if (pending) {
        pending.output.push(inner.trimEnd());
        return [];
      }
      return [{ kind: "stdout", ts, text: inner }];
    }

    if (line.startsWith("✦")) {
      const text = line.slice(1).trimStart();
      const thinkS = THINK_RE.exec(text);
      const thinkNoS = THINK_NO_S_RE.exec(text);
      if (thinkS) {
        return [{
          kind: "thinking",
          ts,
          text: thinkS.groups.body,
          matchedWithoutDotAll: thinkNoS !== null,
        }];
      }
      const mentions = [...text.matchAll(MENTION_RE)].map((m) => ({ path: m.groups.path, index: m.index }));
      // Highlight counts like 1,234 (not prices) by wrapping them; callback gets offset + groups.
      const marked = text.replace(NOT_DOLLAR_NUM_RE, (match, offset) => `⟨${match.replace(/,/g, "")}@${offset}⟩`);
      const entry = { kind: "assistant", ts, text: marked, metrics: metrics(text) };
      if (mentions.length) entry.mentions = mentions;
      return [entry];
    }

    if (line.startsWith("[stats]")) {
      const { fields, consumed, lastIndexAfter, rest } = parseKv(line.slice(7).trimStart());
      return [{ kind: "system", ts, text: `stats: ${Object.keys(fields).join(",")}`, fields, consumed, lastIndexAfter, rest }];
    }

    const cost = COST_RE.exec(line);
    if (line.startsWith("Tokens:") && cost) {
      const [inPart, outPart = "", cachedPart = ""] = line.slice(7).split(/\s*·\s*/u, 3);
      const num = (s) => Number((s.match(/[\d,]+/) ?? ["0"])[0].replace(/,/g, ""));
      return [{
        kind: "result",
        ts,
        text: line.substring(line.indexOf("$"), line.length),
        inputTokens: num(inPart),
        outputTokens: num(outPart),
        cachedTokens: num(cachedPart),
        costUsd: Number(cost[0]),
        subtype: "success",
        isError: false,
        errors: [],
      }];
    }

    if (/^(?:Error|错误|✕)/u.test(line)) return [{ kind: "stderr", ts, text: line }];

    if (line.startsWith("Session")) {
      const parts = line.split(/\s*[:：]\s*/u, 2);
      return [{ kind: "init", ts, model: "qwen3-coder-plus", sessionId: parts[1] ?? "" }];
    }

    // Anything else: keep it, with whitespace diagnostics that differ across engines if `\s`,
    // `trim` or `split` are wrong.
    const ws = line.split(/(\s)/).filter((p) => /^\s$/.test(p)).map((p) => p.codePointAt(0).toString(16));
    return [{
      kind: "stdout",
      ts,
      text: line,
      whitespace: ws,
      trimmedUnits: line.trim().length,
      upper: line.slice(0, 24).toUpperCase(),
      lower: line.slice(-12).toLowerCase(),
      head: line.substring(12, 2),
      tail: line.slice(-6),
    }];
  }

  function reset() {
    inBox = false;
    pending = null;
    seq = 0;
  }

  return { parseLine, reset };
}
