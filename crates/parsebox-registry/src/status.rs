//! What the host can ask about an adapter type.

use serde::Serialize;

pub use parsebox_host::AdapterState;

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
    pub error: Option<StatusError>,
}

/// Why an adapter type failed, as data: a stable code, the explanation, and where in the parser
/// source when known (a syntax error), so a viewer can point at it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusError {
    /// A sandbox load code (`syntax_error`, `imports`, `no_export`, `init_threw`, …), or one of
    /// the registry's own: `unsupported_contract_version`, `loader_failed` (the source could not
    /// be fetched), `engine_fault` (the engine trapped or panicked), `run_start_failed`.
    #[cfg_attr(
        feature = "ts",
        ts(
            type = "LoadErrorCode | \"unsupported_contract_version\" | \"loader_failed\" | \"run_start_failed\""
        )
    )]
    pub code: String,
    /// The explanation.
    pub message: String,
    /// 1-based line in the parser source, when known.
    pub line: Option<u32>,
    /// 1-based column in the parser source, when known.
    pub column: Option<u32>,
}

impl StatusError {
    /// An error without a source position.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            line: None,
            column: None,
        }
    }
}
