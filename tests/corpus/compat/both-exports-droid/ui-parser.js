// Imitates a Factory Droid (`droid exec --output-format stream-json`) parser that kept its old
// stateless `export const parseStdoutLine` (raw lines only) next to the newer stateful factory
// exported as `export { buildParser as createStdoutParser }`. The two give DIFFERENT output on
// purpose: the host must pick the factory. ES module.

export const PARSER_VERSION = "2.1.0";

// Legacy, pre-1.0 behaviour: every line is shown raw. Must NOT be used when the factory exists.
export const parseStdoutLine = (line, ts) => [{ kind: "stdout", ts, text: `[legacy] ${line}` }];

const pick = (obj, keys) => {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
};

function buildParser() {
  const toolNames = new Map();
  let lastAssistantId = null;

  const parseLine = (line, ts) => {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line }];
    }
    switch (ev?.type) {
      case "system":
        return ev.subtype === "init"
          ? [{ kind: "init", ts, model: ev.model ?? "droid", sessionId: ev.session_id ?? "" }]
          : [{ kind: "system", ts, text: ev.subtype ?? "system" }];
      case "message": {
        if (ev.role === "user") return [{ kind: "user", ts, text: ev.text ?? "" }];
        if (ev.role !== "assistant") return [];
        // Droid repeats the same message id when it streams a longer version; show it once.
        if (ev.id && ev.id === lastAssistantId) return [];
        lastAssistantId = ev.id ?? null;
        return ev.text ? [{ kind: "assistant", ts, text: ev.text }] : [];
      }
      case "reasoning":
        return ev.text ? [{ kind: "thinking", ts, text: ev.text }] : [];
      case "tool_call": {
        const name = ev.toolName ?? ev.toolId ?? "tool";
        toolNames.set(ev.id, name);
        const input = name === "Execute" ? pick(ev.parameters ?? {}, ["command", "riskLevel", "timeout"]) : ev.parameters ?? {};
        return [{ kind: "tool_call", ts, name, input, toolUseId: ev.id }];
      }
      case "tool_result": {
        const value = typeof ev.value === "string" ? ev.value : JSON.stringify(ev.value ?? null);
        const entry = { kind: "tool_result", ts, toolUseId: ev.id, content: value, isError: ev.isError === true };
        if (toolNames.has(ev.id)) entry.toolName = toolNames.get(ev.id);
        return [entry];
      }
      case "completion": {
        const u = ev.usage ?? {};
        return [{
          kind: "result",
          ts,
          text: ev.finalText ?? "",
          inputTokens: u.input_tokens ?? 0,
          outputTokens: u.output_tokens ?? 0,
          cachedTokens: u.cache_read_input_tokens ?? 0,
          costUsd: 0,
          subtype: "success",
          isError: false,
          errors: [],
        }];
      }
      case "error":
        return [{ kind: "stderr", ts, text: ev.message ?? "error" }];
      default:
        return [{ kind: "stdout", ts, text: line }];
    }
  };

  return {
    parseLine,
    reset() {
      toolNames.clear();
      lastAssistantId = null;
    },
  };
}

export { buildParser as createStdoutParser };
