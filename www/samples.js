// The bundled sample runs: each is a stored Paperclip run (run.ndjson) and the adapter's parser
// (ui-parser.js), served by www/server.mjs at /api/adapters/:type/ui-parser.js.
export const SAMPLES = [
  {
    type: "claude_local",
    label: "Claude Code · stream-json",
    about: "One JSON event per line: init, thinking, tool_use / tool_result blocks, a final result with cost.",
  },
  {
    type: "codex_local",
    label: "Codex · exec --json",
    about: "item.started / item.completed events: shell commands, MCP calls, file changes as diffs, usage.",
  },
  {
    type: "hermes_local",
    label: "Hermes · emoji text",
    about: "Plain text: ┊-prefixed activity lines led by an emoji, multi-line tool output, a cost line.",
  },
  {
    type: "claude_partial",
    label: "Claude · partial deltas",
    about: "--include-partial-messages: text and thinking arrive as deltas that merge as they stream.",
  },
  {
    type: "hostile_local",
    label: "Hostile parser",
    about: "Infinite loops, throws, fetch/document and Function escape attempts, an invalid entry kind: each bad line falls back alone.",
  },
];

/** Where a sample's stored run lives, relative to www/. */
export const runUrl = (type) => `samples/${encodeURIComponent(type)}/run.ndjson`;
/** The same parser as the API route, as a static file (for plain static servers). */
export const parserUrl = (type) => `samples/${encodeURIComponent(type)}/ui-parser.js`;
