// Warming the engine module's code (in a Worker, right after the module compiles): browsers
// compile a wasm function the first time it runs, and loading the first parser runs most of
// the engine's code (boa's parser, compiler and interpreter), so that first load spent ~4/5 of
// its time compiling. One throwaway instance loads this small parser and answers a few lines;
// the compiled code belongs to the module, so every later instance, on any thread, runs it at
// once. Nothing of the instance is kept (its Worker is: instance.js hands it to the first
// Worker engine).
import { EngineInstance } from "./engine.js";

/** A parser shaped like real ones: JSON lines, regexes, string and array methods, a factory. */
const SOURCE = `
const TOOL = /^(?<name>[A-Za-z_]+)\\((?<args>.*)\\)$/;
function text(block) {
  return typeof block === "string" ? block : Array.isArray(block) ? block.map(text).join("") : String(block?.text ?? "");
}
export function createStdoutParser() {
  let turns = 0;
  const pending = new Map();
  return {
    parseLine(line, ts) {
      const trimmed = line.trim();
      if (!trimmed) return [];
      let event;
      try { event = JSON.parse(trimmed); } catch { event = null; }
      if (!event || typeof event !== "object") {
        const m = TOOL.exec(trimmed);
        if (m) return [{ kind: "tool_call", ts, name: m.groups.name, input: { args: m.groups.args.split(/,\\s*/) } }];
        return [{ kind: trimmed.startsWith("!") ? "stderr" : "stdout", ts, text: \`\${trimmed.slice(0, 200)}\` }];
      }
      const out = [];
      for (const block of event.message?.content ?? []) {
        if (block.type === "tool_use") {
          pending.set(block.id, block.name);
          out.push({ kind: "tool_call", ts, name: block.name, input: block.input, toolUseId: block.id });
        } else if (block.type === "tool_result") {
          out.push({ kind: "tool_result", ts, toolUseId: block.tool_use_id, content: text(block.content), isError: !!block.is_error });
          pending.delete(block.tool_use_id);
        } else {
          out.push({ kind: event.type === "user" ? "user" : "assistant", ts, text: text(block).replace(/\\s+$/, "") });
        }
      }
      if (event.type === "result") out.push({ kind: "result", ts, text: String(event.result ?? ""), inputTokens: event.usage?.input_tokens ?? 0, outputTokens: 0, cachedTokens: 0, costUsd: Number(event.cost ?? 0), subtype: "success", isError: false, errors: [] });
      turns += out.length;
      return out.filter((e) => e.kind !== "assistant" || e.text.length > 0);
    },
    reset() { turns = 0; pending.clear(); },
  };
}`;

const LINES = [
  '{"type":"assistant","message":{"content":[{"type":"text","text":"Looking at the files."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]}}',
  '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.txt\\nb.txt"}]}]}}',
  'Read(src/main.rs, 1, 40)',
  "plain output line",
  '{"type":"result","result":"done","usage":{"input_tokens":12},"cost":0.01}',
];

const MIB = 1 << 20;

/**
 * Runs the warm-up in a fresh instance of `module`, then disposes it. Returns the start's and
 * the lines' answers (JSON, as the instance gave them), for a test to check that the warm-up
 * really loads and parses. Throws what the instance throws; a warm-up only saves time, so the
 * caller carries on either way.
 * @param {WebAssembly.Module} module
 * @returns {{ started: string, answers: string }}
 */
export function warmUp(module) {
  const engine = new EngineInstance(module, { maxMemoryBytes: 64 * MIB });
  try {
    const config = { lineBudgetMs: 1000, initBudgetMs: 5000, maxSourceBytes: 64 * 1024, maxLineBytes: MIB, maxMemoryBytes: 64 * MIB };
    const started = engine.start(SOURCE, JSON.stringify(config));
    const ops = [{ op: "newRun", run: 1 }];
    LINES.forEach((line, i) => ops.push({ op: "line", seq: i + 1, run: 1, line, ts: "2026-01-01T00:00:00.000Z", replay: false }));
    return { started, answers: engine.run(JSON.stringify(ops)) };
  } finally {
    engine.dispose();
  }
}
