// Hostile parser: /^(a+)+$/ built at run time, on 30 a and a b (exponential backtracking).
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  const re = new RegExp("^(a+)+\$");
  return [{ kind: "stdout", ts, text: String(re.test("a".repeat(30) + "b")) }];
}
export function createStdoutParser() {
  return {
    parseLine(line, ts) {
      if (line === "attack") return attack(line, ts);
      n++;
      return [{ kind: "stdout", ts, text: line + " #" + n }];
    },
    reset() {},
  };
}
