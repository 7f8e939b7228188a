// A parser shape for the per-shape benchmark (BENCHMARKS.md): builds a string character by
// character (unescaping and trimming), as parsers that clean a line for display do.
export function parseStdoutLine(line, ts) {
  let out = "";
  let upper = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\" && i + 1 < line.length) { out += line[++i] === "n" ? " " : line[i]; continue; }
    if (c === '"' || c === "{" || c === "}") continue;
    if (c >= "A" && c <= "Z") upper++;
    out += c;
  }
  return [{ kind: "stdout", ts, text: out.trim(), upper }];
}
