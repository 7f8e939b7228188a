// Imitates a gateway-style adapter parser (OpenClaw-like plain-text lines:
// `<iso time> [agent|tool|gateway] …`) that formats times without Intl (`new Date(ts)`,
// `getUTCHours`, `padStart`, `toISOString`, `toUTCString`), measures durations between lines, and
// mints ids from `Date.now()` + `Math.random()`. CommonJS with `module.exports.x = …` assignments.

var LINE_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)\s+\[(\w+)\]\s+(.*)$/;
var TOOL_START_RE = /^start (\S+)(?: (\{.*\}))?$/;
var TOOL_END_RE = /^end (\S+) (ok|error)(?: \((.+)\))?$/;

function pad2(n) {
  return String(n).padStart(2, "0");
}

function clock(date) {
  return pad2(date.getUTCHours()) + ":" + pad2(date.getUTCMinutes()) + ":" + pad2(date.getUTCSeconds()) + "." + String(date.getUTCMilliseconds()).padStart(3, "0");
}

function humanDuration(ms) {
  if (!isFinite(ms)) return "?";
  if (ms < 1000) return ms + "ms";
  var s = ms / 1000;
  if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + "s";
  var m = Math.floor(s / 60);
  return m + "m" + pad2(Math.round(s - m * 60)) + "s";
}

function mintId(prefix) {
  return prefix + "-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
}

module.exports.createStdoutParser = function createStdoutParser() {
  var createdAt = Date.now();
  var lastTs = null;
  var runStart = null;
  var openTools = [];
  var runId = null;

  function stamp(ts) {
    var d = new Date(ts);
    var gap = lastTs === null ? 0 : d.getTime() - lastTs;
    lastTs = d.getTime();
    return { d: d, gap: gap };
  }

  function parseLine(line, ts) {
    var st = stamp(ts);
    var m = LINE_RE.exec(line);
    if (!m) {
      return [{ kind: "stdout", ts: ts, text: line, sinceLastMs: st.gap }];
    }
    var logged = new Date(m[1]);
    var source = m[2];
    var body = m[3];
    var prefix = "[" + clock(logged) + "] ";

    if (source === "gateway") {
      if (/^connected/.test(body)) {
        return [{
          kind: "system", ts: ts, text: prefix + body,
          parserCreatedAt: new Date(createdAt).toISOString(),
          wallClock: Date(),
          utc: new Date().toUTCString(),
          tzOffset: new Date().getTimezoneOffset()
        }];
      }
      return [{ kind: /error|refused|closed/i.test(body) ? "stderr" : "system", ts: ts, text: prefix + body }];
    }

    if (source === "agent") {
      var started = /^run started runId=(\S+) model=(\S+)/.exec(body);
      if (started) {
        runId = started[1];
        runStart = logged.getTime();
        return [{ kind: "init", ts: ts, model: started[2], sessionId: runId + "@" + new Date(Date.now()).toISOString().slice(0, 10) }];
      }
      if (body.indexOf("assistant: ") === 0) return [{ kind: "assistant", ts: ts, text: body.slice(11) }];
      if (body.indexOf("thinking: ") === 0) return [{ kind: "thinking", ts: ts, text: body.slice(10) }];
      if (body.indexOf("user: ") === 0) return [{ kind: "user", ts: ts, text: body.slice(6) }];
      var end = /^lifecycle end(?: tokens=(\d+)\/(\d+)(?:\/(\d+))?)?(?: cost=\$([\d.]+))?/.exec(body);
      if (end) {
        var total = runStart === null ? NaN : logged.getTime() - runStart;
        return [{
          kind: "result", ts: ts,
          text: "run " + (runId || "?") + " finished in " + humanDuration(total) + " (log time), " + humanDuration(Date.now() - Date.parse("2026-01-01T00:00:00.000Z")) + " (replay time)",
          inputTokens: Number(end[1] || 0), outputTokens: Number(end[2] || 0), cachedTokens: Number(end[3] || 0),
          costUsd: Number(end[4] || 0), subtype: "success", isError: false, errors: [],
          durationMs: total
        }];
      }
      if (/^lifecycle error/.test(body)) {
        return [{ kind: "result", ts: ts, text: body, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "error", isError: true, errors: [body.replace(/^lifecycle error:?\s*/, "")] }];
      }
      return [{ kind: "system", ts: ts, text: prefix + body }];
    }

    if (source === "tool") {
      var s = TOOL_START_RE.exec(body);
      if (s) {
        var input = {};
        if (s[2]) {
          try { input = JSON.parse(s[2]); } catch (e) { input = { raw: s[2] }; }
        }
        var id = mintId("call");
        openTools.push({ id: id, name: s[1], at: logged.getTime(), output: [] });
        return [{ kind: "tool_call", ts: ts, name: s[1], input: input, toolUseId: id }];
      }
      if (body.indexOf("output: ") === 0) {
        var top = openTools[openTools.length - 1];
        if (top) top.output.push(body.slice(8));
        return [];
      }
      var e2 = TOOL_END_RE.exec(body);
      if (e2) {
        var idx = -1;
        for (var i = openTools.length - 1; i >= 0; i--) {
          if (openTools[i].name === e2[1]) { idx = i; break; }
        }
        var t = idx >= 0 ? openTools.splice(idx, 1)[0] : { id: mintId("orphan"), name: e2[1], at: logged.getTime(), output: [] };
        var took = logged.getTime() - t.at;
        return [{
          kind: "tool_result", ts: ts, toolUseId: t.id, toolName: t.name,
          content: (t.output.length ? t.output.join("\n") + "\n" : "") + e2[2] + " after " + humanDuration(took) + (e2[3] ? " (" + e2[3] + ")" : ""),
          isError: e2[2] === "error",
          durationMs: took
        }];
      }
      return [{ kind: "system", ts: ts, text: prefix + body }];
    }

    return [{ kind: "stdout", ts: ts, text: line }];
  }

  function reset() {
    lastTs = null;
    runStart = null;
    openTools = [];
    runId = null;
  }

  return { parseLine: parseLine, reset: reset };
};

module.exports.parseStdoutLine = function parseStdoutLine(line, ts) {
  return module.exports.createStdoutParser().parseLine(line, ts);
};
