// No two source files import each other in a loop (issue 43), in any crate's src/ or in the
// package's js/: a reader can take the files in an order where each uses only what came before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { importGraphs, loops, rustCrate } from "../structure/imports.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("no file in crates/*/src or the package's js/ imports itself through others", () => {
  const found = [];
  for (const graph of importGraphs(root)) {
    for (const loop of loops(graph.edges)) found.push(`${graph.name}: ${loop.map((f) => relative(root, f)).join(" -> ")}`);
  }
  assert.deepEqual(found, []);
});

test("the check sees a loop through a re-export, and not a parent that only publishes its children", () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-loops-"));
  try {
    mkdirSync(join(dir, "src"));
    // lib.rs publishes a and b; a uses B (defined in b.rs, named through the re-export) and b
    // uses a::A: a loop between a.rs and b.rs, and none with lib.rs.
    writeFileSync(join(dir, "src/lib.rs"), "mod a;\nmod b;\npub use a::A;\npub use b::B;\n");
    writeFileSync(join(dir, "src/a.rs"), "use crate::B;\npub struct A(B);\n");
    writeFileSync(join(dir, "src/b.rs"), "pub struct B;\nfn f() { let _ = crate::a::A; }\n");
    const names = loops(rustCrate(join(dir, "src"))).map((l) => l.map((f) => relative(dir, f)));
    assert.deepEqual(names, [["src/a.rs", "src/b.rs", "src/a.rs"]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
