//! The wasm-bindgen binding of parsebox's trusted core: the host core
//! ([`parsebox_host::Host`]), the transcript builder and the trusted built-in parsers. No
//! parser source runs in this module: each adapter's sandboxed parser runs in an engine
//! instance of its own (the engine module, `parsebox-engine-wasm`), which the JS driver
//! makes, in this thread or in a Worker.
//!
//! The binding converts arguments, performs the commands whose engines live in this thread
//! (built-ins here; inline engine instances through the executor's callbacks) and hands
//! the rest to the JS driver as data ([`RegistryCore::poll`]), waking it (`wake()`)
//! when the first command waits, whichever call led to it. Every decision is the
//! host core's. Entries cross the boundary as one JSON string per call: measured faster than
//! building JS objects field by field (`FINDINGS.md`), and `JSON.parse` gives plain objects.

mod boundary;
mod builder;
mod builtin;
mod chunk;
mod followed;
mod js_executor;
mod option_kinds;
mod options;
mod registry_core;

use wasm_bindgen::prelude::*;

pub use builder::TranscriptBuilderCore;
pub use followed::FollowedRunCore;
pub use js_executor::{EngineExecutor, Loaded};
pub use option_kinds::check_options;
pub use registry_core::RegistryCore;

/// The core's allocator, counted: what its memory budgets measure are the bytes it really
/// holds (`parsebox-meter`, `parsebox_live::memory`). The memory grows in steps of an eighth
/// of itself ([`parsebox_meter::GrowAhead`]).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: parsebox_meter::Counting<parsebox_meter::GrowAhead<std::alloc::System>> =
    parsebox_meter::Counting::new(parsebox_meter::GrowAhead::new(std::alloc::System));

/// Installs the panic hook, so a Rust panic is reported on the console before the trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Whether a page's first parsers wait for the engine module's warm-up in the JavaScript
/// engine `user_agent` names (`navigator.userAgent`): only where a Worker ended mid-compile
/// slows the module for good ([`parsebox_live::parsers_wait_for_warm_up`]).
#[wasm_bindgen(js_name = parsersWaitForWarmUp)]
#[must_use]
pub fn parsers_wait_for_warm_up(user_agent: &str) -> bool {
    parsebox_live::parsers_wait_for_warm_up(user_agent)
}

/// The registry's defaults of the limits a command line reads itself (`lineBudgetMs`,
/// `initBudgetMs`, `maxSourceBytes`, `maxLineBytes`), as JSON: the host core's own, so
/// `npx parsebox` never keeps a copy of them.
#[wasm_bindgen(js_name = registryDefaults)]
#[must_use]
pub fn registry_defaults() -> String {
    options::defaults_json()
}

/// How long a Worker with no engine now is kept for a later engine when `kept` are kept
/// already: `undefined` until one takes it, else milliseconds, then terminated (0: at once)
/// ([`parsebox_live::worker_pool::idle_worker_keep_ms`]).
#[wasm_bindgen(js_name = idleWorkerKeepMs)]
#[must_use]
pub fn idle_worker_keep_ms(kept: u32, in_node: bool) -> Option<f64> {
    parsebox_live::worker_pool::idle_worker_keep_ms(
        usize::try_from(kept).unwrap_or(usize::MAX),
        in_node,
    )
}

/// Whether a core instance nothing holds objects of any more is replaced by a fresh one, its
/// memory having grown from `start_bytes` to `now_bytes`
/// ([`parsebox_live::memory::gives_memory_back`]).
#[wasm_bindgen(js_name = coreGivesMemoryBack)]
#[must_use]
// Byte counts of a wasm memory: whole, and far below 2^53.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn core_gives_memory_back(start_bytes: f64, now_bytes: f64) -> bool {
    parsebox_live::memory::gives_memory_back(start_bytes as u64, now_bytes as u64)
}

/// How long the page waits for an ended engine's Worker to say it is idle before it terminates
/// it ([`parsebox_live::worker_pool::end_wait_ms`]).
#[wasm_bindgen(js_name = workerEndWaitMs)]
#[must_use]
pub fn worker_end_wait_ms(line_deadline_ms: f64) -> f64 {
    parsebox_live::worker_pool::end_wait_ms(line_deadline_ms)
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../js/types.d.ts");
