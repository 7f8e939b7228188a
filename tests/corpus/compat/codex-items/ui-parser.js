// Imitates the Codex CLI `exec --json` parser: `thread.started`, `item.started` /
// `item.completed` for command_execution, agent_message, reasoning, file_change (rendered as
// `diff` entries), mcp_tool_call, web_search, todo_list and error items, `turn.completed` usage.
// CommonJS inside a UMD wrapper (sloppy mode, no "use strict"), stateful factory.
(function (root, factory) {
  if (typeof module === "object" && module && module.exports) {
    module.exports = factory();
  } else if (root) {
    root.codexUiParser = factory();
  }
})(this, function () {
  var MAX_DIFF_LINES = 40;

  function str(v) {
    return typeof v === "string" ? v : "";
  }

  function num(v) {
    return typeof v === "number" && isFinite(v) ? v : 0;
  }

  function diffEntries(ts, change) {
    var out = [];
    var kindWord = change.kind === "add" ? "added" : change.kind === "delete" ? "deleted" : "modified";
    out.push({ kind: "diff", ts: ts, changeType: "file_header", text: change.path + " (" + kindWord + ")" });
    var diff = str(change.diff);
    if (!diff) return out;
    var lines = diff.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    var shown = 0;
    for (var i = 0; i < lines.length; i++) {
      var l = lines[i];
      if (/^(diff --git|index |new file mode|deleted file mode|--- |\+\+\+ )/.test(l)) continue;
      if (shown >= MAX_DIFF_LINES) {
        out.push({ kind: "diff", ts: ts, changeType: "truncation", text: "… " + (lines.length - i) + " more lines" });
        break;
      }
      var type;
      if (l.indexOf("@@") === 0) type = "hunk";
      else if (l.charAt(0) === "+") type = "add";
      else if (l.charAt(0) === "-") type = "remove";
      else type = "context";
      out.push({ kind: "diff", ts: ts, changeType: type, text: type === "hunk" ? l : l.substring(1) });
      shown++;
    }
    return out;
  }

  function createStdoutParser() {
    var threadId = "";
    var started = {};

    function itemEntries(phase, item, ts) {
      var type = str(item.type);
      var id = str(item.id);
      if (type === "command_execution") {
        if (phase === "started") {
          started[id] = true;
          return [{ kind: "tool_call", ts: ts, name: "shell", input: { command: str(item.command) }, toolUseId: id }];
        }
        var out = [];
        if (!started[id]) out.push({ kind: "tool_call", ts: ts, name: "shell", input: { command: str(item.command) }, toolUseId: id });
        delete started[id];
        var code = item.exit_code;
        var content = str(item.aggregated_output);
        if (typeof code === "number") content += (content && content.slice(-1) !== "\n" ? "\n" : "") + "exit code " + code;
        out.push({ kind: "tool_result", ts: ts, toolUseId: id, content: content, isError: item.status === "failed" || (typeof code === "number" && code !== 0) });
        return out;
      }
      if (phase !== "completed") {
        if (type === "mcp_tool_call") {
          started[id] = true;
          return [{ kind: "tool_call", ts: ts, name: str(item.server) + "." + str(item.tool), input: item.arguments == null ? {} : item.arguments, toolUseId: id }];
        }
        return [];
      }
      switch (type) {
        case "agent_message":
          return [{ kind: "assistant", ts: ts, text: str(item.text) }];
        case "reasoning":
          return [{ kind: "thinking", ts: ts, text: str(item.text).replace(/^\*\*(.+?)\*\*\s*/, "$1: ") }];
        case "file_change": {
          var changes = Array.isArray(item.changes) ? item.changes : [];
          var entries = [{ kind: "tool_call", ts: ts, name: "apply_patch", input: { files: changes.map(function (c) { return c.path; }) }, toolUseId: id }];
          for (var i = 0; i < changes.length; i++) entries = entries.concat(diffEntries(ts, changes[i]));
          entries.push({ kind: "tool_result", ts: ts, toolUseId: id, content: item.status === "completed" ? "patch applied" : "patch " + str(item.status), isError: item.status === "failed" });
          return entries;
        }
        case "mcp_tool_call": {
          var res = [];
          if (!started[id]) res.push({ kind: "tool_call", ts: ts, name: str(item.server) + "." + str(item.tool), input: item.arguments == null ? {} : item.arguments, toolUseId: id });
          delete started[id];
          var text = item.error ? str(item.error.message) : JSON.stringify(item.result == null ? null : item.result);
          res.push({ kind: "tool_result", ts: ts, toolUseId: id, content: text, isError: !!item.error || item.status === "failed" });
          return res;
        }
        case "web_search":
          return [{ kind: "tool_call", ts: ts, name: "web_search", input: { query: str(item.query) }, toolUseId: id }];
        case "todo_list": {
          var items = Array.isArray(item.items) ? item.items : [];
          var lines = items.map(function (t) { return (t.completed ? "[x] " : "[ ] ") + str(t.text); });
          return [{ kind: "system", ts: ts, text: "Plan:\n" + lines.join("\n") }];
        }
        case "error":
          return [{ kind: "stderr", ts: ts, text: str(item.message) }];
        default:
          return [];
      }
    }

    function parseLine(line, ts) {
      var ev;
      try {
        ev = JSON.parse(line);
      } catch (e) {
        return [{ kind: "stdout", ts: ts, text: line }];
      }
      if (!ev || typeof ev !== "object" || typeof ev.type !== "string") return [{ kind: "stdout", ts: ts, text: line }];
      switch (ev.type) {
        case "thread.started":
          threadId = str(ev.thread_id);
          return [{ kind: "init", ts: ts, model: str(ev.model) || "codex", sessionId: threadId }];
        case "turn.started":
          return [];
        case "item.started":
        case "item.updated":
          return ev.item ? itemEntries(ev.type === "item.started" ? "started" : "updated", ev.item, ts) : [];
        case "item.completed":
          return ev.item ? itemEntries("completed", ev.item, ts) : [];
        case "turn.completed": {
          var u = ev.usage || {};
          return [{
            kind: "result", ts: ts, text: "",
            inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens), cachedTokens: num(u.cached_input_tokens),
            costUsd: 0, subtype: "success", isError: false, errors: [],
          }];
        }
        case "turn.failed": {
          var msg = ev.error && ev.error.message ? String(ev.error.message) : "turn failed";
          return [{ kind: "result", ts: ts, text: msg, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "error", isError: true, errors: [msg] }];
        }
        case "error":
          return [{ kind: "stderr", ts: ts, text: str(ev.message) }];
        default:
          return [{ kind: "stdout", ts: ts, text: line }];
      }
    }

    function reset() {
      threadId = "";
      started = {};
    }

    return { parseLine: parseLine, reset: reset };
  }

  function parseStdoutLine(line, ts) {
    return createStdoutParser().parseLine(line, ts);
  }

  return { createStdoutParser: createStdoutParser, parseStdoutLine: parseStdoutLine };
});
