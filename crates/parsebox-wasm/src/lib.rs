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
/// holds (`parsebox-meter`, `parsebox_live::memory`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: parsebox_meter::Counting<std::alloc::System> =
    parsebox_meter::Counting::new(std::alloc::System);

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

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../js/types.d.ts");
