// Hostile parser: nested loops that would run for hours.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  let s = 0;
  for (let i = 0; i < 1e9; i++) for (let j = 0; j < 1e9; j++) s += i ^ j;
  return [{ kind: "stdout", ts, text: String(s) }];
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
