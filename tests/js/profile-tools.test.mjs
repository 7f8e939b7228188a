// Cargo.toml's list of the host build's tool-only packages (compiled at opt-level 0: proc
// macros, build scripts' dependencies) is what `cargo metadata` says it is: a dependency change
// that adds a proc macro would otherwise compile it at opt-level 2 on every cold run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

import { listedPackages, toolOnlyPackages } from "../profile-tools.mjs";

const root = new URL("../../", import.meta.url);

test("Cargo.toml builds at opt-level 0 exactly the packages only the compiler runs", () => {
  const meta = JSON.parse(execFileSync("cargo", ["metadata", "--format-version", "1", "--locked"], { cwd: root, encoding: "utf8", maxBuffer: 256 << 20 }));
  const want = toolOnlyPackages(meta);
  assert.ok(want.includes("serde_derive") && want.includes("syn"), `the tool-only packages: ${want.join(", ")}`);
  assert.ok(!want.includes("boa_engine") && !want.includes("serde"), "nothing the tests run is a tool");
  assert.deepEqual(listedPackages(readFileSync(new URL("Cargo.toml", root), "utf8")), want);
});
