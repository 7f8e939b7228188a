// How the `parsebox` command shows things on a terminal: the pretty transcript (one block per
// entry, coloured by kind as Paperclip's `paperclip run --watch` prints a run), a handful of
// ANSI colours, the `--color` / NO_COLOR decision, and control characters made visible so that
// text from a log or an untrusted parser cannot drive the user's terminal.

/** The SGR code of each style; `plain` writes the text unchanged. */
const STYLES = {
  plain: "",
  bold: "\x1b[1m",
  gray: "\x1b[90m",
  red: "\x1b[31m",
  green: "\x1b[32m",
  yellow: "\x1b[33m",
  blue: "\x1b[34m",
  magenta: "\x1b[35m",
  cyan: "\x1b[36m",
};

/**
 * Whether stdout gets colour: `--color always|never`, else a terminal without NO_COLOR (any
 * non-empty value, https://no-color.org).
 * @param {"auto" | "always" | "never"} choice
 */
export function useColor(choice) {
  if (choice === "always") return true;
  if (choice === "never") return false;
  return process.stdout.isTTY === true && !process.env.NO_COLOR;
}

/** Whether `c` (one code point) is shown escaped: C0/C1 controls, DEL, U+2028/9; not \n or \t. */
const needsEscape = (c) => {
  if (c === "\n" || c === "\t") return false;
  const n = c.codePointAt(0);
  return n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x2028 || n === 0x2029;
};

/**
 * Control characters made visible instead of acting on the terminal: ESC becomes `\e`, CR
 * `\r` (a bare CR would let a line overwrite itself), other controls `\u{…}`; newlines and
 * tabs are kept.
 * @param {string} text
 */
export function escapeControls(text) {
  // eslint-disable-next-line no-control-regex
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/.test(text)) return text;
  let out = "";
  for (const c of text) {
    if (c === "\x1b") out += "\\e";
    else if (c === "\r") out += "\\r";
    else if (needsEscape(c)) out += `\\u{${c.codePointAt(0).toString(16)}}`;
    else out += c;
  }
  return out;
}

/** Paints text in a style when colour is on, line by line (a pager that cuts lines keeps it). */
export class Painter {
  /** @param {boolean} color */
  constructor(color) {
    this.color = color;
  }

  /**
   * @param {keyof typeof STYLES} style
   * @param {string} text
   */
  paint(style, text) {
    const escaped = escapeControls(text);
    if (!this.color || style === "plain") return escaped;
    return escaped
      .split("\n")
      .map((l) => (l === "" ? "" : `${STYLES[style]}${l}\x1b[0m`))
      .join("\n");
  }
}

/**
 * A one-line preview of `text` for reports: at most `max` characters, controls escaped; a
 * longer one is cut and says its length in characters (`chars`, when only a prefix is given).
 * @param {string} text
 * @param {number} max
 * @param {number} [chars]
 */
export function preview(text, max, chars) {
  const escaped = escapeControls(text).replaceAll("\n", "\\n").replaceAll("\t", "\\t");
  const points = [...escaped];
  if (points.length <= max) return escaped;
  return `${points.slice(0, Math.max(0, max - 1)).join("")}… (${chars ?? [...text].length} chars)`;
}

/** The text without one trailing line break (`\n` or `\r\n`). */
const chomp = (text) => (text.endsWith("\n") ? text.slice(0, text.endsWith("\r\n") ? -2 : -1) : text);

/**
 * One entry as terminal text (no trailing newline).
 * @param {import("../index.js").TranscriptEntry} e
 * @param {Painter} p
 */
export function pretty(e, p) {
  switch (e.kind) {
    case "assistant":
      return p.paint("green", `assistant: ${e.text}`);
    case "thinking":
      return p.paint("gray", `thinking: ${e.text}`);
    case "user":
      return p.paint("magenta", `user: ${e.text}`);
    case "stdout":
      return p.paint("plain", e.text);
    // stderr and system chunks keep their line breaks (SPEC §5); the one that ends the chunk
    // would print as an empty line.
    case "stderr":
      return p.paint("red", `[stderr] ${chomp(e.text)}`);
    case "system":
      return `${p.paint("yellow", "[system]")} ${p.paint("plain", chomp(e.text))}`;
    case "init":
      return p.paint("blue", `init (model: ${e.model}${e.sessionId ? `, session: ${e.sessionId}` : ""})`);
    case "tool_call": {
      const id = e.toolUseId != null ? ` [${e.toolUseId}]` : "";
      let out = p.paint("yellow", `tool_call: ${e.name}${id}`);
      if (e.input !== undefined && e.input !== null) out += `\n${p.paint("gray", JSON.stringify(e.input, null, 2))}`;
      return out;
    }
    case "tool_result": {
      let head = "tool_result";
      if (e.isError) head += " (error)";
      if (e.toolName != null) head += `: ${e.toolName}`;
      if (e.toolUseId) head += ` [${e.toolUseId}]`;
      let out = p.paint(e.isError ? "red" : "cyan", head);
      if (e.content) out += `\n${p.paint(e.isError ? "red" : "gray", e.content)}`;
      return out;
    }
    case "result": {
      const parts = [];
      if (e.text) parts.push(p.paint("green", "result:"), p.paint("plain", e.text));
      const errors = e.errors ?? [];
      if (e.isError || (e.subtype ?? "").startsWith("error") || errors.length > 0) {
        parts.push(p.paint("red", `result: subtype=${e.subtype || "unknown"} is_error=${e.isError === true}`));
        if (errors.length > 0) parts.push(p.paint("red", `errors: ${errors.join(" | ")}`));
      }
      const cost = typeof e.costUsd === "number" ? e.costUsd : 0;
      parts.push(p.paint("blue", `tokens: in=${e.inputTokens} out=${e.outputTokens} cached=${e.cachedTokens} cost=$${cost.toFixed(6)}`));
      return parts.join("\n");
    }
    // Diff texts carry no +/- marker (the UI colours them); the gutter makes them readable
    // without colour too.
    case "diff": {
      const [style, gutter] = DIFF_STYLES[e.changeType] ?? ["plain", ""];
      return p.paint(style, `${gutter}${e.text}`);
    }
    default:
      return p.paint("plain", JSON.stringify(e));
  }
}

/** A diff line's style and gutter, by its change type. */
const DIFF_STYLES = {
  add: ["green", "+"],
  remove: ["red", "-"],
  context: ["plain", " "],
  hunk: ["cyan", ""],
  file_header: ["bold", ""],
  truncation: ["gray", ""],
};
