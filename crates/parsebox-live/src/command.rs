//! What the JS driver is asked to do: the host core's commands whose engines do not live in
//! the page's thread (Worker engines), plus loads, frames and notifications.

use serde::Serialize;

/// One command for the JS driver ([`LiveCore::take_commands`](crate::LiveCore::take_commands)
/// returns them in order; the binding hands them over as JSON).
#[derive(Serialize, Debug, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ExecutorCommand {
    /// Fetch the type's source and answer with `handleLoadResult(type, token, …)`.
    Load {
        /// The type whose parser to fetch.
        adapter_type: String,
        /// The load's token, handed back with its result.
        token: u64,
    },
    /// Start a Worker engine with this source and engine config (JSON); answer with
    /// `handleEngineStarted`. The Worker may hold its answers up to `answer_batch_ms` and
    /// post them together (0: each alone); it stops a live line itself past
    /// `line_deadline_ms` ([`Command::StartEngine`](parsebox_host::Command::StartEngine)).
    StartWorker {
        /// The engine's id.
        engine: u64,
        /// The type it runs.
        adapter_type: String,
        /// The parser source.
        source: String,
        /// The engine config, JSON.
        config: String,
        /// How long the Worker may hold its answers, in milliseconds.
        answer_batch_ms: f64,
        /// When the Worker stops a live line itself, in milliseconds from its start.
        line_deadline_ms: f64,
    },
    /// Post the engine's ops frame (beside the poll's JSON, in the order of the `send`s) to the
    /// Worker engine.
    Send {
        /// The Worker engine.
        engine: u64,
    },
    /// Terminate the Worker engine.
    End {
        /// The Worker engine.
        engine: u64,
    },
    /// Something waits for the page's next frame: then call `takeFrame()` and do what it says
    /// (asked once until then).
    Frame,
    /// The type's status changed.
    Notify {
        /// The type.
        adapter_type: String,
    },
}
