// A parser shape for the per-shape benchmark (BENCHMARKS.md): JSON.parse of the object after a
// prefix, then entries from its fields, as stream-json parsers do.
export function parseStdoutLine(line, ts) {
  const at = line.indexOf("{");
  if (at < 0) return [{ kind: "stdout", ts, text: line }];
  let event;
  try { event = JSON.parse(line.slice(at)); } catch { return [{ kind: "stdout", ts, text: line }]; }
  if (event.type === "tool_call") return [{ kind: "tool_call", ts, name: event.name, input: event.input, toolUseId: event.id }];
  if (event.type === "result") return [{ kind: "result", ts, text: event.text, inputTokens: event.usage.input, outputTokens: event.usage.output, cachedTokens: 0, costUsd: event.cost, subtype: "", isError: false, errors: [] }];
  return [{ kind: "assistant", ts, text: event.text ?? "" }];
}
