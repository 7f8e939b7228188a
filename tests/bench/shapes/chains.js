// A parser shape for the per-shape benchmark (BENCHMARKS.md): split / map / filter chains over
// a line's fields and words, as parsers that tokenise a status line do.
export function parseStdoutLine(line, ts) {
  const fields = line.split(" ").filter((w) => w.length > 0);
  const words = fields.map((w) => w.replace(/[^A-Za-z0-9_]/g, "")).filter((w) => w.length > 2);
  const tags = words.filter((w) => w[0] === w[0].toUpperCase()).map((w) => w.toLowerCase());
  const pairs = line.split(",").map((p) => p.split(":")).filter((kv) => kv.length === 2).map((kv) => [kv[0].trim(), kv[1].trim()]);
  return [{ kind: "system", ts, text: tags.slice(0, 5).join(" "), fields: fields.length, pairs: pairs.length }];
}
