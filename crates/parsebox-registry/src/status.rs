//! What the host can ask about an adapter type.

use serde::Serialize;

pub use parsebox_host::{AdapterState, LoadError};

/// The status of one adapter type, as `status(type)` and `registerSource` return it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "RegistryStatus"))]
pub struct AdapterStatus {
    /// The adapter type, e.g. `hermes_local`.
    pub adapter_type: String,
    /// Lifecycle state.
    pub state: AdapterState,
    /// Why the type is `failed` (or `generic` after the loader said it has no parser).
    pub reason: Option<String>,
    /// Which export answers lines when `ready`: `createStdoutParser` or `parseStdoutLine`.
    #[cfg_attr(
        feature = "ts",
        ts(type = "\"createStdoutParser\" | \"parseStdoutLine\" | null")
    )]
    pub entry_point: Option<&'static str>,
    /// Declared contract version (`paperclip.adapterUiParser`), when the host gave one.
    pub contract_version: Option<String>,
    /// Why the type is `failed`, as data (`reason` is the same as a sentence), else null.
    pub error: Option<LoadError>,
}
