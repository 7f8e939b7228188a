// Hostile parser: JSON.parse of the line itself (the test hands it 100,000 nested [).
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  return JSON.parse(line);
}
export function createStdoutParser() {
  return {
    parseLine(line, ts) {
      if (line === "attack" || line[0] === "[") return attack(line, ts);
      n++;
      return [{ kind: "stdout", ts, text: line + " #" + n }];
    },
    reset() {},
  };
}
