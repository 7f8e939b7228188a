// The warm-up parser (crates/parsebox-engine-wasm/src/warm_up.rs): shaped like real ones, with
// JSON lines, regexes, string and array methods and a factory, so loading it and parsing a few
// lines runs most of the engine's code once.
const TOOL = /^(?<name>[A-Za-z_]+)\((?<args>.*)\)$/;
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
        if (m) return [{ kind: "tool_call", ts, name: m.groups.name, input: { args: m.groups.args.split(/,\s*/) } }];
        return [{ kind: trimmed.startsWith("!") ? "stderr" : "stdout", ts, text: `${trimmed.slice(0, 200)}` }];
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
          out.push({ kind: event.type === "user" ? "user" : "assistant", ts, text: text(block).replace(/\s+$/, "") });
        }
      }
      if (event.type === "result") out.push({ kind: "result", ts, text: String(event.result ?? ""), inputTokens: event.usage?.input_tokens ?? 0, outputTokens: 0, cachedTokens: 0, costUsd: Number(event.cost ?? 0), subtype: "success", isError: false, errors: [] });
      turns += out.length;
      return out.filter((e) => e.kind !== "assistant" || e.text.length > 0);
    },
    reset() { turns = 0; pending.clear(); },
  };
}
