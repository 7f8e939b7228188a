// Build step (package.sh): lets the package start a fresh core after the core module trapped.
//
// wasm-bindgen's glue instantiates the core once and keeps it in a module variable; a trap in
// the middle of a call leaves that instance with objects marked in use, so every later call on
// them fails. The package starts a fresh instance instead (instance.js `renewCore`), which needs
// two things of the glue that it does not offer:
//
// - a way to let go of the instance: an export `__parsebox_forget_core()`, after which the
//   glue's `initSync` instantiates the module again;
// - finalizers that know which instance an object came from: an object of the old instance
//   that is collected later must not free its pointer in the new one (where that address may
//   hold something else). Each registration's held value carries the instance's number, and
//   the finalizer frees only pointers of the live instance.
//
// The edits are checked: each pattern must be found as often as the glue has classes, or the
// build fails (a new wasm-bindgen that writes its glue differently must be looked at).
//
//   node crates/parsebox-wasm/renewable-glue.mjs pkg/parsebox_wasm.js
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
let glue = readFileSync(file, "utf8");

const classes = [...glue.matchAll(/^export class (\w+) \{/gm)].length;
const fail = (what) => {
  console.error(`renewable-glue.mjs: ${what} in ${file}: the glue changed, look at this step again`);
  process.exit(1);
};
if (classes === 0) fail("no exported class");

/** Replaces every match of `pattern`, which must match `count` times. */
const edit = (pattern, replace, count, what) => {
  const found = [...glue.matchAll(pattern)].length;
  if (found !== count) fail(`${what}: found ${found} times, not ${count}`);
  glue = glue.replace(pattern, replace);
};

edit(
  /new FinalizationRegistry\(ptr => wasm\.(__wbg_\w+_free)\(ptr, 1\)\)/g,
  "new FinalizationRegistry((held) => held.core === __parseboxCore && wasm.$1(held.ptr, 1))",
  classes,
  "a class's finalizer",
);
edit(
  /(\w+Finalization)\.register\((\w+), \2\.__wbg_ptr, \2\);/g,
  "$1.register($2, { ptr: $2.__wbg_ptr, core: __parseboxCore }, $2);",
  classes,
  "a finalizer registration",
);
edit(
  /^let wasmModule, wasmInstance, wasm;$/gm,
  `let wasmModule, wasmInstance, wasm;
// parsebox: the number of the core instance (renewable-glue.mjs).
let __parseboxCore = 0;
/** parsebox: lets go of the core instance; the next initSync makes a fresh one. */
export function __parsebox_forget_core() {
    wasm = undefined;
    wasmInstance = undefined;
    wasmModule = undefined;
    __parseboxCore += 1;
}`,
  1,
  "the instance's variables",
);
writeFileSync(file, glue);
