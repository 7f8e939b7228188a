// parsebox: the package entry. Each class and job lives in its own file: errors.js (the error
// classes), instance.js (loading and re-instantiating the wasm), options.js (argument checks,
// the default loader), registry.js (ParserRegistry), run.js (a createStdoutParser() instance),
// builder.js (TranscriptBuilder), worker-host.js and worker.js (the worker host).
export { init as default, initSync } from "./instance.js";
export { ParseboxChunkError, ParseboxDisposedError, ParseboxError, ParseboxInitError, ParseboxOptionsError } from "./errors.js";
export { ParserRegistry } from "./registry.js";
export { TranscriptBuilder } from "./builder.js";
