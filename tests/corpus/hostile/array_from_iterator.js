// Hostile parser: Array.from over an endless generator.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  function* forever() { for (;;) yield 1; }
  return Array.from(forever());
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
