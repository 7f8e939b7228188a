"use strict";
// Imitates a Gemini CLI `--output-format stream-json` parser shipped as an esbuild CommonJS
// bundle: `__export` getter exports, `__toCommonJS` with an `__esModule` marker, and the
// trailing `0 && (module.exports = {...})` annotation. Written by hand in that shape.
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/ui-parser.ts
var src_exports = {};
__export(src_exports, {
  createStdoutParser: () => createStdoutParser,
  default: () => src_default,
  parseStdoutLine: () => parseStdoutLine
});
module.exports = __toCommonJS(src_exports);

// src/util.ts
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function str(value, fallback = "") {
  return typeof value === "string" ? value : fallback;
}
function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
function summarizeParams(params) {
  if (!isObject(params)) return {};
  const out = {};
  for (const [key, value] of Object.entries(params)) {
    out[key] = typeof value === "string" && value.length > 500 ? value.slice(0, 500) + "\u2026" : value;
  }
  return out;
}

// src/ui-parser.ts
var TOOL_LABELS = {
  read_file: "Read",
  read_many_files: "ReadMany",
  write_file: "Write",
  replace: "Edit",
  run_shell_command: "Shell",
  search_file_content: "Grep",
  glob: "Glob",
  list_directory: "ListDir",
  google_web_search: "WebSearch",
  web_fetch: "WebFetch",
  save_memory: "Memory"
};
function createStdoutParser() {
  const toolNames = /* @__PURE__ */ new Map();
  let pendingAssistant = false;
  function parseLine(line, ts) {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      return [{ kind: "stdout", ts, text: line }];
    }
    if (!isObject(event)) return [{ kind: "stdout", ts, text: line }];
    switch (event.type) {
      case "init":
        return [{ kind: "init", ts, model: str(event.model, "gemini"), sessionId: str(event.session_id) }];
      case "message": {
        const role = str(event.role);
        const content = str(event.content);
        if (!content) return [];
        if (role === "user") return [{ kind: "user", ts, text: content }];
        if (role === "assistant") {
          const delta = event.delta === true;
          pendingAssistant = delta;
          return [delta ? { kind: "assistant", ts, text: content, delta: true } : { kind: "assistant", ts, text: content }];
        }
        return [{ kind: "system", ts, text: content }];
      }
      case "tool_use": {
        pendingAssistant = false;
        const id = str(event.tool_id);
        const rawName = str(event.tool_name, "tool");
        const name = TOOL_LABELS[rawName] ?? rawName;
        toolNames.set(id, name);
        return [{ kind: "tool_call", ts, name, input: summarizeParams(event.parameters), toolUseId: id }];
      }
      case "tool_result": {
        const id = str(event.tool_id);
        const isError = event.status === "error";
        const content = isError && isObject(event.error) ? `${str(event.error.type, "error")}: ${str(event.error.message)}` : str(event.output);
        const entry = { kind: "tool_result", ts, toolUseId: id, content, isError };
        const name = toolNames.get(id);
        if (name) entry.toolName = name;
        toolNames.delete(id);
        return [entry];
      }
      case "error": {
        const severity = str(event.severity, "error");
        return [{ kind: severity === "warning" ? "system" : "stderr", ts, text: `${severity}: ${str(event.message)}` }];
      }
      case "result": {
        const stats = isObject(event.stats) ? event.stats : {};
        const failed = event.status !== "success";
        const errors = failed && isObject(event.error) ? [str(event.error.message)] : [];
        return [{
          kind: "result",
          ts,
          text: failed ? `Run ${str(event.status, "failed")}` : `Completed with ${num(stats.tool_calls)} tool calls`,
          inputTokens: num(stats.input_tokens),
          outputTokens: num(stats.output_tokens),
          cachedTokens: num(stats.cached),
          costUsd: 0,
          subtype: failed ? "error" : "success",
          isError: failed,
          errors
        }];
      }
      default:
        return [{ kind: "stdout", ts, text: line }];
    }
  }
  function reset() {
    toolNames.clear();
    pendingAssistant = false;
  }
  return { parseLine, reset };
}
var parseStdoutLine = (line, ts) => createStdoutParser().parseLine(line, ts);
var src_default = { createStdoutParser, parseStdoutLine };
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  createStdoutParser,
  parseStdoutLine
});
