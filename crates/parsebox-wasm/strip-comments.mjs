// Build step (package.sh): removes the comments from the package's JavaScript in place, so the
// page downloads code and no maintainers' notes (about 9 KB of brotli before the first entry).
// The API's documentation ships in the .d.ts files, which are left alone. Kept: `/*! … */` and
// any comment that names `@vite-ignore` (it tells bundlers to leave an import alone). Lines left
// empty by a removed comment go too; the code keeps its layout.
//
// A small tokenizer finds the comments: strings, template literals (with `${}` nesting) and
// regex literals are skipped, so a `//` inside them is never taken for a comment. Every file is
// then checked with TypeScript's emitter (comments removed on both sides): the output before and
// after must be the same, or the build fails.
//
//   node crates/parsebox-wasm/strip-comments.mjs FILE.js…
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(fileURLToPath(new URL("../../tests/package.json", import.meta.url)));
const ts = require("typescript");

/** Keywords after which a `/` starts a regex literal, not a division. */
const BEFORE_REGEX = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await"]);

/** The `[start, end)` ranges of the comments in `src` that may go. */
function comments(src) {
  const found = [];
  const braces = []; // for each open `{`: true when it opened a template literal's `${`
  let i = 0;
  let last = ""; // the last significant token: decides what a `/` starts

  const template = () => {
    // i is just past a backtick or the `}` that closes a `${}`; reads up to the end of the
    // template or the next `${`.
    while (i < src.length) {
      const c = src[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i += 1;
        last = "`";
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        i += 2;
        braces.push(true);
        last = "{";
        return;
      } else i += 1;
    }
  };

  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === "/" && next === "/") {
      const end = src.indexOf("\n", i);
      const stop = end === -1 ? src.length : end;
      found.push([i, stop]);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      if (end === -1) throw new Error("unterminated comment");
      const text = src.slice(i, end + 2);
      if (!text.startsWith("/*!") && !text.includes("@vite-ignore")) found.push([i, end + 2]);
      i = end + 2;
    } else if (c === '"' || c === "'") {
      i += 1;
      while (i < src.length && src[i] !== c) i += src[i] === "\\" ? 2 : 1;
      i += 1;
      last = "string";
    } else if (c === "`") {
      i += 1;
      template();
    } else if (c === "/") {
      const regex = last === "" || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(last) || BEFORE_REGEX.has(last);
      i += 1;
      if (regex) {
        let inClass = false;
        while (i < src.length && (inClass || src[i] !== "/")) {
          if (src[i] === "\\") i += 1;
          else if (src[i] === "[") inClass = true;
          else if (src[i] === "]") inClass = false;
          i += 1;
        }
        i += 1;
        while (/[a-z]/.test(src[i] ?? "")) i += 1; // flags
        last = "regex";
      } else last = "/";
    } else if (c === "{") {
      braces.push(false);
      last = "{";
      i += 1;
    } else if (c === "}") {
      i += 1;
      if (braces.pop()) template();
      else last = "}";
    } else if (/\s/.test(c)) {
      i += 1;
    } else if (/[\w$]/.test(c)) {
      const start = i;
      while (i < src.length && /[\w$]/.test(src[i])) i += 1;
      last = src.slice(start, i);
    } else {
      last = c;
      i += 1;
    }
  }
  return found;
}

/** `src` without its comments; a comment alone on its lines takes those lines with it. */
export function strip(src) {
  let out = "";
  let at = 0;
  for (const [start, end] of comments(src)) {
    const lineStart = src.lastIndexOf("\n", start - 1) + 1;
    const newline = src.indexOf("\n", end);
    const lineEnd = newline === -1 ? src.length : newline + 1;
    if (src.slice(lineStart, start).trim() === "" && src.slice(end, lineEnd).trim() === "") {
      out += src.slice(at, lineStart);
      at = lineEnd;
    } else {
      out += src.slice(at, start).replace(/[ \t]+$/, "");
      at = end;
    }
  }
  return out + src.slice(at);
}

/** The file as TypeScript's emitter prints it with every comment removed. */
function emitted(src, name) {
  const options = { removeComments: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext };
  return ts.transpileModule(src, { compilerOptions: options, fileName: name }).outputText;
}

for (const file of process.argv.slice(2)) {
  const src = readFileSync(file, "utf8");
  const out = strip(src);
  if (emitted(out, file) !== emitted(src, file)) throw new Error(`strip-comments: ${file} would change beyond its comments`);
  writeFileSync(file, out);
}
