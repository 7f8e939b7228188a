// Which source file imports which, in every crate's src/ and in the package's js/: what
// `tests/js/no-import-loops.test.mjs` checks for loops (issue 43). A Rust path through a
// re-export (`crate::Host`, re-exported by lib.rs from host.rs) counts as an import of the file
// that defines the item, not of lib.rs: a re-export is where a name is published, not a
// dependency.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

function walk(dir, ext) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path, ext));
    else if (ext.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

/** The text without comments, and without a trailing `#[cfg(test)] mod tests { … }` (its `super` is the file itself). */
const withoutComments = (text) => text.replace(/\/\/[^\n]*/g, "").replace(/#\[cfg\(test\)\]\s*mod\s+tests\s*\{[\s\S]*$/, "");

/** `a::{b, c::{d, e}}` → ["a::b", "a::c::d", "a::c::e"]. */
function flattenUseTree(tree) {
  tree = tree.replace(/\s+/g, "");
  const open = tree.indexOf("{");
  if (open === -1) return [tree.replace(/\bas\w+$/, "")];
  const prefix = tree.slice(0, open);
  const inner = tree.slice(open + 1, tree.lastIndexOf("}"));
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if ((c === "," && depth === 0) || i === inner.length) {
      const part = inner.slice(start, i);
      if (part) parts.push(...flattenUseTree(part).map((p) => (p === "self" ? prefix.replace(/::$/, "") : prefix + p)));
      start = i + 1;
    }
  }
  return parts;
}

/** One crate's files and their imports (edges between files). */
export function rustCrate(src) {
  const files = walk(src, [".rs"]);
  const modOf = new Map(); // "a::b" -> file
  for (const f of files) {
    const parts = relative(src, f).slice(0, -3).split("/");
    if (["lib", "main", "mod"].includes(parts.at(-1))) parts.pop();
    modOf.set(parts.join("::"), f);
  }
  const pathOf = new Map([...modOf].map(([m, f]) => [f, m]));
  // Each module's re-exports: name -> full path it re-exports.
  const reexports = new Map();
  const uses = new Map();
  for (const f of files) {
    const text = withoutComments(readFileSync(f, "utf8"));
    const here = pathOf.get(f);
    const re = new Map();
    const paths = [];
    for (const m of text.matchAll(/^\s*(pub(?:\([a-z]+\))?\s+)?use\s+([^;]+);/gm)) {
      for (const p of flattenUseTree(m[2])) {
        const abs = absolute(p, here);
        if (abs === null) continue;
        paths.push(abs);
        if (m[1]) re.set(abs.split("::").at(-1), abs);
      }
    }
    for (const m of text.matchAll(/\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
      const abs = absolute(m[1] + m[2], here);
      if (abs !== null) paths.push(abs);
    }
    reexports.set(here, re);
    uses.set(f, paths);
  }
  /** A use path as a path from the crate root, or null (another crate, std). */
  function absolute(path, here) {
    const segs = path.split("::");
    const base = here ? here.split("::") : [];
    if (segs[0] === "crate") return segs.slice(1).join("::");
    if (segs[0] === "super") {
      const up = [...base];
      while (segs[0] === "super") {
        segs.shift();
        up.pop();
      }
      return [...up, ...segs].join("::");
    }
    if (segs[0] === "self") return [...base, ...segs.slice(1)].join("::");
    if (modOf.has([...base, segs[0]].join("::"))) return [...base, ...segs].join("::");
    return null;
  }
  /** The file that defines what `path` names, following re-exports. */
  function definedIn(path, seen = new Set()) {
    const segs = path.split("::").filter(Boolean);
    for (let i = segs.length; i >= 0; i--) {
      const mod = segs.slice(0, i).join("::");
      if (!modOf.has(mod)) continue;
      const item = segs[i];
      const target = item === undefined ? undefined : reexports.get(mod)?.get(item);
      if (target && !seen.has(target) && target !== path) {
        seen.add(target);
        return definedIn(target, seen);
      }
      return modOf.get(mod);
    }
    return null;
  }
  const edges = new Map();
  for (const f of files) {
    const to = new Set();
    const isParent = /(^|\/)(lib|main|mod)\.rs$/.test(f);
    for (const p of uses.get(f)) {
      const target = definedIn(p);
      // A parent's re-export of its child publishes the name; it is not a use of the child.
      if (!target || target === f) continue;
      to.add(target);
    }
    if (isParent) {
      // Re-exports only publish; drop targets reached only through `pub use`.
      const published = new Set([...reexports.get(pathOf.get(f)).values()].map((p) => definedIn(p)));
      const text = withoutComments(readFileSync(f, "utf8")).replace(/^\s*pub(?:\([a-z]+\))?\s+use\s+[^;]+;/gm, "");
      const usedElsewhere = new Set();
      for (const m of text.matchAll(/\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)/g)) usedElsewhere.add(definedIn(absolute(m[1] + m[2], pathOf.get(f))));
      for (const m of text.matchAll(/^\s*use\s+([^;]+);/gm)) for (const p of flattenUseTree(m[1])) usedElsewhere.add(definedIn(absolute(p, pathOf.get(f)) ?? ""));
      for (const t of published) if (!usedElsewhere.has(t)) to.delete(t);
    }
    edges.set(f, to);
  }
  return edges;
}

/** The package's JS modules and their relative imports. */
function jsDir(dir) {
  const files = walk(dir, [".js", ".mjs"]);
  const edges = new Map();
  for (const f of files) {
    const to = new Set();
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/(?:import|export)[^'";]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
      const target = normalize(join(dirname(f), m[1] ?? m[2]));
      if (files.includes(target)) to.add(target);
    }
    edges.set(f, to);
  }
  return edges;
}

/** Every loop of imports in `edges`, each as the files along it. */
export function loops(edges) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (u) => {
    state.set(u, 1);
    stack.push(u);
    for (const v of edges.get(u) ?? []) {
      if (state.get(v) === 1) found.push([...stack.slice(stack.indexOf(v)), v]);
      else if (!state.has(v)) visit(v);
    }
    stack.pop();
    state.set(u, 2);
  };
  for (const u of edges.keys()) if (!state.has(u)) visit(u);
  return found;
}

/** The import graphs of the repository at `root`: one per crate, and the package's js/. */
export function importGraphs(root) {
  const crates = readdirSync(join(root, "crates")).map((c) => join(root, "crates", c, "src"));
  return [...crates.map((src) => ({ name: relative(root, src), edges: rustCrate(src) })), { name: "crates/parsebox-wasm/js", edges: jsDir(join(root, "crates/parsebox-wasm/js")) }];
}
