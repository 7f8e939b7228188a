//! What the host can ask about an adapter type.

use serde::Serialize;

/// Where an adapter type is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AdapterState {
    /// Lines are answered by the generic parser: nothing was requested yet, or the loader said
    /// this type has no parser.
    Generic,
    /// The parser source was requested; lines are answered by the generic parser meanwhile.
    Loading,
    /// A sandboxed parser answers lines.
    Ready,
    /// Loading failed (see `reason`); the generic parser answers until `reload`.
    Failed,
    /// A trusted first-party parser registered by the host answers lines.
    Builtin,
}

/// The status of one adapter type, as `status(type)` and `registerSource` return it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterStatus {
    /// The adapter type, e.g. `hermes_local`.
    pub adapter_type: String,
    /// Lifecycle state.
    pub state: AdapterState,
    /// Why the type is `failed` (or `generic` after the loader said it has no parser).
    pub reason: Option<String>,
    /// Which export answers lines when `ready`: `createStdoutParser` or `parseStdoutLine`.
    pub entry_point: Option<&'static str>,
    /// Declared contract version (`paperclip.adapterUiParser`), when the host gave one.
    pub contract_version: Option<String>,
}
