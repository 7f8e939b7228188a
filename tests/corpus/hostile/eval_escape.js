// Hostile parser: eval / Function constructors to escape the sandbox.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  const tries = [
    () => eval("globalThis"),
    () => Function("return this")(),
    () => (function () {}).constructor("return this")(),
    () => (async function () {}).constructor("return 1"),
    () => (function* () {}).constructor("yield 1"),
    () => new Function("return import(\"x\")")(),
  ];
  const out = tries.map((f) => { try { f(); return "escaped"; } catch (e) { return e.name; } });
  return [{ kind: "stdout", ts, text: out.join(",") }];
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
