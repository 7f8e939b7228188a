//! The JS driver as this module sees it (`js/engines.js`): the callbacks it gives the core for
//! engines of this thread and for waking it, what a `loadSource` hook resolved to, and those
//! callbacks as the live core's [`Executor`] (the conversions, nothing else).

use parsebox_host::EngineId;
use parsebox_live::{EngineDeath, Executor, LiveCore, SharedCore};
use wasm_bindgen::prelude::*;

use crate::boundary::{describe, error_text, into_error, now_ms, requested_bytes};
use crate::builtin::BuiltinParser;

#[wasm_bindgen]
extern "C" {
    /// The JS driver's callbacks for engines in this thread (see `js/engines.js`).
    #[wasm_bindgen(
        typescript_type = "{ startInline(engine: number, adapterType: string, source: string, configJson: string): string; runInline(engine: number, opsJson: Uint8Array): Uint8Array; endInline(engine: number): void; postOps(engine: number, ops: Uint8Array): void; wake(): void }"
    )]
    pub type EngineExecutor;

    /// Starts an engine instance of this thread; JSON of `Result<Started, LoadError>`.
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

    /// Commands wait (`poll()`): take them once the call under way has returned.
    #[wasm_bindgen(method, catch)]
    pub(crate) fn wake(this: &EngineExecutor) -> Result<(), JsValue>;

    /// Whatever a `loadSource` hook resolved to.
    #[wasm_bindgen(typescript_type = "unknown")]
    pub type Loaded;
}

/// The JS driver's callbacks as the live core calls them.
pub(crate) struct JsExecutor(pub(crate) EngineExecutor);

#[allow(clippy::cast_precision_loss)] // engine ids are small whole numbers
impl Executor for JsExecutor {
    type Builtin = BuiltinParser;

    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn start_inline(
        &mut self,
        engine: EngineId,
        adapter_type: &str,
        source: &str,
        config_json: &str,
    ) -> Result<String, EngineDeath> {
        self.0
            .start_inline(engine.0 as f64, adapter_type, source, config_json)
            .map_err(|e| death(&e))
    }

    fn run_inline(&mut self, engine: EngineId, ops_frame: &[u8]) -> Result<Vec<u8>, EngineDeath> {
        // Bytes both ways (an ops frame in, JSON answers out), copied between the two memories
        // and never decoded into JS strings on the way.
        self.0
            .run_inline(engine.0 as f64, ops_frame)
            .map_err(|e| death(&e))
    }

    fn end_inline(&mut self, engine: EngineId) {
        // Ending cannot fail in a way the core could act on.
        let _ = self.0.end_inline(engine.0 as f64);
    }

    fn post_ops(&mut self, engine: EngineId, ops_frame: Vec<u8>) {
        // A message to a Worker: a Worker that is gone reports itself through its error event.
        let _ = self.0.post_ops(engine.0 as f64, ops_frame);
    }

    fn wake(&mut self) {
        // Waking only schedules the executor's drain.
        let _ = self.0.wake();
    }
}

/// The live core of a registry, its engines of this thread behind the JS driver.
pub(crate) type Shared = LiveCore<JsExecutor>;
/// That core as a registry and its builders share it.
pub(crate) type Core = SharedCore<JsExecutor>;
/// A call's hold on it.
pub(crate) type Entered<'a> = parsebox_live::Entered<'a, JsExecutor>;

/// Holds `core` for one call.
///
/// # Errors
/// `ParseboxReentrancyError` while another call holds it.
pub(crate) fn enter(core: &Core) -> Result<Entered<'_>, JsValue> {
    core.enter()
        .map_err(|e| into_error("ParseboxReentrancyError", e))
}

/// A call into what a call under way already holds (a transcript, the registry's followed runs
/// or its frame), refused as [`enter`] refuses the core.
pub(crate) fn reentered() -> JsValue {
    into_error("ParseboxReentrancyError", parsebox_live::Reentered)
}

/// How an engine instance of this thread died, from what its call threw
/// ([`EngineDeath::classify`], as for a Worker's report).
fn death(e: &JsValue) -> EngineDeath {
    let name = error_text(e, "name").unwrap_or_default();
    EngineDeath::classify(&name, describe(e), requested_bytes(e))
}
