// parsebox: the package entry. Each class and job lives in its own file: errors.js (the error
// classes), instance.js (loading the core and engine modules), options.js (argument checks,
// the default loader), registry.js (ParserRegistry), run.js (a createStdoutParser() instance),
// builder.js (TranscriptBuilder), driver.js (what a registry's core asks, done: loads, frames,
// the timer, idle()), engines.js (engine instances in this thread and in Workers), engine.js (one
// engine instance) and worker.js (an engine in a Web Worker).
export { init as default, initSync, engineReady } from "./instance.js";
export { ParseboxChunkError, ParseboxCoreError, ParseboxDisposedError, ParseboxError, ParseboxInitError, ParseboxMemoryError, ParseboxOptionsError, ParseboxReentrancyError } from "./errors.js";
export { ParserRegistry } from "./registry.js";
export { TranscriptBuilder } from "./builder.js";
