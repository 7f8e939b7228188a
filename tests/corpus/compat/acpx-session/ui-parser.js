// Imitates an ACP (Agent Client Protocol) bridge adapter that prints `acpx.*` JSON events:
// `acpx.session_update` with agent_message_chunk / agent_thought_chunk / tool_call /
// tool_call_update / plan updates, `acpx.tool_call`, permission requests and `acpx.prompt_result`.
// `diff` tool content (oldText/newText) is rendered with a small LCS line diff. ES module.

const TOOL_KIND_NAMES = {
  read: "Read",
  edit: "Edit",
  delete: "Delete",
  move: "Move",
  search: "Search",
  execute: "Terminal",
  think: "Think",
  fetch: "Fetch",
  other: "Tool",
};

function textOfContent(content) {
  if (!content) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(textOfContent).filter(Boolean).join("\n");
  if (content.type === "text") return content.text ?? "";
  if (content.type === "content") return textOfContent(content.content);
  if (content.type === "resource_link") return `[${content.name ?? "resource"}](${content.uri ?? ""})`;
  if (content.type === "resource") return content.resource?.text ?? `[resource ${content.resource?.uri ?? ""}]`;
  if (content.type === "terminal") return `[terminal ${content.terminalId ?? ""}]`;
  return "";
}

// Classic LCS table diff on lines; inputs are small tool edits.
function lineDiff(oldText, newText) {
  const a = (oldText ?? "").split("\n");
  const b = (newText ?? "").split("\n");
  if (a.length * b.length > 40000) {
    return [...a.map((t) => ["remove", t]), ...b.map((t) => ["add", t])];
  }
  const n = a.length;
  const m = b.length;
  const dp = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push(["context", a[i]]);
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) {
      ops.push(["remove", a[i++]]);
    } else {
      ops.push(["add", b[j++]]);
    }
  }
  while (i < n) ops.push(["remove", a[i++]]);
  while (j < m) ops.push(["add", b[j++]]);
  return ops;
}

function diffEntries(ts, item) {
  const out = [{ kind: "diff", ts, changeType: "file_header", text: item.path ?? "(unknown file)" }];
  const oldLines = item.oldText == null ? 0 : item.oldText.split("\n").length;
  const newLines = (item.newText ?? "").split("\n").length;
  out.push({ kind: "diff", ts, changeType: "hunk", text: `@@ -1,${oldLines} +1,${newLines} @@` });
  for (const [changeType, text] of lineDiff(item.oldText, item.newText)) {
    out.push({ kind: "diff", ts, changeType, text });
  }
  return out;
}

function toolName(update) {
  const title = typeof update.title === "string" ? update.title : "";
  return TOOL_KIND_NAMES[update.kind] ?? (title.split(/\s+/)[0] || "Tool");
}

export function createStdoutParser() {
  const tools = new Map(); // toolCallId -> { name, emittedCall }
  let sessionId = "";
  let model = "unknown";

  function onToolCall(update, ts) {
    const id = String(update.toolCallId ?? "");
    const name = toolName(update);
    const known = tools.get(id);
    const out = [];
    if (!known) {
      tools.set(id, { name });
      out.push({
        kind: "tool_call",
        ts,
        name,
        input: update.rawInput ?? { title: update.title ?? "", locations: update.locations ?? [] },
        toolUseId: id,
      });
    }
    if (update.status === "completed" || update.status === "failed") out.push(...onToolUpdate(update, ts));
    return out;
  }

  function onToolUpdate(update, ts) {
    const id = String(update.toolCallId ?? "");
    const known = tools.get(id);
    const out = [];
    const content = Array.isArray(update.content) ? update.content : [];
    for (const c of content) {
      if (c?.type === "diff") out.push(...diffEntries(ts, c));
    }
    if (update.status === "completed" || update.status === "failed") {
      const text = textOfContent(content.filter((c) => c?.type !== "diff")) || (update.rawOutput != null ? JSON.stringify(update.rawOutput) : "");
      out.push({
        kind: "tool_result",
        ts,
        toolUseId: id,
        toolName: known?.name ?? toolName(update),
        content: text,
        isError: update.status === "failed",
      });
      tools.delete(id);
    }
    return out;
  }

  function onSessionUpdate(update, ts) {
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        const text = textOfContent(update.content);
        return text ? [{ kind: "assistant", ts, text, delta: true }] : [];
      }
      case "agent_thought_chunk": {
        const text = textOfContent(update.content);
        return text ? [{ kind: "thinking", ts, text, delta: true }] : [];
      }
      case "user_message_chunk": {
        const text = textOfContent(update.content);
        return text ? [{ kind: "user", ts, text }] : [];
      }
      case "tool_call":
        return onToolCall(update, ts);
      case "tool_call_update":
        return onToolUpdate(update, ts);
      case "plan": {
        const marks = { completed: "✓", in_progress: "…", pending: "○" };
        const lines = (update.entries ?? []).map((e) => `${marks[e.status] ?? "?"} ${e.content} (${e.priority ?? "medium"})`);
        return [{ kind: "system", ts, text: `Plan\n${lines.join("\n")}` }];
      }
      case "available_commands_update":
      case "current_mode_update":
        return [];
      default:
        return [{ kind: "system", ts, text: `session update: ${update.sessionUpdate}` }];
    }
  }

  function parseLine(line, ts) {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line }];
    }
    if (typeof ev?.type !== "string" || !ev.type.startsWith("acpx.")) {
      return [{ kind: "stdout", ts, text: line }];
    }
    const type = ev.type.slice(5);
    switch (type) {
      case "session_started":
        sessionId = ev.sessionId ?? sessionId;
        model = ev.model ?? ev.agent ?? model;
        return [{ kind: "init", ts, model, sessionId }];
      case "session_update":
        return ev.update ? onSessionUpdate(ev.update, ts) : [];
      case "tool_call":
        return onToolCall(ev, ts);
      case "permission_request": {
        const opt = ev.options?.find((o) => o.optionId === ev.selected) ?? ev.options?.[0];
        return [{ kind: "system", ts, text: `Permission for ${ev.toolCall?.title ?? "tool"}: ${opt?.name ?? "?"}` }];
      }
      case "prompt_result": {
        const u = ev.usage ?? {};
        return [{
          kind: "result",
          ts,
          text: `stop: ${ev.stopReason ?? "unknown"}`,
          inputTokens: u.inputTokens ?? 0,
          outputTokens: u.outputTokens ?? 0,
          cachedTokens: u.cachedReadTokens ?? 0,
          costUsd: u.costUsd ?? 0,
          subtype: ev.stopReason === "end_turn" ? "success" : String(ev.stopReason ?? "unknown"),
          isError: ev.stopReason === "refusal",
          errors: [],
        }];
      }
      case "stderr":
        return [{ kind: "stderr", ts, text: String(ev.text ?? "") }];
      default:
        return [{ kind: "system", ts, text: `acpx: ${type}` }];
    }
  }

  function reset() {
    tools.clear();
    sessionId = "";
    model = "unknown";
  }

  return { parseLine, reset };
}
