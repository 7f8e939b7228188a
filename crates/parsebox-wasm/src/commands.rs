//! What the JS executor is asked to do: the host core's commands whose engines do not live in
//! this thread's binding (Worker engines), plus loads, frames and notifications.

use serde::Serialize;

/// One command for the JS executor (`takeCommands()` returns them in order, as JSON).
#[derive(Serialize, Debug)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub(crate) enum JsCommand {
    /// Fetch the type's source and answer with `handleLoadResult(type, token, …)`.
    Load { adapter_type: String, token: u64 },
    /// Start a Worker engine with this source and engine config (JSON); answer with
    /// `handleEngineStarted`. The Worker may hold its answers up to `answer_batch_ms` and
    /// post them together (0: each alone); it stops a live line itself past
    /// `line_deadline_ms` ([`Command::StartEngine`](parsebox_host::Command::StartEngine)).
    StartWorker {
        engine: u64,
        adapter_type: String,
        source: String,
        config: String,
        answer_batch_ms: f64,
        line_deadline_ms: f64,
    },
    /// Post the engine's ops frame (`takeOps(engine)`) to the Worker engine.
    Send { engine: u64 },
    /// Terminate the Worker engine.
    End { engine: u64 },
    /// Something waits for the page's next frame: then call `takeFrame()` and do what it says
    /// (asked once until then).
    Frame,
    /// The type's status changed.
    Notify { adapter_type: String },
}
