// Imitates the Claude Code `--output-format stream-json` parser: one JSON event per line,
// `system/init`, assistant `message.content` blocks (text, thinking, tool_use), user blocks with
// `tool_result` whose content is a string or an array of text/image parts, and a final `result`
// with usage and cost. Stateless ES module exporting only `parseStdoutLine`.

function asRecord(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

function asString(value, fallback = "") {
  return typeof value === "string" ? value : fallback;
}

function asNumber(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function safeJsonParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function toolResultText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  const parts = [];
  for (const part of content) {
    const p = asRecord(part);
    if (!p) continue;
    if (p.type === "text") parts.push(asString(p.text));
    else if (p.type === "image") parts.push(`[image: ${asString(asRecord(p.source)?.media_type, "unknown")}]`);
    else if (p.type === "tool_reference") parts.push(`[tool: ${asString(p.tool_name)}]`);
  }
  return parts.join("\n");
}

function parseAssistant(message, ts) {
  const entries = [];
  const content = Array.isArray(message.content) ? message.content : [];
  for (const raw of content) {
    const block = asRecord(raw);
    if (!block) continue;
    switch (block.type) {
      case "text": {
        const text = asString(block.text);
        if (text) entries.push({ kind: "assistant", ts, text });
        break;
      }
      case "thinking": {
        const text = asString(block.thinking);
        if (text) entries.push({ kind: "thinking", ts, text });
        break;
      }
      case "redacted_thinking":
        entries.push({ kind: "thinking", ts, text: "[redacted thinking]" });
        break;
      case "tool_use":
      case "server_tool_use":
        entries.push({
          kind: "tool_call",
          ts,
          name: asString(block.name, "unknown"),
          input: block.input ?? {},
          toolUseId: asString(block.id) || undefined,
        });
        break;
      default:
        break;
    }
  }
  return entries;
}

function parseUser(message, ts) {
  const entries = [];
  if (typeof message.content === "string") {
    return message.content ? [{ kind: "user", ts, text: message.content }] : [];
  }
  const content = Array.isArray(message.content) ? message.content : [];
  for (const raw of content) {
    const block = asRecord(raw);
    if (!block) continue;
    if (block.type === "tool_result") {
      entries.push({
        kind: "tool_result",
        ts,
        toolUseId: asString(block.tool_use_id),
        content: toolResultText(block.content),
        isError: block.is_error === true,
      });
    } else if (block.type === "text") {
      const text = asString(block.text);
      if (text) entries.push({ kind: "user", ts, text });
    }
  }
  return entries;
}

export function parseStdoutLine(line, ts) {
  const parsed = asRecord(safeJsonParse(line));
  if (!parsed) return [{ kind: "stdout", ts, text: line }];

  const type = asString(parsed.type);

  if (type === "system" && parsed.subtype === "init") {
    return [{
      kind: "init",
      ts,
      model: asString(parsed.model, "unknown"),
      sessionId: asString(parsed.session_id),
    }];
  }
  if (type === "system") {
    const sub = asString(parsed.subtype, "event");
    if (sub === "compact_boundary") {
      const pre = asNumber(asRecord(parsed.compact_metadata)?.pre_tokens);
      return [{ kind: "system", ts, text: `Context compacted (${pre} tokens before)` }];
    }
    return [{ kind: "system", ts, text: `${sub}` }];
  }

  if (type === "assistant") {
    const message = asRecord(parsed.message) || {};
    return parseAssistant(message, ts);
  }

  if (type === "user") {
    const message = asRecord(parsed.message) || {};
    return parseUser(message, ts);
  }

  if (type === "result") {
    const usage = asRecord(parsed.usage) || {};
    const errors = Array.isArray(parsed.errors) ? parsed.errors.map((e) => String(e)) : [];
    return [{
      kind: "result",
      ts,
      text: asString(parsed.result),
      inputTokens: asNumber(usage.input_tokens) + asNumber(usage.cache_creation_input_tokens),
      outputTokens: asNumber(usage.output_tokens),
      cachedTokens: asNumber(usage.cache_read_input_tokens),
      costUsd: asNumber(parsed.total_cost_usd ?? parsed.cost_usd),
      subtype: asString(parsed.subtype, "success"),
      isError: parsed.is_error === true,
      errors,
    }];
  }

  return [{ kind: "stdout", ts, text: line }];
}
