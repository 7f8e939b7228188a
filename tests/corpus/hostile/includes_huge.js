// Hostile parser: includes/indexOf/join over a 4-billion-slot sparse array.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  const a = new Array(2 ** 32 - 1);
  return [{ kind: "stdout", ts, text: String(a.includes(1)) + a.join(",").length }];
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
