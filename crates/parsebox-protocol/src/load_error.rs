//! Why an engine could not load its parser, as data the core keeps in a type's status.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why an adapter type failed, as data: why an engine could not load its parser (syntax error,
/// no usable export, too large, init threw or ran over budget), or why the host gave up on it.
/// Not an error of the host. A status carries it beside its `reason` sentence, so a viewer can
/// point at the source position.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "StatusError"))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadError {
    /// A sandbox load code (`syntax_error`, `imports`, `no_export`, `init_threw`, …), or one of
    /// the host's own: `unsupported_contract_version`, `loader_failed` (the source could not be
    /// fetched), `no_parser` (the loader says the type has none: the type is `generic`),
    /// `engine_fault` (the engine trapped or panicked), `run_start_failed`.
    #[cfg_attr(
        feature = "ts",
        ts(
            type = "LoadErrorCode | \"unsupported_contract_version\" | \"loader_failed\" | \"no_parser\" | \"run_start_failed\""
        )
    )]
    pub code: String,
    /// A human-readable explanation.
    pub message: String,
    /// The 1-based source line, when the error has a position.
    pub line: Option<u32>,
    /// The 1-based source column, when the error has a position.
    pub column: Option<u32>,
}

impl LoadError {
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

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, " (line {l}, column {c})"),
            (Some(l), None) => write!(f, " (line {l})"),
            _ => Ok(()),
        }
    }
}
