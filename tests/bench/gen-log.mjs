// Deterministic run-log generators for the side-by-side benchmark (issue 7). Pure ES module:
// the same bytes in Node and in the browser, so every engine parses the same log.
//
//   hermesLog(n)  n lines for hermes-parser.js: tool calls and results, thinking, emoji status
//                 lines, streamed assistant deltas, token-count JSON events, a result event.
//   claudeLog(n)  n Claude `stream-json` lines for tests/corpus/compat/claude-stream-json:
//                 long JSON lines (tool results carrying whole files, up to ~24 KB).
//
// CLI: node gen-log.mjs hermes|claude N > run.log

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
}

const WORDS = ("the project is a cli tool written in typescript with tests under src and a readme that " +
  "describes usage of every flag plus the config loader parses yaml files from the home directory " +
  "then validates each key against a schema before merging defaults").split(" ");
const FILES = ["src/index.ts", "src/config.ts", "src/cli/args.ts", "src/loader/yaml.ts", "tests/config.test.ts", "README.md", "package.json", "src/schema.ts"];
const CMDS = ["ls /home/user/project", "npm test", "git status --short", "npx tsc --noEmit", "rg -n loadConfig src", "cat package.json"];
const EMOJI = ["🔧", "📦", "✅", "⚠️", "🚀", "🧪"];

function sentence(r, k) {
  let s = "";
  for (let i = 0; i < k; i++) s += (i ? " " : "") + WORDS[Math.floor(r() * WORDS.length)];
  return s;
}

export function hermesLog(n, seed = 7) {
  const r = rng(seed);
  const out = ["[hermes] Session started: 9f3c2a71 model=hermes-4-70b"];
  const pick = (a) => a[Math.floor(r() * a.length)];
  while (out.length < n) {
    const x = r();
    if (x < 0.12) out.push("┊ 💬 " + sentence(r, 8 + Math.floor(r() * 20)));
    else if (x < 0.24) {
      const f = pick(FILES);
      const verb = pick(["read", "read", "edit", "grep"]);
      out.push(`┊ ${verb} /home/user/project/${f}` + (verb === "read" ? ` (${1 + Math.floor(r() * 400)} lines)` : ""));
      out.push(`┊ [done] ${verb} — ${sentence(r, 6)}  ${(r() * 3).toFixed(1)}s`);
    } else if (x < 0.36) {
      const c = pick(CMDS);
      out.push(`┊ $ ${c}`);
      const fail = r() < 0.1;
      out.push(`┊ [done] $ ${c} — ${fail ? "error: exit code 1" : sentence(r, 5)}  ${(r() * 5).toFixed(1)}s`);
    } else if (x < 0.42) out.push(`┊ ${pick(EMOJI)} ${sentence(r, 6)}`);
    else if (x < 0.62) {
      // Token-count events: the bulk of a real run's lines, shown as nothing.
      out.push(JSON.stringify({ type: "usage", input_tokens: 1000 + Math.floor(r() * 90000), output_tokens: Math.floor(r() * 4000), cached_tokens: Math.floor(r() * 50000) }));
    } else if (x < 0.78) {
      const k = 1 + Math.floor(r() * 4);
      for (let i = 0; i < k && out.length < n; i++) out.push("│ " + sentence(r, 4 + Math.floor(r() * 10)));
    } else if (x < 0.785) {
      out.push(JSON.stringify({ type: "result", result: sentence(r, 12), usage: { input_tokens: 120000, output_tokens: 3000, cached_tokens: 80000 }, cost_usd: 0.41, subtype: "success" }));
    } else if (x < 0.80) out.push("");
    else if (x < 0.81) out.push(`ERROR ${sentence(r, 7)}`);
    else out.push(sentence(r, 5 + Math.floor(r() * 25)));
  }
  return out.slice(0, n).join("\n") + "\n";
}

function fileBody(r, lines) {
  let s = "";
  for (let i = 1; i <= lines; i++) {
    s += `${String(i).padStart(6)}→${"  ".repeat(Math.floor(r() * 3))}${sentence(r, 3 + Math.floor(r() * 9))};\n`;
  }
  return s;
}

export function claudeLog(n, seed = 11) {
  const r = rng(seed);
  const session = "5b0f3c2e-8d1a-4e7b-9c61-2f4a7d9e0b13";
  const out = [JSON.stringify({ type: "system", subtype: "init", cwd: "/home/user/work/inventory-service", session_id: session, tools: ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"], model: "claude-sonnet-4-5-20250929", permissionMode: "default" })];
  let msg = 0;
  let tool = 0;
  const message = (content) => ({ id: `msg_${String(++msg).padStart(6, "0")}AbCdEfGhJkLmNpQr`, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content, stop_reason: null, usage: { input_tokens: 4, cache_creation_input_tokens: 1200 + Math.floor(r() * 4000), cache_read_input_tokens: 30000 + Math.floor(r() * 90000), output_tokens: 20 + Math.floor(r() * 900) } });
  while (out.length < n) {
    const x = r();
    if (x < 0.2) {
      out.push(JSON.stringify({ type: "assistant", message: message([{ type: "thinking", thinking: sentence(r, 60 + Math.floor(r() * 400)), signature: "Eq" + "x".repeat(300) }]), parent_tool_use_id: null, session_id: session }));
    } else if (x < 0.35) {
      out.push(JSON.stringify({ type: "assistant", message: message([{ type: "text", text: sentence(r, 20 + Math.floor(r() * 200)) }]), parent_tool_use_id: null, session_id: session }));
    } else {
      const id = `toolu_${String(++tool).padStart(6, "0")}XyZwVuTsRqPoNm`;
      const read = r() < 0.6;
      const input = read ? { file_path: `/home/user/work/inventory-service/src/${sentence(r, 1)}.ts` } : { command: "npm test -- --runInBand", description: sentence(r, 6) };
      out.push(JSON.stringify({ type: "assistant", message: message([{ type: "tool_use", id, name: read ? "Read" : "Bash", input }]), parent_tool_use_id: null, session_id: session }));
      if (out.length >= n) break;
      const body = fileBody(r, 10 + Math.floor(r() * (r() < 0.2 ? 400 : 80)));
      const content = r() < 0.5 ? body : [{ type: "text", text: body }];
      out.push(JSON.stringify({ type: "user", message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content, is_error: r() < 0.05 }] }, parent_tool_use_id: null, session_id: session }));
    }
  }
  out.length = Math.min(out.length, n - 1);
  out.push(JSON.stringify({ type: "result", subtype: "success", is_error: false, duration_ms: 187342, num_turns: msg, result: sentence(r, 40), total_cost_usd: 1.2345, usage: { input_tokens: 120, cache_creation_input_tokens: 50000, cache_read_input_tokens: 900000, output_tokens: 20000 } }));
  return out.join("\n") + "\n";
}

/** Splits text into lines the way the transcript builder does (\r?\n, JS trim, skip empty). */
export function logLines(text) {
  const lines = [];
  for (const raw of text.split("\n")) {
    const l = (raw.endsWith("\r") ? raw.slice(0, -1) : raw).trim();
    if (l) lines.push(l);
  }
  return lines;
}

/** `n` log lines of 410 characters: a stamp, an agent, an event name and a JSON object. */
export function shapeLog(n, seed = 40) {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const words = ["Read", "the", "config", "Build", "passed", "tests", "Error", "module", "value", "src", "Tool", "done"];
  const lines = [];
  for (let i = 0; i < n; i++) {
    const stamp = new Date(Date.UTC(2026, 0, 1) + i * 1234).toISOString();
    const type = pick(["tool_call", "result", "text", "text"]);
    const text = Array.from({ length: 40 }, () => pick(words)).join(" ") + "\\nnext";
    const event = { type, name: pick(["read", "edit", "grep"]), id: `t_${i}`, input: { path: `/home/user/project/src/${pick(words)}.ts`, lines: [i % 50, 3] }, text, usage: { input: i * 7, output: i % 300 }, cost: rnd() * 2 };
    const line = () => `${stamp} [agent] ${type}: ${JSON.stringify(event)}`;
    // Pad or cut the text (its escape stays whole) so every line is 410 characters.
    const over = line().length - 410;
    event.text = over > 0 ? text.slice(over) : "x".repeat(-over) + text;
    lines.push(line());
  }
  return lines;
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === new URL(process.argv[1], "file://").href) {
  const [kind, n] = process.argv.slice(2);
  process.stdout.write((kind === "claude" ? claudeLog : hermesLog)(Number(n) || 10000));
}
