// Hostile parser: a catastrophic regex literal (refused at load by the screen).
const RE = /^(a+)+$/;
export function parseStdoutLine(line, ts) { return RE.test(line) ? [] : [{ kind: "stdout", ts, text: line }]; }
