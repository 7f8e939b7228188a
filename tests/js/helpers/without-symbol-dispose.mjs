// Loads the built package in a V8 context that has no `Symbol.dispose` (as WebKitGTK 2.50 has
// none; Node's own contexts always do), uses a registry, a builder and a run, disposes them, and
// prints what a page would see: whether any class got a method named "undefined", and whether
// the objects work and dispose.
//   node --experimental-vm-modules tests/js/helpers/without-symbol-dispose.mjs PKG_DIR
import vm from "node:vm";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const context = vm.createContext({ TextDecoder, TextEncoder, console, queueMicrotask, setTimeout, clearTimeout, performance, WebAssembly, URL });
const modules = new Map();
const load = (file) => {
  if (!modules.has(file)) {
    modules.set(file, new vm.SourceTextModule(readFileSync(join(dir, file), "utf8"), { context, identifier: file, initializeImportMeta: (meta) => (meta.url = `file://${join(dir, file)}`) }));
  }
  return modules.get(file);
};
const entry = load("index.js");
await entry.link((specifier) => load(specifier.replace(/^\.\//, "")));
await entry.evaluate();
context.pb = entry.namespace;
context.core = readFileSync(join(dir, "parsebox_wasm_bg.wasm"));
context.engine = readFileSync(join(dir, "parsebox_engine.wasm"));
const out = vm.runInContext(
  `(() => {
    pb.initSync({ module: core, engine });
    const registry = new pb.ParserRegistry({ loadSource: null });
    const builder = new pb.TranscriptBuilder(registry, "plain");
    const run = registry.adapter("plain").createStdoutParser();
    const entries = builder.push({ ts: "t", stream: "stdout", chunk: "hello\\n" }).entries.map((e) => e.text);
    const named = [registry, builder, run].map((o) => Object.getOwnPropertyNames(Object.getPrototypeOf(o)).includes("undefined"));
    run.dispose();
    builder.dispose();
    registry.dispose();
    let usedAfter = "";
    try { registry.status("plain"); } catch (e) { usedAfter = e.name; }
    return JSON.stringify({ symbol: typeof Symbol.dispose, entries, named, usedAfter });
  })()`,
  context,
);
console.log(out);
