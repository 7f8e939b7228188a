// Regenerates the viewer's bundled sample runs: copies each parser from the compatibility corpus
// (tests/corpus/compat) and turns its sample.log into a stored Paperclip run (run.ndjson, one
// { ts, stream, chunk, seq } row per chunk) with realistic chunking, pauses, and the system and
// stderr chunks a real run interleaves. Deterministic: re-running gives identical files.
//
//   node www/samples/make-samples.mjs
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chunkPlainText } from "../chunks.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const corpus = fileURLToPath(new URL("../../tests/corpus/compat/", import.meta.url));

// Extra pause before a line, by what the line is (tools take time to run).
const slowWhen = (patterns) => (line, rand) => {
  let ms = 150 + rand() * 450;
  if (line.length > 1000) ms += 200 + rand() * 500;
  for (const [re, extra] of patterns) if (re.test(line)) ms += extra * (0.5 + rand());
  return ms;
};

const SAMPLES = [
  {
    type: "claude_local",
    from: "claude-stream-json",
    cwd: "/home/user/work/inventory-service",
    pause: slowWhen([[/"type":"user"/, 1600], [/"type":"result"/, 400], [/"thinking"/, 700]]),
    stderr: [[0.45, ["(node:48121) ExperimentalWarning: CommonJS module /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js is loading ES Module\n", "(Use `node --trace-warnings ...` to show where the warning was created)\n"]]],
  },
  {
    type: "claude_partial",
    from: "claude-partial-deltas",
    cwd: "/srv/app",
    pause: (line, rand) => (/content_block_delta/.test(line) ? 25 + rand() * 90 : 200 + rand() * 500) + (/"type":"user"/.test(line) ? 900 : 0),
  },
  {
    type: "codex_local",
    from: "codex-items",
    cwd: "/home/user/src/api-gateway",
    pause: slowWhen([[/"item.completed".*"command_execution"/, 1400], [/"file_change"/, 500], [/"reasoning"/, 900]]),
    stderr: [[0.3, ["2026-01-01T09:00:04.512Z WARN codex_core::exec: sandbox denied network access for `npm view`\n"]]],
  },
  {
    type: "hermes_local",
    from: "hermes-emoji",
    cwd: "/home/user/project",
    pause: slowWhen([[/^┊ ⏱/, 500], [/^┊ 💬/, 600]]),
    stderr: [[0.55, ["npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n", "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n"]]],
  },
  {
    type: "hostile_local",
    log: "hostile_local/sample.log",
    cwd: "/home/user/demo",
    // The first bad line comes a few seconds in, once the parser has loaded.
    pause: slowWhen([[/"type":"(spin|crash)"/, 700]]),
  },
];

for (const s of SAMPLES) {
  const dir = `${here}${s.type}/`;
  mkdirSync(dir, { recursive: true });
  if (s.from) {
    // A link, not a copy: the corpus parser stays the one source of truth.
    rmSync(`${dir}ui-parser.js`, { force: true });
    symlinkSync(`../../../tests/corpus/compat/${s.from}/ui-parser.js`, `${dir}ui-parser.js`);
  }
  const log = readFileSync(s.from ? `${corpus}${s.from}/sample.log` : `${here}${s.log}`, "utf8");
  const start = Date.UTC(2026, 0, 1, 9, 0, 2);
  const stdout = chunkPlainText(log, { start, seed: 0x5eed, pause: s.pause });
  const at = (ms) => new Date(ms).toISOString();
  const chunks = [
    { ts: at(start - 2000), stream: "system", chunk: `[paperclip] Run started · adapter ${s.type} · cwd ${s.cwd}\n` },
    { ts: at(start - 1400), stream: "system", chunk: "[paperclip] Loaded agent instructions from AGENTS.md (2.1 KB)\n" },
    ...stdout,
  ];
  for (const [where, texts] of s.stderr ?? []) {
    const i = 2 + Math.floor(stdout.length * where);
    const t = Date.parse(chunks[i].ts);
    chunks.splice(i + 1, 0, ...texts.map((chunk, k) => ({ ts: at(t + 10 + k * 3), stream: "stderr", chunk })));
  }
  const end = Date.parse(chunks.at(-1).ts) + 300;
  chunks.push({ ts: at(end), stream: "system", chunk: `[paperclip] Run finished · exit code 0 · ${((end - start + 2000) / 1000).toFixed(1)} s\n` });
  writeFileSync(`${dir}run.ndjson`, chunks.map((c, seq) => JSON.stringify({ ...c, seq })).join("\n") + "\n");
  console.log(`${s.type}: ${chunks.length} chunks, ${((end - start) / 1000).toFixed(1)} s`);
}
