// The native built-ins the work budget charges (issue 54), one per line: the line names the
// operation, which runs five times over ~900,000 code units (arrays: 90,000 elements;
// tokenize: a 200,000-character line walked with indexOf(" ", from); split40k: split(" ") into
// 40,000 pieces).
// With `--example work_rate`, cycles charged per wall millisecond, beside a bytecode loop's
// (BENCHMARKS.md):
//   for op in bytecode repeat padStart upper concat stringify join keys arrslice arrindex \
//       lastIndexOf indexOf split toSorted encode decode tokenize split40k; do echo $op > /tmp/op.log
//     cargo run -q --release -p parsebox-sandbox --example work_rate -- tests/bench/native-ops.js /tmp/op.log
//   done
const big = "ab ".repeat(300000);
const arr = "ab ".repeat(30000).split("");
const shuffled = [];
for (let i = 0; i < 90000; i++) shuffled.push(String((i * 7919) % 90001));
const obj = {};
for (let i = 0; i < 20000; i++) obj["k" + i] = "v" + i;
const ops = {
  bytecode: () => { let s = 0; for (let i = 0; i < 300000; i++) s += i & 7; return s; },
  repeat: () => "ab".repeat(1000000).length,
  padStart: () => "x".padStart(1000000).length,
  upper: () => big.toUpperCase().length,
  concat: () => big.concat("x").length,
  stringify: () => JSON.stringify(arr).length,
  join: () => arr.join(",").length,
  keys: () => Object.keys(obj).length,
  arrslice: () => arr.slice(1).length,
  arrindex: () => arr.indexOf("z"),
  lastIndexOf: () => big.lastIndexOf("z"),
  indexOf: () => big.indexOf("z"),
  split: () => big.split(" ").length,
  toSorted: () => shuffled.toSorted().length,
  encode: () => encodeURIComponent(big).length,
  decode: () => decodeURIComponent(big).length,
  tokenize: () => {
    const s = "word ".repeat(40000);
    let n = 0, at = 0, next;
    while ((next = s.indexOf(" ", at)) >= 0) { n++; at = next + 1; }
    return n;
  },
  split40k: () => "ab ".repeat(40000).split(" ").length,
};
export function parseStdoutLine(line, ts) {
  const f = ops[line];
  let n = 0;
  for (let i = 0; i < 5; i++) n += f();
  return [{ kind: "stdout", ts, text: String(n) }];
}
