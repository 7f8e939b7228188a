// A long generated run for the viewer's large-run test and benchmark (issue 16): `lines` stdout
// lines in the hermes text dialect that the hermes_local sample parser reads (thinking, tool
// calls with output swallowed until a duration line, failed calls, plain assistant lines,
// warnings and checkpoints), a one-line stderr row now and then, stored as Paperclip NDJSON rows
// of about 4 KB cut at line ends. Deterministic.
//
// Beside the rows it returns what the parser makes of them, in order: one { kind, mark } per
// transcript entry, where `mark` is text that shows in that entry's element. A test that finds
// the element with data-index i can check it is expected[i] without parsing anything itself.
//
//   node tests/browser/large-run.mjs 100000 > run.ndjson
import { mulberry32 } from "../../www/chunks.js";

const WORDS = "the build reads its config then checks every module against the schema before the tests run in parallel on two workers".split(" ");
const FILES = ["src/index.ts", "src/config.ts", "src/cli/args.ts", "src/loader/yaml.ts", "tests/config.test.ts", "README.md"];

/** `{ ndjson, rows, expected }` for a run of `lines` stdout lines. */
export function largeRun(lines, { seed = 16, rowBytes = 4096, gapMs = 20, start = Date.UTC(2026, 0, 1, 9, 0, 0) } = {}) {
  const rand = mulberry32(seed);
  const words = (k) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
  const pick = (list) => list[Math.floor(rand() * list.length)];

  // Each step: stdout lines, or a stderr row; `entries` are what the parser makes of them.
  const out = []; // { stream, text } one line each
  const expected = [];
  let n = 0; // stdout lines so far
  const line = (text) => {
    out.push({ stream: "stdout", text });
    n++;
  };
  line("[hermes] Session started: 20260101_large (model: anthropic/claude-sonnet-4)");
  expected.push({ kind: "init", mark: "20260101_large" });
  const END = 1; // the result line
  while (n < lines - END) {
    const x = rand();
    const id = n; // marks are line numbers: unique and increasing
    if (x < 0.3) {
      line(`Note ${id}: ${words(6 + Math.floor(rand() * 30))}`);
      expected.push({ kind: "assistant", mark: `Note ${id}:` });
    } else if (x < 0.45) {
      line(`┊ 💬 Thought ${id}: ${words(5 + Math.floor(rand() * 15))}`);
      expected.push({ kind: "thinking", mark: `Thought ${id}:` });
    } else if (x < 0.8) {
      const terminal = rand() < 0.6;
      const output = Math.floor(rand() * 6);
      if (n + output + 2 > lines - END) continue; // a call and its duration line stay whole
      if (terminal) line(`┊ 💻 $ run-step ${id} --check`);
      else line(`┊ 📖 read /home/user/project/${pick(FILES)}#${id}`);
      expected.push({ kind: "tool_call", mark: terminal ? `run-step ${id} --check` : `#${id}` });
      const failed = terminal && rand() < 0.1;
      for (let k = 0; k < output; k++) line(`out ${id}.${k} ${words(3 + Math.floor(rand() * 8))}`);
      if (failed) line("[exit 1]");
      line(`┊ ⏱ ${(rand() * 3).toFixed(1)}s`);
      expected.push({ kind: "tool_result", mark: output ? `out ${id}.0` : "s)" });
    } else if (x < 0.85) {
      line(`┊ ⚠️ Retrying ${id}: ${words(4)}`);
      expected.push({ kind: "stderr", mark: `Retrying ${id}:` });
    } else if (x < 0.9) {
      line(`┊ ✅ Checkpoint ${id}: ${words(4)}`);
      expected.push({ kind: "system", mark: `Checkpoint ${id}:` });
    } else if (x < 0.92) {
      out.push({ stream: "stderr", text: `warning: slow disk ${id}` });
      expected.push({ kind: "stderr", mark: `slow disk ${id}` });
    } else {
      line(`Note ${id}: ${words(40 + Math.floor(rand() * 80))}`); // a long, wrapping message
      expected.push({ kind: "assistant", mark: `Note ${id}:` });
    }
  }
  line("[hermes] Done in 5400.0s · 1,234,567 in / 45,678 out / 890,123 cached · $12.3456");
  expected.push({ kind: "result", mark: "Finished in 5400.0s" });

  // Rows: stdout lines together up to rowBytes; a stderr line is a row of its own.
  const rows = [];
  let t = start;
  let pending = "";
  const emit = (stream, chunk) => {
    rows.push({ ts: new Date(t).toISOString(), stream, chunk, seq: rows.length });
    t += gapMs;
  };
  for (const l of out) {
    if (l.stream === "stderr") {
      if (pending) emit("stdout", pending);
      pending = "";
      emit("stderr", `${l.text}\n`);
      continue;
    }
    if (pending.length + l.text.length + 1 > rowBytes && pending) {
      emit("stdout", pending);
      pending = "";
    }
    pending += `${l.text}\n`;
  }
  if (pending) emit("stdout", pending);
  return { rows, expected, ndjson: rows.map((r) => JSON.stringify(r)).join("\n") + "\n" };
}

if (process.argv[1] && import.meta.url === new URL(process.argv[1], "file://").href) {
  process.stdout.write(largeRun(Number(process.argv[2]) || 100000).ndjson);
}
