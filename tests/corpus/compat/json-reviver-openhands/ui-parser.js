// Imitates an OpenHands event-stream parser (`action` / `observation` JSON lines). Exercises a
// JSON.parse reviver, duplicate and integer-like keys, Map/Set, sort comparators, toFixed, FNV-1a
// via Math.imul (no BigInt) and a global-regex `lastIndex` loop. CommonJS (`exports.x = …`).
// The sample line containing `@@parsebox-expect-throw@@` makes parseLine throw on purpose.

var DROP_KEYS = new Set(["llm_metrics", "tool_call_metadata", "screenshot"]);
var ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
var PATH_RE = /(?:^|[\s"'(=])((?:\/[\w.@-]+)+\.[a-z]{1,5})\b/g;

function reviver(key, value) {
  if (DROP_KEYS.has(key)) return undefined;
  if (typeof value === "string" && ISO_RE.test(value)) return Date.parse(value);
  return value;
}

function fnv1a(text) {
  var h = 0x811c9dc5;
  for (var i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

function pathsIn(text) {
  var found = [];
  var m;
  PATH_RE.lastIndex = 0;
  while ((m = PATH_RE.exec(text)) !== null) {
    found.push(m[1]);
    if (m[0].length === 0) PATH_RE.lastIndex++;
  }
  return found;
}

function createStdoutParser() {
  var byId = new Map(); // event id -> { name, toolUseId }
  var touched = new Set();
  var costs = [];
  var firstTs = null;

  function toolIdFor(ev) {
    return "oh-" + ev.id + "-" + fnv1a(JSON.stringify(ev.args || {})).slice(0, 6);
  }

  function parseLine(line, ts) {
    if (line.indexOf("@@parsebox-expect-throw@@") !== -1) {
      throw new Error("intentional failure for line marked @@parsebox-expect-throw@@");
    }
    var ev;
    try {
      ev = JSON.parse(line, reviver);
    } catch (e) {
      return [{ kind: "stdout", ts: ts, text: line }];
    }
    if (!ev || typeof ev !== "object" || Array.isArray(ev)) return [{ kind: "stdout", ts: ts, text: line }];
    if (typeof ev.timestamp === "number" && firstTs === null) firstTs = ev.timestamp;
    if (ev.llm_cost !== undefined) costs.push(Number(ev.llm_cost) || 0);

    if (ev.action) {
      var args = ev.args || {};
      switch (ev.action) {
        case "system":
          return [{ kind: "init", ts: ts, model: String(args.model || "openhands"), sessionId: String(args.conversation_id || "") }];
        case "message":
          if (ev.source === "user") return [{ kind: "user", ts: ts, text: String(args.content || "") }];
          return [{ kind: "assistant", ts: ts, text: String(args.content || "") }];
        case "think":
          return [{ kind: "thinking", ts: ts, text: String(args.thought || "") }];
        case "finish": {
          var sorted = costs.slice().sort(function (a, b) { return b - a; });
          var total = costs.reduce(function (s, c) { return s + c; }, 0);
          var files = Array.from(touched).sort(function (a, b) {
            var da = a.split("/").length;
            var db = b.split("/").length;
            return da - db || (a < b ? -1 : a > b ? 1 : 0);
          });
          var elapsed = typeof ev.timestamp === "number" && firstTs !== null ? ev.timestamp - firstTs : 0;
          return [{
            kind: "result", ts: ts,
            text: String(args.final_thought || "") + (files.length ? "\nFiles: " + files.join(", ") : ""),
            inputTokens: Number(args.input_tokens || 0), outputTokens: Number(args.output_tokens || 0), cachedTokens: 0,
            costUsd: Number(total.toFixed(4)), subtype: args.task_completed === "false" ? "incomplete" : "success",
            isError: false, errors: [],
            maxStepCost: sorted.length ? sorted[0].toFixed(3) : "0.000",
            rawCostSum: total,
            elapsedMinutes: (elapsed / 60000).toFixed(1)
          }];
        }
        default: {
          var toolUseId = toolIdFor(ev);
          var name = ev.action === "run" ? "bash" : ev.action === "run_ipython" ? "ipython" : ev.action;
          byId.set(ev.id, { name: name, toolUseId: toolUseId });
          var input = {};
          var keys = Object.keys(args).sort();
          for (var i = 0; i < keys.length; i++) {
            if (keys[i] === "thought" || keys[i] === "security_risk") continue;
            input[keys[i]] = args[keys[i]];
          }
          var out = [];
          if (args.thought) out.push({ kind: "thinking", ts: ts, text: String(args.thought) });
          out.push({ kind: "tool_call", ts: ts, name: name, input: input, toolUseId: toolUseId });
          return out;
        }
      }
    }

    if (ev.observation) {
      var content = typeof ev.content === "string" ? ev.content : JSON.stringify(ev.content);
      var extras = ev.extras || {};
      var paths = pathsIn(content + " " + (extras.path || ""));
      for (var j = 0; j < paths.length; j++) touched.add(paths[j]);
      if (ev.observation === "error") return [{ kind: "stderr", ts: ts, text: content }];
      if (ev.observation === "agent_state_changed") {
        return [{ kind: "system", ts: ts, text: "state: " + String(extras.agent_state) }];
      }
      var cause = byId.get(ev.cause);
      if (!cause) return [{ kind: "system", ts: ts, text: ev.observation + ": " + content.slice(0, 200) }];
      byId.delete(ev.cause);
      var exit = extras.metadata && typeof extras.metadata.exit_code === "number" ? extras.metadata.exit_code : 0;
      return [{
        kind: "tool_result", ts: ts, toolUseId: cause.toolUseId, toolName: cause.name,
        content: content, isError: exit !== 0
      }];
    }

    return [{ kind: "stdout", ts: ts, text: line }];
  }

  function reset() {
    byId.clear();
    touched.clear();
    costs = [];
    firstTs = null;
  }

  return { parseLine: parseLine, reset: reset };
}

exports.createStdoutParser = createStdoutParser;
exports.parseStdoutLine = function (line, ts) {
  return createStdoutParser().parseLine(line, ts);
};
