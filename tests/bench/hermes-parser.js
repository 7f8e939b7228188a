// parsebox's own hermes-style benchmark parser (issue 7). Written in the style of the real
// hermes-family adapters: an ES module with both entry points, a module-level tool counter,
// `\p{Extended_Pictographic}` / `\p{Emoji_Presentation}` regexes, JSON event lines, streamed
// assistant deltas, and a pending tool call matched with its result. Zero imports.
let toolCounter = 0;
const EMOJI_PREFIX = /^(\p{Extended_Pictographic}|\p{Emoji_Presentation})\uFE0F?\s*/u;
const DONE_RE = /^\[done\]\s+(\S+)(?:\s+(.*?))?\s+—\s+(.*?)\s+([\d.]+)s$/;
const SHELL_RE = /^\$\s+(.+)$/;
const FILE_RE = /^(read|write|edit|patch|grep|glob)\s+(\S+)(?:\s+\((\d+) lines?\))?$/;
const SESSION_RE = /Session (resumed|started): (\S+)(?: model=(\S+))?/;

function toolName(verb) {
  return verb === "$" ? "shell" : verb;
}

export function createStdoutParser() {
  let pending = null;
  let model = "hermes";

  function jsonLine(line, ts) {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return null;
    }
    if (!ev || typeof ev !== "object") return null;
    switch (ev.type) {
      case "usage":
        // Token-count events: most lines of a real run, shown as nothing.
        return [];
      case "result":
        return [{
          kind: "result",
          ts,
          text: String(ev.result ?? ""),
          inputTokens: ev.usage?.input_tokens ?? 0,
          outputTokens: ev.usage?.output_tokens ?? 0,
          cachedTokens: ev.usage?.cached_tokens ?? 0,
          costUsd: ev.cost_usd ?? 0,
          subtype: ev.subtype || "success",
          isError: !!ev.is_error,
          errors: Array.isArray(ev.errors) ? ev.errors.map(String) : [],
        }];
      case "error":
        return [{ kind: "stderr", ts, text: String(ev.message ?? "error") }];
      default:
        return null;
    }
  }

  function toolLine(body, ts) {
    const done = DONE_RE.exec(body);
    if (done) {
      const id = pending ? pending.id : `hermes-tool-${++toolCounter}`;
      const out = [];
      if (!pending) {
        out.push({ kind: "tool_call", ts, name: toolName(done[1]), input: { raw: done[2] || "" }, toolUseId: id });
      }
      const name = pending ? pending.name : toolName(done[1]);
      pending = null;
      const content = done[3];
      out.push({
        kind: "tool_result",
        ts,
        toolUseId: id,
        toolName: name,
        content: `${content} (${done[4]}s)`,
        isError: /\b(error|ENOENT|failed|denied)\b/i.test(content),
      });
      return out;
    }
    let m = SHELL_RE.exec(body);
    if (m) {
      pending = { id: `hermes-tool-${++toolCounter}`, name: "shell" };
      return [{ kind: "tool_call", ts, name: "shell", input: { command: m[1] }, toolUseId: pending.id }];
    }
    m = FILE_RE.exec(body);
    if (m) {
      pending = { id: `hermes-tool-${++toolCounter}`, name: m[1] };
      const input = m[3] ? { path: m[2], lines: Number(m[3]) } : { path: m[2] };
      return [{ kind: "tool_call", ts, name: m[1], input, toolUseId: pending.id }];
    }
    return null;
  }

  function parseLine(line, ts) {
    if (!line || !line.trim()) return [];
    if (line.startsWith("[hermes]")) {
      const m = SESSION_RE.exec(line);
      if (m) {
        if (m[3]) model = m[3];
        return [{ kind: "init", ts, model, sessionId: m[2] }];
      }
      return [{ kind: "system", ts, text: line.slice(9) }];
    }
    if (line.startsWith("{")) {
      const entries = jsonLine(line, ts);
      if (entries) return entries;
    }
    if (line.startsWith("┊ ")) {
      const body = line.slice(2).trim();
      const emoji = EMOJI_PREFIX.exec(body);
      if (emoji) {
        const text = body.slice(emoji[0].length);
        if (emoji[1] === "💬") return [{ kind: "thinking", ts, text }];
        return [{ kind: "system", ts, text: `${emoji[1]} ${text}` }];
      }
      return toolLine(body, ts) ?? [{ kind: "system", ts, text: body }];
    }
    if (line.startsWith("│ ")) return [{ kind: "assistant", ts, text: line.slice(2) + "\n", delta: true }];
    if (line.startsWith("ERROR ") || line.startsWith("Traceback")) return [{ kind: "stderr", ts, text: line }];
    return [{ kind: "assistant", ts, text: line }];
  }

  function reset() {
    pending = null;
  }

  return { parseLine, reset };
}

const shared = createStdoutParser();

export function parseStdoutLine(line, ts) {
  return shared.parseLine(line, ts);
}
