"use strict";
// Imitates a Kimi CLI (`--print --output-format stream-json`) parser for OpenAI-style messages
// (assistant think/text parts + `tool_calls`, `role: tool` results), built on generators: `yield*`,
// iterator spread, `for...of` with early `break`, `Array.from(gen())`, `[Symbol.iterator]`, and a
// module-level infinite id generator. CommonJS with tsc-style `defineProperty` getter exports.
Object.defineProperty(exports, "__esModule", { value: true });
Object.defineProperty(exports, "createStdoutParser", { enumerable: true, get: function () { return createStdoutParser; } });
Object.defineProperty(exports, "parseStdoutLine", { enumerable: true, get: function () { return parseStdoutLine; } });

const fallbackIds = (function* () {
  let n = 0;
  while (true) yield `kimi-call-${++n}`;
})();

function* textParts(content, wanted) {
  if (typeof content === "string") {
    if (wanted === "text" && content) yield content;
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    if (wanted === "think" && part.type === "think" && part.think) yield part.think;
    if (wanted === "text" && part.type === "text" && part.text) yield part.text;
  }
}

function* toolCalls(message) {
  for (const call of message.tool_calls ?? []) {
    const fn = call?.function ?? {};
    let input;
    try {
      input = fn.arguments ? JSON.parse(fn.arguments) : {};
    } catch {
      input = { arguments: String(fn.arguments) };
    }
    yield { id: call.id || fallbackIds.next().value, name: fn.name || "tool", input };
  }
}

// Splits "<system>…</system>" markers out of tool output; iterable over cleaned lines.
class ToolOutput {
  constructor(parts) {
    this.parts = parts;
  }
  *[Symbol.iterator]() {
    for (const p of this.parts) {
      for (const line of p.split("\n")) {
        if (/^<system>.*<\/system>$/.test(line)) continue;
        yield line;
      }
    }
  }
  get status() {
    for (const p of this.parts) {
      const m = /<system>(.*?)<\/system>/.exec(p);
      if (m) return m[1];
    }
    return "";
  }
}

function* take(iterable, n) {
  if (n <= 0) return;
  let i = 0;
  for (const item of iterable) {
    yield item;
    if (++i >= n) break; // exercises iterator return()
  }
}

function* entriesFor(message, ts, state) {
  switch (message.role) {
    case "assistant": {
      const thoughts = [...textParts(message.content, "think")];
      if (thoughts.length) yield { kind: "thinking", ts, text: thoughts.join("") };
      const texts = Array.from(textParts(message.content, "text"));
      if (texts.length) yield { kind: "assistant", ts, text: texts.join("") };
      for (const call of toolCalls(message)) {
        state.names.set(call.id, call.name);
        yield { kind: "tool_call", ts, name: call.name, input: call.input, toolUseId: call.id };
      }
      return;
    }
    case "tool": {
      const parts = [...textParts(message.content, "text")];
      const output = new ToolOutput(parts);
      const lines = [...take(output, 60)];
      const total = Array.from(output).length;
      if (total > lines.length) lines.push(`… ${total - lines.length} more lines`);
      const status = output.status;
      const id = message.tool_call_id ?? "";
      const entry = {
        kind: "tool_result",
        ts,
        toolUseId: id,
        content: lines.join("\n"),
        isError: /error|failed|denied/i.test(status),
      };
      const name = state.names.get(id);
      if (name) entry.toolName = name;
      yield entry;
      return;
    }
    case "user":
      yield* (function* () {
        for (const t of textParts(message.content, "text")) yield { kind: "user", ts, text: t };
      })();
      return;
    case "system":
      yield { kind: "system", ts, text: [...textParts(message.content, "text")].join("\n") };
      return;
    default:
      yield { kind: "stdout", ts, text: JSON.stringify(message) };
  }
}

function* usageEntries(event, ts) {
  const u = event.usage ?? {};
  yield {
    kind: "result",
    ts,
    text: event.status ?? "done",
    inputTokens: u.input_tokens ?? u.prompt_tokens ?? 0,
    outputTokens: u.output_tokens ?? u.completion_tokens ?? 0,
    cachedTokens: u.cached_tokens ?? 0,
    costUsd: 0,
    subtype: event.status === "error" ? "error" : "success",
    isError: event.status === "error",
    errors: event.error ? [String(event.error)] : [],
  };
}

function createStdoutParser() {
  const state = { names: new Map() };
  return {
    parseLine(line, ts) {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        return [{ kind: "stdout", ts, text: line }];
      }
      if (!msg || typeof msg !== "object" || Array.isArray(msg)) return [{ kind: "stdout", ts, text: line }];
      if (msg.type === "session") return [{ kind: "init", ts, model: msg.model ?? "kimi", sessionId: msg.session_id ?? "" }];
      if (msg.type === "usage") return Array.from(usageEntries(msg, ts));
      return Array.from(entriesFor(msg, ts, state));
    },
    reset() {
      state.names.clear();
    },
  };
}

function parseStdoutLine(line, ts) {
  return createStdoutParser().parseLine(line, ts);
}
