// Sources nested `levels` deep in each shape that takes the most stack a level (issue 56): what
// the sandbox's bound of 64 levels must leave every host able to parse. Each is a parser that
// answers a line with `line + "!"`. Used by tests/js/host-safety.test.mjs (inline in Node) and
// tests/browser/worker.test.mjs (a browser's Worker and page).
export function nestedSources(levels) {
  const d = levels;
  const bodies = {
    calls: `const f = (v) => v; const x = ${"f(".repeat(d)}1${")".repeat(d)};`,
    objects: `const x = ${"{a:".repeat(d)}1${"}".repeat(d)};`,
    arrays: `const x = ${"[".repeat(d)}1${"]".repeat(d)};`,
    arrows: `const x = ${"() => ".repeat(d)}1;`,
    functions: `${"function g() {".repeat(d)}${"}".repeat(d)}`,
    // Prefix operators and conditionals count a third of a level each.
    unary: `const x = ${"!".repeat(3 * d)}1;`,
    conditionals: `const x = ${"1 ? 1 : ".repeat(3 * d)}1;`,
  };
  const parser = `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line + "!" }]; }`;
  return Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, `${body}\n${parser}`]));
}
