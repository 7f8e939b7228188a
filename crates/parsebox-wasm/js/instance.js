// Loading the two wasm modules: the trusted core (wasm-bindgen, instantiated once) and the
// engine module (compiled once; every adapter's parser gets an instance of its own).
import { initSync as initCoreSync } from "./parsebox_wasm.js";
import { compileEngine, compileWasm } from "./engine.js";
import { ParseboxInitError, ParseboxOptionsError } from "./errors.js";

let engine = null; // the compiled engine module, once initialised

const toModule = (m) => (m instanceof WebAssembly.Module ? m : new WebAssembly.Module(m));

/**
 * Loads both modules (browser, or Node with fetch). `input` may be the core's URL, Response,
 * bytes or compiled module (default: `parsebox_wasm_bg.wasm` next to this file); `engineInput`
 * the same for the engine (default: `parsebox_engine.wasm` next to this file).
 */
export async function init(input, engineInput) {
  if (engine) return;
  const [core, compiled] = await Promise.all([compileWasm(input ?? new URL("./parsebox_wasm_bg.wasm", import.meta.url)), compileEngine(engineInput)]);
  if (engine) return;
  initCoreSync({ module: core });
  engine = compiled;
}

/**
 * Synchronous init, e.g. in Node: `initSync({ module: coreBytes, engine: engineBytes })`, each
 * the `.wasm` bytes or a compiled `WebAssembly.Module`.
 */
export function initSync(options) {
  if (engine) return;
  if (!options?.module || !options?.engine) {
    throw new ParseboxOptionsError("initSync needs { module, engine }: the bytes (or compiled modules) of parsebox_wasm_bg.wasm and parsebox_engine.wasm");
  }
  const compiled = toModule(options.engine);
  initCoreSync({ module: toModule(options.module) });
  engine = compiled;
}

/** The compiled engine module; throws before init. */
export function engineModule() {
  if (!engine) throw new ParseboxInitError("parsebox is not initialised: await init() (browser) or initSync({ module, engine }) (Node) first");
  return engine;
}
