// A parser shape for the per-shape benchmark (BENCHMARKS.md): a handful of regexes tried on
// each line, as text-log parsers (hermes-style) do.
const STAMP = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) \[(\w+)\] (\w+):/;
const TOOL = /"type":"tool_call","name":"(\w+)"/;
const COST = /"cost":([\d.]+)/;
const PATH = /(?:\/[\w.-]+){2,}/g;
export function parseStdoutLine(line, ts) {
  const stamp = STAMP.exec(line);
  if (!stamp) return [{ kind: "stdout", ts, text: line }];
  const tool = TOOL.exec(line);
  if (tool) return [{ kind: "tool_call", ts, name: tool[1], input: { paths: line.match(PATH) ?? [] } }];
  const cost = COST.exec(line);
  return [{ kind: "system", ts, text: `${stamp[2]} ${stamp[3]}`, cost: cost ? Number(cost[1]) : null }];
}
