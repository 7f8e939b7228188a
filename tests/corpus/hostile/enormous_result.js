// Hostile parser: a return value that is exponentially large when serialised (a DAG of shared arrays).
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  let a = [{ kind: "stdout", ts, text: "x".repeat(1000) }];
  for (let i = 0; i < 40; i++) a = [a, a];
  return a;
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
