// Imitates a minimal hand-written parser for Goose's plain-text `goose run` output
// (`─── shell | developer ───` tool headers, `key: value` argument lines, spinner frames).
// Like many real parsers it returns a bare entry object for most lines, `null` or `undefined`
// for lines it ignores, and an array only when a line yields two entries. ES module.

const SPINNER_RE = /^[◐◓◑◒⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s/u;
const TOOL_HEADER_RE = /^─{3}\s+([\w.-]+)\s+\|\s+([\w.-]+)\s+─*$/u;
const RULE_RE = /^[─━=\-]{8,}$/u;
const ARG_RE = /^(command|path|pattern|query|url|file_text|old_str|new_str|search|timeout_secs):\s?(.*)$/;

export function parseStdoutLine(line, ts) {
  if (SPINNER_RE.test(line)) return undefined;
  if (RULE_RE.test(line)) return null;

  const header = TOOL_HEADER_RE.exec(line);
  if (header) {
    return { kind: "tool_call", ts, name: header[1], input: { extension: header[2] } };
  }

  const arg = ARG_RE.exec(line);
  if (arg) {
    return { kind: "system", ts, text: `${arg[1]} = ${arg[2]}` };
  }

  if (line.startsWith("starting session")) {
    const m = /provider:\s*(\S+)\s+model:\s*(\S+)/.exec(line);
    return m ? { kind: "init", ts, model: `${m[1]}/${m[2]}`, sessionId: "goose" } : { kind: "system", ts, text: line };
  }
  if (/^(logging to|working directory:|session id:)/.test(line)) {
    return { kind: "system", ts, text: line };
  }
  if (/^(Error|error|ERROR)\b|^Tool call failed/.test(line)) {
    return { kind: "stderr", ts, text: line };
  }
  if (line.startsWith("$ ") || line.startsWith("> ")) {
    return { kind: "stdout", ts, text: line.slice(2) };
  }
  const done = /^Tool result \((\w+)\): (ok|error)(?:: (.*))?$/.exec(line);
  if (done) {
    const id = `goose-${done[1]}`;
    return [
      { kind: "tool_call", ts, name: done[1], input: {}, toolUseId: id },
      { kind: "tool_result", ts, toolUseId: id, content: done[3] ?? done[2], isError: done[2] === "error" },
    ];
  }
  const usage = /^Tokens: (\d+) in, (\d+) out(?:, (\d+) cached)?(?: \| \$([\d.]+))?$/.exec(line);
  if (usage) {
    return {
      kind: "result",
      ts,
      text: "",
      inputTokens: +usage[1],
      outputTokens: +usage[2],
      cachedTokens: +(usage[3] ?? 0),
      costUsd: +(usage[4] ?? 0),
      subtype: "success",
      isError: false,
      errors: [],
    };
  }
  if (line === "[ignored]") return;
  return { kind: "assistant", ts, text: line };
}
