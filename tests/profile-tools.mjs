// Lists the packages the host build uses only as the compiler's tools: proc macros, what build
// scripts need, and what only they use. Cargo.toml's dev profile compiles every other
// dependency at opt-level 2 (boa interprets every parser line of the host tests) and these at
// opt-level 0, as Cargo does by default: they run once per build, and optimising them was
// ~215 s of a cold host build's ~690 s of compiling. A package missing from the list is only
// compiled slower; one listed that the tests also run would only run slower.
//
//   node tests/profile-tools.mjs           prints the list from `cargo metadata`
//   node tests/profile-tools.mjs --check   exits 1 when Cargo.toml's list differs (tests/js/profile-tools.test.mjs)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The tool-only package names of a `cargo metadata` document, sorted. */
export function toolOnlyPackages(meta) {
  const packages = new Map(meta.packages.map((p) => [p.id, p]));
  const nodes = new Map(meta.resolve.nodes.map((n) => [n.id, n]));
  const members = new Set(meta.workspace_members);
  const isProcMacro = (id) => packages.get(id).targets.some((t) => t.kind.includes("proc-macro"));
  const deps = (id, kinds) => nodes.get(id).deps.filter((d) => d.dep_kinds.some((k) => kinds.includes(k.kind))).map((d) => d.pkg);

  // What the tests run: the members' normal and dev dependencies, and theirs, without
  // crossing into a proc macro.
  const runtime = new Set();
  for (const todo = [...members]; todo.length; ) {
    const id = todo.pop();
    if (runtime.has(id)) continue;
    runtime.add(id);
    todo.push(...deps(id, members.has(id) ? [null, "dev"] : [null]).filter((d) => !isProcMacro(d)));
  }
  // What the compiler runs: proc macros and build dependencies of anything above, and theirs.
  const tools = new Set();
  const todo = [];
  for (const id of runtime) {
    for (const d of nodes.get(id).deps) if (isProcMacro(d.pkg) || d.dep_kinds.some((k) => k.kind === "build")) todo.push(d.pkg);
  }
  while (todo.length) {
    const id = todo.pop();
    if (tools.has(id)) continue;
    tools.add(id);
    todo.push(...deps(id, [null, "build"]));
  }
  return [...new Set([...tools].filter((id) => !runtime.has(id)).map((id) => packages.get(id).name))].sort();
}

/** The names Cargo.toml builds at opt-level 0 in the dev profile, sorted. */
export function listedPackages(cargoToml) {
  return [...cargoToml.matchAll(/^\[profile\.dev\.package\.([\w-]+)\]\nopt-level = 0$/gm)].map((m) => m[1]).sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const meta = JSON.parse(execFileSync("cargo", ["metadata", "--format-version", "1", "--locked"], { cwd: root, encoding: "utf8", maxBuffer: 256 << 20 }));
  const want = toolOnlyPackages(meta);
  if (!process.argv.includes("--check")) {
    console.log(want.join("\n"));
  } else {
    const have = listedPackages(readFileSync(new URL("../Cargo.toml", import.meta.url), "utf8"));
    const missing = want.filter((n) => !have.includes(n));
    const extra = have.filter((n) => !want.includes(n));
    if (missing.length || extra.length) {
      console.error(`Cargo.toml's opt-level 0 list is out of date: add ${JSON.stringify(missing)}, remove ${JSON.stringify(extra)}`);
      process.exit(1);
    }
  }
}
