// A parser shape for the work-rate benchmark (BENCHMARKS.md): 200,000 loop iterations per line.
export function parseStdoutLine(line, ts) {
  let s = 0;
  for (let i = 0; i < 200000; i++) { s += i % 7; }
  return [{ kind: "stdout", ts, text: line + s }];
}
