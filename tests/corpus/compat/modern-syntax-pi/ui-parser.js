// Imitates a pi coding-agent (`pi --mode json`) parser written in dense modern JS: optional
// chaining, `??` / `??=` / `||=`, nested destructuring with defaults, rest/spread, `String.raw`,
// tagged templates, `Object.entries` / `fromEntries`, `at()`, `replaceAll`, `flatMap`, numeric
// separators and a hand-rolled deep copy (no structuredClone). Adds an extra `channel` field.

const MAX_ARG_CHARS = 2_000;
const ANSI_RE = new RegExp(String.raw`\u001b\[[0-9;]*[A-Za-z]`, "g");
const WIN_PATH_RE = new RegExp(String.raw`^[A-Za-z]:\\`);

// Tagged template: interpolated values are shown as compact JSON, strings stay bare.
const show = (strings, ...values) =>
  strings.reduce((acc, s, i) => {
    const v = values[i - 1];
    const rendered = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
    return acc + rendered + s;
  });

const deepCopy = (value, depth = 0) => {
  if (depth > 32 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => deepCopy(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepCopy(v, depth + 1)]));
};

const clampArgs = (args = {}) =>
  Object.fromEntries(
    Object.entries(args).map(([key, value]) =>
      typeof value === "string" && value.length > MAX_ARG_CHARS
        ? [key, `${value.slice(0, MAX_ARG_CHARS)}… (+${value.length - MAX_ARG_CHARS} chars)`]
        : [key, deepCopy(value)],
    ),
  );

const textOf = ({ content = [] } = {}) =>
  (typeof content === "string" ? [{ type: "text", text: content }] : content)
    .flatMap(({ type, text = "" } = {}) => (type === "text" ? [text] : []))
    .join("")
    .replaceAll("\r\n", "\n")
    .replace(ANSI_RE, "");

const TOOL_ALIASES = { bash: "Bash", read: "Read", write: "Write", edit: "Edit", grep: "Grep", find: "Find", ls: "List" };

export function createStdoutParser() {
  let totals = { input: 0, output: 0, cacheRead: 0, cost: 0, turns: 0 };
  let session = {};
  let lastStop;

  const reset = () => {
    totals = { input: 0, output: 0, cacheRead: 0, cost: 0, turns: 0 };
    session = {};
    lastStop = undefined;
  };

  const onAssistantEvent = ({ type, delta = "", toolCall, error } = {}, ts) => {
    switch (type) {
      case "text_delta":
        return delta ? [{ kind: "assistant", ts, text: delta, delta: true, channel: "pi" }] : [];
      case "thinking_delta":
        return delta ? [{ kind: "thinking", ts, text: delta, delta: true, channel: "pi" }] : [];
      case "toolcall_end": {
        const { id = "", name = "tool", arguments: args = {} } = toolCall ?? {};
        return [{ kind: "tool_call", ts, name: TOOL_ALIASES[name] ?? name, input: clampArgs(args), toolUseId: id, channel: "pi" }];
      }
      case "error":
        return [{ kind: "stderr", ts, text: show`assistant error: ${error?.errorMessage ?? error ?? "unknown"}` }];
      default:
        return [];
    }
  };

  const parseLine = (line, ts) => {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line.replace(ANSI_RE, "") }];
    }
    const { type = "", ...rest } = event ?? {};
    switch (type) {
      case "session": {
        session = { ...session, id: rest.id, cwd: rest.cwd };
        session.model ??= rest.model;
        const cwd = WIN_PATH_RE.test(rest.cwd ?? "") ? rest.cwd.replaceAll("\\", "/") : rest.cwd;
        return [{ kind: "system", ts, text: show`session ${rest.id} in ${cwd}` }];
      }
      case "agent_start":
      case "turn_start":
      case "message_start":
      case "tool_execution_update":
        return [];
      case "message_update":
        return onAssistantEvent(rest.assistantMessageEvent, ts);
      case "message_end": {
        const { role, usage: { input = 0, output = 0, cacheRead = 0, cost: { total = 0 } = {} } = {}, model, provider, stopReason } = rest.message ?? {};
        if (role === "user") return [{ kind: "user", ts, text: textOf(rest.message) }];
        if (role !== "assistant") return [];
        totals.input += input;
        totals.output += output;
        totals.cacheRead += cacheRead;
        totals.cost += total;
        totals.turns += 1;
        lastStop = stopReason ?? lastStop;
        const out = [];
        if (!session.announced && model) {
          session.announced = true;
          session.model ||= `${provider ?? "?"}/${model}`;
          out.push({ kind: "init", ts, model: session.model, sessionId: session.id ?? "" });
        }
        if (stopReason === "error") {
          out.push({ kind: "stderr", ts, text: rest.message?.errorMessage ?? "model error" });
        }
        return out;
      }
      case "tool_execution_start":
        return [];
      case "tool_execution_end": {
        const { toolCallId = "", toolName = "tool", result = {}, isError = false } = rest;
        const lines = textOf(result).split("\n");
        const content = lines.length > 50 ? [...lines.slice(0, 25), `… ${lines.length - 50} lines omitted …`, ...lines.slice(-25)].join("\n") : lines.join("\n");
        return [{
          kind: "tool_result",
          ts,
          toolUseId: toolCallId,
          toolName: TOOL_ALIASES[toolName] ?? toolName,
          content,
          isError: Boolean(isError),
          channel: "pi",
        }];
      }
      case "turn_end":
        return [];
      case "agent_end": {
        const messages = rest.messages ?? [];
        const final = messages.filter(({ role }) => role === "assistant").at(-1);
        const cost = Math.round(totals.cost * 10 ** 6) / 10 ** 6;
        return [{
          kind: "result",
          ts,
          text: textOf(final) || `${totals.turns} turns`,
          inputTokens: totals.input,
          outputTokens: totals.output,
          cachedTokens: totals.cacheRead,
          costUsd: cost,
          subtype: lastStop === "error" || lastStop === "aborted" ? "error" : "success",
          isError: lastStop === "error",
          errors: lastStop === "error" ? [String(final?.errorMessage ?? "error")] : [],
        }];
      }
      default:
        return [{ kind: "stdout", ts, text: line }];
    }
  };

  return { parseLine, reset };
}
