// Hostile parser (measurement aid, no test): a getter that loops calling a function, bounded here;
// a nested engine call the deadline cannot reach (the attacks example times it).
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  const o = { get x() { let s = 0; for (let i = 0; i < 200; i++) s += inner(); return s; } };
  let t = 0;
  for (let i = 0; i < 5; i++) t += o.x;
  return [{ kind: "stdout", ts, text: String(t) }];
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
