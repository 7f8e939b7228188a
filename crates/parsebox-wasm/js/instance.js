// Loading the two wasm modules: the trusted core (wasm-bindgen, instantiated once) and the
// engine module (compiled once; every adapter's parser gets an instance of its own). `init()`
// waits for the core alone, so generic entries render after its download; the engine module is
// fetched and compiled next, in the background, and registries start their parsers when it is.
import { __parsebox_forget_core as forgetCore, coreGivesMemoryBack, initSync as initCoreSync, parsersWaitForWarmUp } from "./parsebox_wasm.js";
import { compileEngine, compileWasm, inNode, initialPages } from "./engine.js";
import { ParseboxInitError, ParseboxOptionsError, onCoreTrap } from "./errors.js";
import { dropWorker, keepWorker, takeWorker } from "./workers.js";

let coreReady = false;
let coreModule = null; // the compiled core module: a fresh instance after a trap is made from it
let coreStartBytes = 0; // the core instance's memory when it started
const coreUsers = new Set(); // WeakRefs of the objects that hold objects of the core instance
let usersSwept = 64; // coreUsers' size after its last sweep of collected objects (at least 64)
let initializing = null; // init()'s promise, so concurrent calls share one download
let engine = null; // the compiled engine module, once it is
let engineError = null; // why it could not be loaded, if it could not
let engineLoad = null; // its load in flight (a promise), once started
let usable = false; // the module settled and its warm-up (where there is one) is over: registries start parsers
let warming = null; // the engine's warm-up in a Worker (a promise that always resolves), once started; in Node by engineReady()
const engineWaiters = new Set(); // callbacks for registries made before it was compiled

const toModule = (m) => (m instanceof WebAssembly.Module ? m : new WebAssembly.Module(m));

/**
 * Warms the engine module's code in a Worker (engine.js' `warmUp` says why); resolves when the
 * Worker says it is done, or fails (an error event, or any other answer: worker.js reports a
 * message it could not read). Registries start their parsers once it resolves. A Worker that
 * warmed up is kept for the first Worker engine (workers.js), which then skips the Worker's
 * own start; one that failed is ended.
 *
 * No clock ends the wait: the warm-up is a fixed, small piece of work that always answers, and
 * on a busy machine it may take longer than any bound chosen on an idle one (the 5 s bound
 * this had was, it seems, passed once in the browser tests on a busy machine: the first parser
 * then started a Worker of its own beside the warm-up's, on code still being compiled).
 *
 * Ending a Worker while one of the module's functions is being compiled for a faster tier
 * leaves that function in JavaScriptCore's interpreter (WebKit 2.50) for every later instance
 * of the module: a page then ran its parsers 4-25x slower for good (session 32). That is also
 * why, in JavaScriptCore only, registries wait for the warm-up: a page's first Workers, on code
 * not compiled yet, are the ones a tight deadline would end mid-compile.
 * @param {WebAssembly.Module} module
 */
function warmUpInWorker(module) {
  return new Promise((resolve) => {
    let worker = null;
    const finish = (warmed) => {
      resolve();
      if (worker) (warmed ? keepWorker : dropWorker)(worker);
    };
    try {
      worker = takeWorker();
    } catch {
      finish(false);
      return;
    }
    worker.onerror = () => finish(false);
    worker.onmessage = ({ data }) => finish(data?.warmed === true);
    worker.postMessage({ warmUp: module });
  });
}

/**
 * Warms the engine module's code in a Node worker thread (engine.js' `warmUp`), which shares
 * compiled code with the main thread as a browser's Worker does; resolves when it is done or
 * failed (the thread answers, errs or exits; no clock ends the wait, as in `warmUpInWorker`),
 * and ends the thread. Node has no Worker engines, so nothing of it is kept.
 * @param {WebAssembly.Module} module
 */
async function warmUpInNodeThread(module) {
  let thread = null;
  try {
    // Both names in variables, so bundlers for the browser neither resolve the module nor
    // copy engine.js as an asset.
    const name = "node:worker_threads";
    const file = "./engine.js";
    const { Worker: Thread } = await import(/* @vite-ignore */ name);
    const warmUpUrl = JSON.stringify(new URL(file, import.meta.url).href);
    // `import()`, not `require`: the thread's code is CommonJS or a module as the process's
    // `--input-type` says (an ES module under `node --input-type=module -e`, where `require`
    // is not defined and the warm-up failed before it began), and `import()` works in both.
    thread = new Thread(
      `import("node:worker_threads").then(({ parentPort }) =>
         parentPort.once("message", async (module) => {
           try { (await import(${warmUpUrl})).warmUp(module); } catch {}
           parentPort.postMessage("warmed");
         }));`,
      { eval: true },
    );
    await new Promise((resolve) => {
      thread.once("message", resolve);
      thread.once("error", resolve);
      thread.once("exit", resolve);
      thread.postMessage(module);
    });
  } catch {
    // A warm-up only saves time: without worker threads the first parser compiles the code.
  } finally {
    await thread?.terminate();
  }
}

function engineSettled(module, error) {
  if (engine || engineError) return; // settled once: a load still in flight after initSync() is ignored
  try {
    if (module) initialPages(module); // the package's engine module, or a clear error now
  } catch (e) {
    [module, error] = [null, e];
  }
  engine = module;
  engineError = error;
  // Where there are Workers, the warm-up starts now. In JavaScriptCore registries are told the
  // module is ready once it is over (warmUpInWorker says why); elsewhere at once, and the
  // warm-up goes on beside the first parsers (the core's parsersWaitForWarmUp decides from the
  // user agent). Node has no Workers and warms in a thread only when engineReady() asks: a
  // thread started here would hold a short script's exit until it ends.
  warming = module && typeof Worker === "function" ? warmUpInWorker(module) : null;
  if (warming && parsersWaitForWarmUp(globalThis.navigator?.userAgent ?? "")) warming.then(engineUsable);
  else engineUsable();
}

/** Tells the registries waiting for the engine module that it is ready, or failed. */
function engineUsable() {
  usable = true;
  const waiters = [...engineWaiters];
  engineWaiters.clear();
  for (const w of waiters) w(engineError);
}

/**
 * Loads the core (browser, or Node with fetch) and starts loading the engine. Resolves once
 * the core is ready: registries answer with the generic parser at once, and parsers start when
 * the engine module is compiled (`engineReady()`). `input` may be the core's URL, Response,
 * bytes or compiled module (default: `parsebox_wasm_bg.wasm` next to this file); `engineInput`
 * the same for the engine (default: `parsebox_engine.wasm` next to this file).
 */
export function init(input, engineInput) {
  if (coreReady) return Promise.resolve();
  initializing ??= compileWasm(input ?? new URL("./parsebox_wasm_bg.wasm", import.meta.url)).then(
    (core) => {
      if (!coreReady) startCore(core);
      // After the core, so the first entries never wait for the engine's bytes.
      engineLoad ??= compileEngine(engineInput).then(
        (module) => engineSettled(module, null),
        (e) => engineSettled(null, e instanceof Error ? e : new ParseboxInitError(String(e))),
      );
    },
    (e) => {
      initializing = null; // a failed download may be retried
      throw e;
    },
  );
  return initializing;
}

/**
 * Resolves when the engine module is compiled and its code warmed by a small parser in a Worker
 * (in Node, a worker thread that the first call starts), so parsers registered from then on
 * load at full speed; rejects with why the module could not be loaded. In
 * JavaScriptCore registries wait for the same warm-up before they start parsers; they need not
 * call this.
 */
export function engineReady() {
  if (!coreReady && !initializing) return Promise.reject(new ParseboxInitError("parsebox is not initialised: call init() first"));
  return new Promise((resolve, reject) =>
    onEngine((error) => {
      if (error) return reject(error);
      warming ??= inNode() ? warmUpInNodeThread(engine) : Promise.resolve();
      warming.then(resolve);
    }),
  );
}

/**
 * Synchronous init, e.g. in Node: `initSync({ module: coreBytes, engine: engineBytes })`, each
 * the `.wasm` bytes or a compiled `WebAssembly.Module`.
 */
export function initSync(options) {
  if (coreReady && engine) return;
  if (!options?.module || !options?.engine) {
    throw new ParseboxOptionsError("initSync needs { module, engine }: the bytes (or compiled modules) of parsebox_wasm_bg.wasm and parsebox_engine.wasm");
  }
  const compiled = toModule(options.engine);
  initialPages(compiled); // not the package's engine module: a clear error before anything starts
  if (!coreReady) startCore(toModule(options.module));
  engineLoad ??= Promise.resolve();
  if (!engine) engineSettled(compiled, null);
}

/** Instantiates the core module (compiled), keeping it for a fresh instance after a trap. */
function startCore(module) {
  coreStartBytes = initCoreSync({ module }).memory.buffer.byteLength;
  coreModule = module;
  coreReady = true;
}

/**
 * Registers `user`, an object holding objects of the core instance: if the instance traps,
 * `user._coreLost()` is called once a fresh one runs, and it must let go of them without a
 * call into the core (their pointers mean nothing to the fresh instance). Returns a function
 * that unregisters it (on dispose).
 */
export function holdsCore(user) {
  const ref = new WeakRef(user);
  coreUsers.add(ref);
  // Objects collected without dispose() leave their refs: swept when the set has doubled.
  if (coreUsers.size >= usersSwept * 2) {
    for (const r of coreUsers) if (r.deref() === undefined) coreUsers.delete(r);
    usersSwept = Math.max(64, coreUsers.size);
  }
  return () => {
    coreUsers.delete(ref);
    // Checked once the call that disposed it has returned (a dispose may come from a listener
    // the core called).
    if (coreUsers.size === 0) queueMicrotask(giveMemoryBack);
  };
}

/**
 * Nothing holds objects of the core instance any more (every registry, builder and follower
 * disposed or collected): when its memory grew far past what it started with (the core's
 * `coreGivesMemoryBack` says how far), the instance is let go of and a fresh one starts, so the
 * memory goes back (a wasm memory cannot shrink).
 */
function giveMemoryBack() {
  for (const r of coreUsers) if (r.deref() === undefined) coreUsers.delete(r);
  if (coreUsers.size > 0 || !coreModule) return;
  if (!coreGivesMemoryBack(coreStartBytes, initCoreSync().memory.buffer.byteLength)) return;
  forgetCore();
  coreStartBytes = initCoreSync({ module: coreModule }).memory.buffer.byteLength;
}

/**
 * The core instance trapped (errors.js saw a `WebAssembly.RuntimeError` leave a call into it):
 * its objects may be marked in use forever, and its memory may be full. The glue lets go of
 * it and instantiates the module afresh, so new registries work; each object of the old one
 * is told, and from then on refuses every call with a `ParseboxCoreError`.
 */
function renewCore() {
  forgetCore();
  coreStartBytes = initCoreSync({ module: coreModule }).memory.buffer.byteLength;
  const users = [...coreUsers];
  coreUsers.clear();
  for (const ref of users) ref.deref()?._coreLost();
}
onCoreTrap(renewCore);

/** Throws `ParseboxInitError` before init. */
export function checkInit() {
  if (!coreReady) throw new ParseboxInitError("parsebox is not initialised: await init() (browser) or initSync({ module, engine }) (Node) first");
}

/** Whether the engine module is compiled and its warm-up, where there is one, is over. */
export function hasEngine() {
  return usable && engine !== null;
}

/**
 * Calls `callback(error)` once the engine module is compiled and warmed (error null), or
 * failed; at once if that is so already. Returns a function that cancels the call.
 */
export function onEngine(callback) {
  if (usable) {
    callback(engineError);
    return () => {};
  }
  engineWaiters.add(callback);
  return () => engineWaiters.delete(callback);
}

/** The compiled engine module (the core only asks for engines once it is). */
export function engineModule() {
  if (!engine) throw new ParseboxInitError("the engine module is not compiled yet");
  return engine;
}
