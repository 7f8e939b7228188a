// Imitates the second hermes-family style (quiet/boxed CLI output): assistant text inside a
// `╭─ ⚕ Hermes ─╮ … │ … ╰─╯` box and one-line `┊ <emoji> <tool> <args> <duration>` activity rows.
// Keeps a module-level counter (`tool-1`, `tool-2`, …) and a module-level default parser instance
// that the only export, `parseStdoutLine`, delegates to. ES module.

let toolCounter = 0;
let boxDepth = 0;

const ROW_RE = /^┊\s+(\p{Extended_Pictographic}\uFE0F?)\s+(\w[\w-]*)\s+(.*?)\s+(\d+(?:\.\d+)?)s$/u;
const ROW_FAIL_RE = /^┊\s+(?:✗|✘|❌)\s+(\w[\w-]*)\s+(.*?)(?:\s+\[(.+)\])?$/u;
const BOX_OPEN_RE = /^╭─+\s*(?:⚕\s*)?(.*?)\s*─*╮?$/u;
const BOX_CLOSE_RE = /^╰─+╯?$/u;
const BOX_BODY_RE = /^│\s?(.*?)\s*│?$/u;

function nextId() {
  toolCounter += 1;
  return "tool-" + toolCounter;
}

function inputFor(tool, args) {
  switch (tool) {
    case "terminal":
      return { command: args };
    case "read_file":
    case "write_file":
    case "patch":
      return { path: args };
    case "search_files":
      return { pattern: args.replace(/^"|"$/g, "") };
    default:
      return { args };
  }
}

function makeParser() {
  let title = "";
  let assistantLines = 0;

  return {
    parseLine(line, ts) {
      if (BOX_CLOSE_RE.test(line)) {
        boxDepth = Math.max(0, boxDepth - 1);
        const n = assistantLines;
        assistantLines = 0;
        return n === 0 ? [{ kind: "system", ts, text: `${title}: (empty reply)` }] : [];
      }
      const open = BOX_OPEN_RE.exec(line);
      if (open && line.startsWith("╭")) {
        boxDepth += 1;
        title = open[1] || "Hermes";
        assistantLines = 0;
        return [];
      }
      if (boxDepth > 0) {
        const body = BOX_BODY_RE.exec(line);
        const text = body ? body[1] : line;
        if (!text) return [];
        assistantLines += 1;
        return [{ kind: "assistant", ts, text }];
      }
      const row = ROW_RE.exec(line);
      if (row) {
        const [, , tool, args, secs] = row;
        const id = nextId();
        return [
          { kind: "tool_call", ts, name: tool, input: inputFor(tool, args), toolUseId: id },
          { kind: "tool_result", ts, toolUseId: id, content: `${tool} finished in ${secs}s`, isError: false },
        ];
      }
      const fail = ROW_FAIL_RE.exec(line);
      if (fail) {
        const id = nextId();
        return [
          { kind: "tool_call", ts, name: fail[1], input: inputFor(fail[1], fail[2]), toolUseId: id },
          { kind: "tool_result", ts, toolUseId: id, content: fail[3] || "failed", isError: true },
        ];
      }
      if (line.startsWith("┊")) {
        return [{ kind: "system", ts, text: line.replace(/^┊\s*/u, "") }];
      }
      if (/^(?:Session|Resumed session):?\s+\S+/.test(line)) {
        const id = line.split(/\s+/).pop();
        return [{ kind: "init", ts, model: "hermes", sessionId: id }];
      }
      if (/^(?:Error|Traceback|\w+Error:)/.test(line)) {
        return [{ kind: "stderr", ts, text: line }];
      }
      return [{ kind: "stdout", ts, text: line }];
    },
    reset() {
      title = "";
      assistantLines = 0;
      boxDepth = 0;
    },
  };
}

const defaultParser = makeParser();

export function parseStdoutLine(line, ts) {
  return defaultParser.parseLine(line, ts);
}
