// A parser for the native-path benchmarks (BENCHMARKS.md, issue 55): JSON.parse with an
// identity reviver, so the line's time is the reviver walk's. Its log is the shape log's JSON:
//   node -e 'import("./tests/bench/gen-log.mjs").then((m) => console.log(m.shapeLog(2000).map((l) => l.slice(l.indexOf("{"))).join("\n")))' > /tmp/json.log
//   cargo run --release -p parsebox-sandbox --example shape_costs -- tests/bench/natives/reviver.js /tmp/json.log
function keep(key, value) {
  return value;
}
export function parseStdoutLine(line, ts) {
  let v;
  try {
    v = JSON.parse(line, keep);
  } catch {
    return [{ kind: "stdout", ts, text: line }];
  }
  return [{ kind: "stdout", ts, text: String(Object.keys(v).length) }];
}
