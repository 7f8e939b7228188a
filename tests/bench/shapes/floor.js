// A parser shape for the per-shape benchmark (BENCHMARKS.md): returns the line as it came, so
// its time is what every line pays whatever the parser does (the call, the budget set-up, the
// conversions and copies between the page and the engine).
export function parseStdoutLine(line, ts) {
  return [{ kind: "stdout", ts, text: line }];
}
