// Imitates a Claude Code stream-json parser run with `--include-partial-messages`: `stream_event`
// lines carrying `content_block_start` / `content_block_delta` (text_delta, thinking_delta,
// input_json_delta) become `delta: true` assistant/thinking entries; tool input JSON is assembled
// across deltas; the final full `assistant` message is de-duplicated. ES module, stateful factory.

const KNOWN_NOISE = new Set(["message_stop", "ping", "signature_delta"]);

export function createStdoutParser() {
  // Per message: index -> { type, id, name, json }
  let blocks = new Map();
  let streamedMessageIds = new Set();
  let currentMessageId = null;
  let sessionId = "";
  let outputTokens = 0;

  function reset() {
    blocks = new Map();
    streamedMessageIds = new Set();
    currentMessageId = null;
    sessionId = "";
    outputTokens = 0;
  }

  function onStreamEvent(ev, ts) {
    switch (ev.type) {
      case "message_start": {
        currentMessageId = ev.message?.id ?? null;
        blocks = new Map();
        return [];
      }
      case "content_block_start": {
        const cb = ev.content_block || {};
        blocks.set(ev.index, { type: cb.type, id: cb.id, name: cb.name, json: "" });
        if (currentMessageId) streamedMessageIds.add(currentMessageId);
        if (cb.type === "text" && cb.text) return [{ kind: "assistant", ts, text: cb.text, delta: true }];
        return [];
      }
      case "content_block_delta": {
        const d = ev.delta || {};
        if (d.type === "text_delta") return d.text ? [{ kind: "assistant", ts, text: d.text, delta: true }] : [];
        if (d.type === "thinking_delta") return d.thinking ? [{ kind: "thinking", ts, text: d.thinking, delta: true }] : [];
        if (d.type === "input_json_delta") {
          const b = blocks.get(ev.index);
          if (b) b.json += d.partial_json ?? "";
          return [];
        }
        return [];
      }
      case "content_block_stop": {
        const b = blocks.get(ev.index);
        blocks.delete(ev.index);
        if (!b || b.type !== "tool_use") return [];
        let input = {};
        if (b.json) {
          try {
            input = JSON.parse(b.json);
          } catch {
            input = { _raw: b.json };
          }
        }
        return [{ kind: "tool_call", ts, name: b.name || "tool", input, toolUseId: b.id }];
      }
      case "message_delta": {
        outputTokens += ev.usage?.output_tokens ?? 0;
        return [];
      }
      default:
        return [];
    }
  }

  function parseLine(line, ts) {
    if (line[0] !== "{") return [{ kind: "stdout", ts, text: line }];
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line }];
    }
    if (!msg || typeof msg !== "object") return [{ kind: "stdout", ts, text: line }];

    switch (msg.type) {
      case "system":
        if (msg.subtype === "init") {
          sessionId = msg.session_id || sessionId;
          return [{ kind: "init", ts, model: msg.model || "claude", sessionId }];
        }
        return [{ kind: "system", ts, text: `system: ${msg.subtype || "event"}` }];
      case "stream_event": {
        const ev = msg.event || {};
        if (KNOWN_NOISE.has(ev.type) || KNOWN_NOISE.has(ev.delta?.type)) return [];
        return onStreamEvent(ev, ts);
      }
      case "assistant": {
        const m = msg.message || {};
        const streamed = m.id && streamedMessageIds.has(m.id);
        const out = [];
        for (const block of m.content || []) {
          if (streamed) continue; // already rendered from deltas (tool calls included)
          if (block.type === "text") out.push({ kind: "assistant", ts, text: block.text });
          else if (block.type === "thinking") out.push({ kind: "thinking", ts, text: block.thinking });
          else if (block.type === "tool_use") out.push({ kind: "tool_call", ts, name: block.name, input: block.input, toolUseId: block.id });
        }
        return out;
      }
      case "user": {
        const content = msg.message?.content;
        if (!Array.isArray(content)) return typeof content === "string" ? [{ kind: "user", ts, text: content }] : [];
        return content
          .filter((b) => b && b.type === "tool_result")
          .map((b) => ({
            kind: "tool_result",
            ts,
            toolUseId: b.tool_use_id,
            content: typeof b.content === "string" ? b.content : (b.content || []).map((p) => p.text ?? "").join("\n"),
            isError: !!b.is_error,
          }));
      }
      case "result": {
        const u = msg.usage || {};
        return [{
          kind: "result",
          ts,
          text: msg.result ?? "",
          inputTokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
          outputTokens: u.output_tokens ?? outputTokens,
          cachedTokens: u.cache_read_input_tokens ?? 0,
          costUsd: msg.total_cost_usd ?? 0,
          subtype: msg.subtype ?? "success",
          isError: msg.is_error === true,
          errors: [],
        }];
      }
      default:
        return [{ kind: "stdout", ts, text: line }];
    }
  }

  return { parseLine, reset };
}

export function parseStdoutLine(line, ts) {
  return createStdoutParser().parseLine(line, ts);
}
