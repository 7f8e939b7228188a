// Imitates a hermes-agent text-mode parser: `┊`-prefixed activity lines led by an emoji, tool
// output that spills over several raw lines and is swallowed until a `┊ ⏱ 1.2s` duration line,
// and emoji detection with `\p{Emoji_Presentation}` / `\p{Extended_Pictographic}` (`u` flag).
// ES module, stateful factory plus a stateless wrapper.

const LEAD_EMOJI_RE = /^((?:\p{Emoji_Presentation}|\p{Extended_Pictographic})\uFE0F?(?:\u200D(?:\p{Emoji_Presentation}|\p{Extended_Pictographic})\uFE0F?)*)\s*/u;
const ANY_EMOJI_RE = /\p{Extended_Pictographic}/gu;
const DURATION_RE = /^(?:⏱\uFE0F?\s*)?(\d+(?:\.\d+)?)(ms|s)$/u;
const TOOL_LINE_RE = /^(\S+)\s+(.*?)\s*$/u;
const EXIT_RE = /^\[exit (\d+)\]$/;
const RESULT_RE = /^\[hermes\] Done in ([\d.]+)s · ([\d,]+) in \/ ([\d,]+) out(?: \/ ([\d,]+) cached)? · \$([\d.]+)$/u;
const SESSION_RE = /^\[hermes\] Session (started|resumed): (\S+)(?: \(model: ([^)]+)\))?$/u;

const TOOL_EMOJI = {
  "💻": "terminal",
  "📖": "read_file",
  "✏️": "write_file",
  "🔍": "search_files",
  "🌐": "web_search",
  "🧠": "memory",
  "🐍": "execute_code",
  "🫠": "patch",
};

const MAX_OUTPUT = 4000;

let globalToolSeq = 0;

function stripEmoji(text) {
  const m = LEAD_EMOJI_RE.exec(text);
  if (!m) return { emoji: "", rest: text };
  return { emoji: m[1], rest: text.slice(m[0].length) };
}

function toNumber(s) {
  return s ? Number(s.replace(/,/g, "")) : 0;
}

export function createStdoutParser() {
  let pending = null; // { id, name, input, output: string[], ts }
  let model = "unknown";

  function finish(ts, durationText) {
    const p = pending;
    pending = null;
    let isError = false;
    const lines = [];
    for (const l of p.output) {
      const ex = EXIT_RE.exec(l);
      if (ex) {
        isError = ex[1] !== "0";
        continue;
      }
      if (/^(Traceback|Error:|error:|fatal:)/.test(l)) isError = true;
      lines.push(l);
    }
    let content = lines.join("\n");
    if (content.length > MAX_OUTPUT) content = content.slice(0, MAX_OUTPUT) + "\n… (truncated)";
    if (durationText) content = content ? `${content}\n(${durationText})` : `(${durationText})`;
    return { kind: "tool_result", ts, toolUseId: p.id, toolName: p.name, content, isError };
  }

  function parseActivity(body, ts) {
    const { emoji, rest } = stripEmoji(body);
    const dur = DURATION_RE.exec(body);
    if (dur) {
      if (pending) return [finish(ts, dur[0].replace(/^⏱\uFE0F?\s*/u, ""))];
      return [];
    }
    if (emoji === "💬") return [{ kind: "thinking", ts, text: rest }];
    if (emoji === "⚠️" || emoji === "⚠") return [{ kind: "stderr", ts, text: rest }];
    if (emoji === "✅" || emoji === "🏁") return [{ kind: "system", ts, text: rest }];
    const toolName = TOOL_EMOJI[emoji] || (emoji ? null : undefined);
    const out = [];
    if (pending) out.push(finish(ts, ""));
    if (toolName) {
      const m = TOOL_LINE_RE.exec(rest);
      const verb = m ? m[1] : rest;
      const arg = m ? m[2] : "";
      const id = `hermes-${++globalToolSeq}`;
      const input = toolName === "terminal" ? { command: rest.replace(/^\$\s*/, "") } : { action: verb, target: arg };
      pending = { id, name: toolName, input, output: [], ts };
      out.push({ kind: "tool_call", ts, name: toolName, input, toolUseId: id });
      return out;
    }
    // Unknown emoji or none: an informational activity line. Count pictographs for the raw view.
    const pictographs = (body.match(ANY_EMOJI_RE) || []).length;
    out.push({ kind: "system", ts, text: rest || body, pictographs });
    return out;
  }

  function parseLine(line, ts) {
    try {
      const trimmed = line.trim();
      if (!trimmed) return [];

      if (trimmed.startsWith("┊")) {
        return parseActivity(trimmed.slice(1).trim(), ts);
      }

      if (pending) {
        // Continuation: raw tool output until the duration line.
        pending.output.push(trimmed);
        return [];
      }

      if (trimmed.startsWith("[hermes]")) {
        const s = SESSION_RE.exec(trimmed);
        if (s) {
          if (s[3]) model = s[3];
          return [{ kind: "init", ts, model, sessionId: s[2] }];
        }
        const r = RESULT_RE.exec(trimmed);
        if (r) {
          return [{
            kind: "result", ts, text: `Finished in ${r[1]}s`,
            inputTokens: toNumber(r[2]), outputTokens: toNumber(r[3]), cachedTokens: toNumber(r[4]),
            costUsd: Number(r[5]), subtype: "success", isError: false, errors: [],
          }];
        }
        const mm = /^\[hermes\] Model: (.+)$/.exec(trimmed);
        if (mm) model = mm[1];
        return [{ kind: "system", ts, text: trimmed.slice("[hermes]".length).trim() }];
      }

      const { emoji, rest } = stripEmoji(trimmed);
      if (emoji === "❌") return [{ kind: "stderr", ts, text: rest }];
      return [{ kind: "assistant", ts, text: trimmed }];
    } catch (err) {
      return [{ kind: "stdout", ts, text: line }];
    }
  }

  function reset() {
    pending = null;
    model = "unknown";
  }

  return { parseLine, reset };
}

export function parseStdoutLine(line, ts) {
  return createStdoutParser().parseLine(line, ts);
}
