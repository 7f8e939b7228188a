/**
 * The package's two wasm files (`parsebox/parsebox_wasm_bg.wasm`, the core, and
 * `parsebox/parsebox_engine.wasm`, the engine) are exported as assets, not modules: resolve
 * their path (`import.meta.resolve` in Node, a bundler's `?url` import) and hand the file, its
 * bytes or its URL to `init()` or `initSync()`. Importing one as a module is not supported, so
 * this declaration gives it no usable value.
 */
declare const asset: unknown;
export default asset;
