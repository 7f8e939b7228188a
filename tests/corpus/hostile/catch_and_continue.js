// Hostile parser: an infinite loop inside try/catch that swallows everything it can.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  for (;;) { try { while (true) inner(); } catch (e) { /* keep going */ } }
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
