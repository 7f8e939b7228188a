// The package in Node, as tests/js/*.test.mjs load it (initSync with both wasm modules), with
// Workers from web-worker.mjs: the fuzzer's default package side (answers.mjs says what it
// asks).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import * as parsebox from "../../pkg/index.js";
import { packageSide } from "./answers.mjs";
import { installWebWorker } from "./web-worker.mjs";

let side = null;

/** The package side in Node: `{ open(host, source) }` (instantiated once, on first use). */
export function nodePackage() {
  if (!side) {
    const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
    parsebox.initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });
    // After initSync: the package starts no warm-up Worker of its own in Node.
    installWebWorker();
    side = { name: "node", ...packageSide(parsebox), close() {} };
  }
  return side;
}
