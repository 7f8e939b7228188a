//! The parser registry the Paperclip UI talks to (SPEC §4), as a host-testable core.
//!
//! Per adapter type it keeps a lifecycle — `generic` (no parser yet, or none exists), `loading`,
//! `ready` (a sandboxed parser), `failed` (with a reason), `builtin` (a trusted first-party
//! parser) — and answers every line at once: with the adapter's parser when it is ready, with
//! the generic parser otherwise, and with the generic entry for any single line the parser
//! cannot answer (it threw, ran over budget, returned garbage). Nothing here is asynchronous:
//! the registry *asks* for sources ([`Registry::take_load_requests`]) and the host (the wasm
//! binding's JS loader, a CLI, a test) answers with [`Registry::complete_load`] whenever the
//! source arrives. Change notifications are queued the same way ([`Registry::take_changes`]).
//!
//! Every line's outcome goes through the one line rule, [`parsebox_transcript::settle_line`],
//! with the configured entry limits ([`Registry::settle`]) — also for lines a Worker answered —
//! and is counted by the host core's [`parsebox_host::count_line`]. The lifecycle states, load
//! results and contract check are the host core's too: this registry runs the engines in its
//! own thread and is what the binding drives until it drives [`parsebox_host`] instead.

mod diagnostics;
mod registry;
pub mod run;
mod status;

pub use diagnostics::Diagnostics;
pub use registry::{LoadRequest, LoadResult, Registry, RegistryOptions};
pub use run::RunId;
pub use status::{AdapterState, AdapterStatus, LoadError};

/// A trusted, first-party parser registered by the host: called directly, without a sandbox.
/// Each call makes one fresh run (a fresh stateful instance).
pub type BuiltinFactory = std::rc::Rc<dyn Fn() -> Box<dyn run::RunParser>>;

/// Misuse of the registry by its host (not a guest failure, which is data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryError {
    /// A run id that does not exist (never created, or already dropped).
    UnknownRun(u64),
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownRun(id) => write!(
                f,
                "run {id} does not exist (it was disposed, or never created)"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}
