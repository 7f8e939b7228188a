//! What parsebox's host core and an engine exchange, and nothing else: the ops an engine
//! performs ([`EngineOp`]) and the binary frame they travel in ([`wire`]), the answers it sends
//! back ([`EngineAnswer`], with [`EngineReports`]), when a live line's clock starts
//! ([`LineStart`], [`engine_work_follows`]), the config an engine is started with
//! ([`EngineConfig`]), what it started ([`Started`], with the module's [`ModuleShape`]) and why
//! it could not load its parser ([`LoadError`]). [`EngineRuns`] is
//! the one loop every engine runs those ops with, whether it holds a sandboxed `ui-parser.js`
//! (`parsebox-engine`) or a trusted built-in parser (the wasm binding).
//!
//! The host core (`parsebox-host`) decides what to send and reads the answers; the engine
//! module (`parsebox-engine-wasm`), which runs untrusted code, depends on this crate and not on
//! the core, so the two sides meet only here.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod answer;
mod began;
mod engine_config;
mod engine_runs;
mod load_error;
mod ops;
mod started;
pub mod wire;

use serde::{Deserialize, Serialize};

pub use answer::{EngineAnswer, EngineReports};
pub use began::{engine_work_follows, LineStart};
pub use engine_config::{EngineConfig, DEFAULT_CLOCK_BACKSTOP_MS, DEFAULT_MAX_STRING_BYTES};
pub use engine_runs::{EngineRuns, InstanceFactory, OutcomeOf, ParserInstance};
pub use load_error::LoadError;
pub use ops::{EngineOp, LineOp};
pub use started::{ModuleShape, Started};

/// The address of one line: unique over the host's life, never reused. Answers carry it.
pub type Seq = u64;

/// Identifies one run (one transcript's worth of parser state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunId(pub u64);
