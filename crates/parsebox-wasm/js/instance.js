// The wasm instance: loading and instantiating the module, telling objects built on a dead
// instance from live ones, and re-instantiating after a trap (a panic inside an engine).
import { initSync as initWasmSync } from "./parsebox_wasm.js";
import { ParseboxInitError, ParseboxOptionsError } from "./errors.js";

let compiled = null; // the WebAssembly.Module, kept to re-instantiate after a trap
let generation = 0; // bumps at each (re)instantiation; objects rebuild when stale
let memory = null; // the instance's linear memory

/**
 * Loads the wasm module (browser or Node with fetch). `input` may be a URL, a Response, bytes or
 * a compiled `WebAssembly.Module`; by default the `.wasm` file next to this one.
 */
export async function init(input) {
  if (compiled) return;
  let source = input ?? new URL("./parsebox_wasm_bg.wasm", import.meta.url);
  if (source instanceof WebAssembly.Module) {
    instantiate(source);
    return;
  }
  if (typeof source === "string" || source instanceof URL) source = fetch(source);
  const response = await source;
  if (typeof Response === "function" && response instanceof Response) {
    if (!response.ok) throw new ParseboxInitError(`could not load parsebox wasm: ${response.status} ${response.statusText}`);
    instantiate(await WebAssembly.compile(await response.arrayBuffer()));
  } else {
    instantiate(await WebAssembly.compile(response));
  }
}

/** Synchronous init, e.g. in Node: `initSync({ module: fs.readFileSync(wasmPath) })`. */
export function initSync(options) {
  if (compiled) return;
  const module = options?.module;
  if (!module) throw new ParseboxOptionsError("initSync needs { module }: the .wasm bytes or a WebAssembly.Module");
  instantiate(module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module));
}

function instantiate(module) {
  memory = initWasmSync({ module }).memory ?? null;
  compiled = module;
  generation += 1;
}

export function requireInit() {
  if (!compiled) throw new ParseboxInitError("parsebox is not initialised: await init() (browser) or initSync({ module }) (Node) first");
}

/** A wasm trap (panic, unreachable, out of memory) or a stack overflow inside the engine. */
export function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
}

// Every wasm-bindgen object alive in the current instance. Held strongly so that wasm-bindgen's
// own finalizers can never run for an object of a dead instance: after a trap they would free
// a stale pointer inside the new instance. Our wrappers free them (dispose, or their own
// finalizer below), and a trap detaches them all without touching wasm.
const live = new Set();
export function track(obj) {
  live.add(obj);
  return obj;
}
/** Frees `obj` (made on instance `madeIn`) unless that instance is gone. */
export function release(obj, madeIn) {
  if (live.delete(obj) && madeIn === currentGeneration()) obj.free();
}
export const reaper = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(({ obj, generation: madeIn }) => release(obj, madeIn)) : null;

/** The wasm instance is gone: make a fresh one from the compiled module. */
export function recoverFromTrap() {
  for (const obj of live) obj.__destroy_into_raw();
  live.clear();
  if (compiled) memory = initWasmSync({ module: compiled, __parseboxReinit: true }).memory ?? null;
  generation += 1;
}

/** Bumps at each (re)instantiation: objects made on an older instance rebuild themselves. */
export function currentGeneration() {
  return generation;
}

/** The compiled module (Workers instantiate it too), or null before init. */
export function compiledModule() {
  return compiled;
}

/** Bytes of linear memory the page's instance holds now (wasm memory never shrinks). */
export function memoryBytes() {
  return memory ? memory.buffer.byteLength : 0;
}
