// Imitates a hand-written `.cjs` parser for Aider's plain-text terminal output (banner lines,
// `> ` user prompts, SEARCH/REPLACE markers, "Applied edit to", "Commit <sha>", token/cost
// lines). Stateless, ES5-flavoured, rule table of regexes; `module.exports = { parseStdoutLine }`.

var RULES = [
  [/^Aider v(\d+\.\d+\.\d+\S*)$/, function (m, ts) {
    return { kind: "system", ts: ts, text: "Aider " + m[1] };
  }],
  [/^Main model: (\S+)(?: with (\S+) edit format)?(.*)$/, function (m, ts) {
    return { kind: "init", ts: ts, model: m[1], sessionId: "aider-" + (m[2] || "whole") };
  }],
  [/^(?:Weak model|Editor model|Git repo|Repo-map|Cur working dir):/, function (m, ts, line) {
    return { kind: "system", ts: ts, text: line };
  }],
  [/^> (.*)$/, function (m, ts) {
    return { kind: "user", ts: ts, text: m[1] };
  }],
  [/^(<{7} SEARCH|={7}|>{7} REPLACE)$/, function (m, ts) {
    return { kind: "diff", ts: ts, changeType: "hunk", text: m[1] };
  }],
  [/^Applied edit to (.+)$/, function (m, ts) {
    var id = "edit:" + m[1];
    return [
      { kind: "tool_call", ts: ts, name: "edit", input: { path: m[1] }, toolUseId: id },
      { kind: "tool_result", ts: ts, toolUseId: id, content: "applied", isError: false }
    ];
  }],
  [/^Did not apply edit to (.+?)(?: \((.+)\))?$/, function (m, ts) {
    var id = "edit:" + m[1];
    return [
      { kind: "tool_call", ts: ts, name: "edit", input: { path: m[1] }, toolUseId: id },
      { kind: "tool_result", ts: ts, toolUseId: id, content: m[2] || "not applied", isError: true }
    ];
  }],
  [/^Commit ([0-9a-f]{7,40}) (.+)$/, function (m, ts) {
    return { kind: "system", ts: ts, text: "git commit " + m[1] + ": " + m[2] };
  }],
  [/^Tokens: ([\d.]+)(k?) sent(?:, ([\d.]+)(k?) cache write)?(?:, ([\d.]+)(k?) cache hit)?, ([\d.]+)(k?) received\. Cost: \$([\d.]+) message, \$([\d.]+) session\.$/, function (m, ts, line) {
    function n(v, k) { return v ? Math.round(parseFloat(v) * (k ? 1000 : 1)) : 0; }
    return {
      kind: "result", ts: ts, text: line,
      inputTokens: n(m[1], m[2]), outputTokens: n(m[7], m[8]), cachedTokens: n(m[5], m[6]),
      costUsd: parseFloat(m[10]), subtype: "success", isError: false, errors: []
    };
  }],
  [/^Running (.+)$/, function (m, ts) {
    return { kind: "tool_call", ts: ts, name: "shell", input: { command: m[1] }, toolUseId: "run:" + m[1] };
  }],
  [/^Added (\S+) to the chat\.?$/, function (m, ts, line) {
    return { kind: "system", ts: ts, text: line };
  }],
  [/^(?:litellm\.\w+Error|Error|Warning|Traceback|\w+Error):?/, function (m, ts, line) {
    return { kind: "stderr", ts: ts, text: line };
  }],
  [/^(?:Retrying in [\d.]+ seconds|Scraping |Add .+ to the chat\?|Summarizing)/, function (m, ts, line) {
    return { kind: "system", ts: ts, text: line };
  }]
];

function parseStdoutLine(line, ts) {
  // Progress output arrives with carriage returns; keep the last frame.
  var text = line.indexOf("\r") >= 0 ? line.split("\r").pop().trim() : line;
  if (!text) return [];
  for (var i = 0; i < RULES.length; i++) {
    var m = RULES[i][0].exec(text);
    if (m) {
      var out = RULES[i][1](m, ts, text);
      return Array.isArray(out) ? out : [out];
    }
  }
  if (/^[\w./-]+\.(?:py|ts|js|md|toml|json|cfg|txt)$/.test(text)) {
    return [{ kind: "diff", ts: ts, changeType: "file_header", text: text }];
  }
  return [{ kind: "assistant", ts: ts, text: text }];
}

module.exports = { parseStdoutLine };
