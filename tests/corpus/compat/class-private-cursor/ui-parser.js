// Imitates a Cursor Agent CLI (`cursor-agent -p --output-format stream-json`) parser written as
// an ES2022 class: private fields and methods, static (private) members, a static initialisation
// block, getters, `#field in obj` brand checks, and `export { createParser as createStdoutParser }`.
// Tool calls arrive as `{ "<name>ToolCall": { args, result } }` wrappers.

class CursorParser {
  static #instances = 0;
  static TOOL_LABELS;
  static {
    CursorParser.TOOL_LABELS = new Map([
      ["readToolCall", "Read"],
      ["writeToolCall", "Write"],
      ["editToolCall", "Edit"],
      ["shellToolCall", "Shell"],
      ["grepToolCall", "Grep"],
      ["globToolCall", "Glob"],
      ["lsToolCall", "List"],
      ["deleteToolCall", "Delete"],
      ["updateTodosToolCall", "Todos"],
    ]);
  }

  #sessionId = "";
  #model = "cursor";
  #thinking = "";
  #toolNames = new Map();
  #seq = 0;

  constructor() {
    CursorParser.#instances += 1;
    this.instanceNo = CursorParser.#instances;
  }

  static isParser(value) {
    return value !== null && typeof value === "object" && #toolNames in value;
  }

  get sessionId() {
    return this.#sessionId;
  }

  #wrapperOf(toolCall) {
    if (!toolCall || typeof toolCall !== "object") return ["unknown", {}];
    const [key] = Object.keys(toolCall);
    if (key === undefined) return ["unknown", {}];
    if (key === "function") {
      const fn = toolCall.function ?? {};
      let args = {};
      try {
        args = typeof fn.arguments === "string" ? JSON.parse(fn.arguments) : (fn.arguments ?? {});
      } catch {
        args = { raw: String(fn.arguments) };
      }
      return [fn.name ?? "function", { args, result: toolCall.result }];
    }
    return [CursorParser.TOOL_LABELS.get(key) ?? key.replace(/ToolCall$/, ""), toolCall[key] ?? {}];
  }

  #resultText(name, result) {
    if (result == null) return { content: "", isError: false };
    if (result.rejected) return { content: `rejected: ${result.rejected.reason ?? "by user"}`, isError: true };
    if (result.failure || result.error) {
      const f = result.failure ?? result.error;
      return { content: String(f.stderr ?? f.message ?? f.error ?? JSON.stringify(f)), isError: true };
    }
    const s = result.success ?? result;
    if (name === "Shell") {
      const parts = [s.stdout, s.stderr].filter((p) => typeof p === "string" && p.length > 0);
      return { content: `${parts.join("\n")}${parts.length ? "\n" : ""}exit ${s.exitCode ?? 0}`, isError: (s.exitCode ?? 0) !== 0 };
    }
    if (name === "Read") return { content: `${s.totalLines ?? "?"} lines\n${s.content ?? ""}`, isError: false };
    if (name === "Grep" || name === "Glob") {
      const files = s.files ?? s.matches ?? [];
      return { content: Array.isArray(files) ? files.join("\n") : String(files), isError: false };
    }
    if (typeof s.message === "string") return { content: s.message, isError: false };
    return { content: JSON.stringify(s), isError: false };
  }

  #flushThinking(ts) {
    if (!this.#thinking) return [];
    const text = this.#thinking;
    this.#thinking = "";
    return [{ kind: "thinking", ts, text }];
  }

  parseLine(line, ts) {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line }];
    }
    if (ev === null || typeof ev !== "object") return [{ kind: "stdout", ts, text: line }];
    switch (ev.type) {
      case "system":
        if (ev.subtype === "init") {
          this.#sessionId = ev.session_id ?? "";
          this.#model = ev.model ?? this.#model;
          return [{ kind: "init", ts, model: this.#model, sessionId: this.#sessionId }];
        }
        return [{ kind: "system", ts, text: String(ev.subtype ?? "system") }];
      case "user": {
        const text = (ev.message?.content ?? []).map((c) => c.text ?? "").join("");
        return text ? [{ kind: "user", ts, text }] : [];
      }
      case "thinking":
        if (ev.subtype === "delta") {
          this.#thinking += ev.text ?? "";
          return [];
        }
        return this.#flushThinking(ts);
      case "assistant": {
        const text = (ev.message?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
        return [...this.#flushThinking(ts), ...(text ? [{ kind: "assistant", ts, text }] : [])];
      }
      case "tool_call": {
        const id = ev.call_id ?? `cursor-call-${++this.#seq}`;
        const [name, body] = this.#wrapperOf(ev.tool_call);
        if (ev.subtype === "started") {
          this.#toolNames.set(id, name);
          return [...this.#flushThinking(ts), { kind: "tool_call", ts, name, input: body.args ?? {}, toolUseId: id }];
        }
        const known = this.#toolNames.get(id) ?? name;
        this.#toolNames.delete(id);
        const { content, isError } = this.#resultText(known, body.result);
        return [{ kind: "tool_result", ts, toolUseId: id, toolName: known, content, isError }];
      }
      case "result":
        return [{
          kind: "result",
          ts,
          text: ev.result ?? "",
          inputTokens: ev.usage?.inputTokens ?? 0,
          outputTokens: ev.usage?.outputTokens ?? 0,
          cachedTokens: ev.usage?.cacheReadTokens ?? 0,
          costUsd: 0,
          subtype: ev.subtype ?? "success",
          isError: ev.is_error === true,
          errors: ev.is_error ? [String(ev.result ?? "error")] : [],
          durationMs: ev.duration_ms,
        }];
      default:
        return [{ kind: "stdout", ts, text: line }];
    }
  }

  reset() {
    this.#sessionId = "";
    this.#thinking = "";
    this.#toolNames.clear();
    this.#seq = 0;
  }
}

function createParser() {
  const parser = new CursorParser();
  if (!CursorParser.isParser(parser)) throw new Error("brand check failed");
  return {
    parseLine: (line, ts) => parser.parseLine(line, ts),
    reset: () => parser.reset(),
  };
}

export { createParser as createStdoutParser, CursorParser };
