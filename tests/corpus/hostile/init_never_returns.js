// Hostile parser: module initialisation that never returns (a loop calling a function, so boa's
// per-call loop limit alone would not stop it).
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
while (true) inner();
export function parseStdoutLine(line, ts) { return [{ kind: "stdout", ts, text: line }]; }
