// Hostile parser: /\s+$/ on 20,000 spaces and an x: quadratic backtracking that passes the screen.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  return [{ kind: "stdout", ts, text: String(/\s+$/.test(" ".repeat(20000) + "x")) }];
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
