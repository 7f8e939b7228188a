// Hostile parser: a catastrophic regex literal. In the page's thread the screen refuses it at
// load, since nothing there could stop it once it runs; in a Worker it loads, and the "attack"
// line it hangs is ended by the Worker's deadline and falls back alone.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
const RE = /^(a+)+$/;
let n = 0;
export function createStdoutParser() {
  return {
    parseLine(line, ts) {
      if (line === "attack") return [{ kind: "stdout", ts, text: String(RE.test("a".repeat(40) + "!")) }];
      n++;
      return [{ kind: "stdout", ts, text: line + " #" + n }];
    },
    reset() {},
  };
}
