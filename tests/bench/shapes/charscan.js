// A parser shape for the work-rate and per-shape benchmarks (BENCHMARKS.md): scans each line char by char for a JSON object.
export function parseStdoutLine(line, ts) {
  let depth = 0, start = -1, inStr = false, esc = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inStr) { if (esc) esc = false; else if (c === "\\") esc = true; else if (c === '"') inStr = false; continue; }
    if (c === '"') inStr = true;
    else if (c === "{") { if (depth === 0) start = i; depth++; }
    else if (c === "}") { depth--; if (depth === 0 && start >= 0) return [{ kind: "assistant", ts, text: line.slice(start, i + 1) }]; }
  }
  return [{ kind: "stdout", ts, text: line }];
}
