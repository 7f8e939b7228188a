//! The JS executor as this module sees it (`js/executor.js`): the callbacks it gives the core for
//! engines of this thread and for waking it, and what a `loadSource` hook resolved to.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The JS executor's callbacks for engines in this thread (see `js/executor.js`).
    #[wasm_bindgen(
        typescript_type = "{ startInline(engine: number, adapterType: string, source: string, configJson: string): string; runInline(engine: number, opsJson: Uint8Array): Uint8Array; endInline(engine: number): void; postOps(engine: number, ops: Uint8Array): void; wake(): void }"
    )]
    pub type EngineExecutor;

    /// Starts an engine instance of this thread; JSON of `Result<entryPoint, LoadError>`.
    #[wasm_bindgen(method, catch, js_name = startInline)]
    pub(crate) fn start_inline(
        this: &EngineExecutor,
        engine: f64,
        adapter_type: &str,
        source: &str,
        config_json: &str,
    ) -> Result<String, JsValue>;

    /// Performs a JSON ops batch on an engine of this thread; its JSON answers. The ops reach
    /// JS as a view of this module's memory (no copy); the answer is copied in once. Throws
    /// when the instance trapped.
    #[wasm_bindgen(method, catch, js_name = runInline)]
    pub(crate) fn run_inline(
        this: &EngineExecutor,
        engine: f64,
        ops_json: &[u8],
    ) -> Result<Vec<u8>, JsValue>;

    /// Posts an ops frame to Worker engine `engine` now (a fresh buffer, transferred).
    #[wasm_bindgen(method, catch, js_name = postOps)]
    pub(crate) fn post_ops(this: &EngineExecutor, engine: f64, ops: Vec<u8>)
        -> Result<(), JsValue>;

    /// Ends an engine of this thread.
    #[wasm_bindgen(method, catch, js_name = endInline)]
    pub(crate) fn end_inline(this: &EngineExecutor, engine: f64) -> Result<(), JsValue>;

    /// Commands wait (`takeCommands()`): take them once the call under way has returned.
    #[wasm_bindgen(method, catch)]
    pub(crate) fn wake(this: &EngineExecutor) -> Result<(), JsValue>;

    /// Whatever a `loadSource` hook resolved to.
    #[wasm_bindgen(typescript_type = "unknown")]
    pub type Loaded;
}
