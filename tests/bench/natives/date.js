// A parser for the native-path benchmarks (BENCHMARKS.md, issue 55): ten `new Date(ts)` a
// line, as parsers that turn timestamps into durations make. Any log:
//   cargo run --release -p parsebox-sandbox --example shape_costs -- tests/bench/natives/date.js /tmp/json.log
export function parseStdoutLine(line, ts) {
  let t = 0;
  for (let i = 0; i < 10; i++) t += new Date(ts).getTime();
  return [{ kind: "stdout", ts, text: String(t) }];
}
