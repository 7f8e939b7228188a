//! What a live core needs of the page it runs in: a clock, the engine instances of the page's
//! own thread (behind the JS driver's callbacks in the binding), posting ops to Worker
//! engines, and waking the executor when commands wait. The binding implements [`Executor`]
//! for its JS callbacks; tests implement it with fakes.

use parsebox_host::{EngineId, InstanceFactory, ParserInstance};

/// How a call into an engine of this thread ended without answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineDeath {
    /// It trapped or failed: the reason, as a sentence.
    Fault(String),
    /// Its memory reached the maximum: an allocation of this many bytes did not fit.
    OutOfMemory(u64),
    /// It stopped its line itself: the line ran past its deadline with the engine's count of
    /// work not moving (one native step that does not return), and the instance is dead.
    Stopped,
}

impl EngineDeath {
    /// How an engine died, from what it threw or reported: the error's `name` (empty for a
    /// value that is not an `Error`), its `description` as a sentence, and `requested_bytes`,
    /// the allocation that did not fit when its memory reached the maximum (engine.js's
    /// `EngineMemoryError`; 0 otherwise). The one rule for an engine of this thread (the
    /// binding reads the thrown value) and a Worker's (the Worker reports the same three).
    pub fn classify(name: &str, description: String, requested_bytes: f64) -> Self {
        match name {
            "EngineMemoryError" if requested_bytes >= 1.0 => {
                // A byte count from the engine: whole, and far below 2^53.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Self::OutOfMemory(requested_bytes as u64)
            }
            "EngineStoppedError" => Self::Stopped,
            _ => Self::Fault(description),
        }
    }
}

/// A trusted built-in parser (`registerBuiltin`): the engine runs its instances as it runs a
/// sandboxed parser's.
pub trait Builtin:
    InstanceFactory<Instance: ParserInstance<Value = serde_json::Value>> + Clone
{
    /// The export that answers lines, as a status reports it (`createStdoutParser` or
    /// `parseStdoutLine`).
    fn entry_point(&self) -> &'static str;
}

/// The page side of a live core. Every method is a call out of the core; none may call back
/// into it.
pub trait Executor {
    /// The built-in parsers this page registers.
    type Builtin: Builtin;

    /// Now, in milliseconds, on the clock every deadline of the host core is measured with
    /// (`performance.now()` in a page).
    fn now_ms(&self) -> f64;

    /// Starts an inline engine instance of this thread with `source` and the engine config
    /// (JSON). Returns the engine's own answer, JSON of `Result<entryPoint, LoadError>`, or why
    /// the call itself failed.
    ///
    /// # Errors
    /// How the instance died instead of answering (it could not be made, it trapped, or it
    /// stopped the module's evaluation at the deadline).
    fn start_inline(
        &mut self,
        engine: EngineId,
        adapter_type: &str,
        source: &str,
        config_json: &str,
    ) -> Result<String, EngineDeath>;

    /// Performs an ops frame (`parsebox_host::wire`) on an inline engine; its answers as JSON
    /// (`[[seq, outcome, reports?], …]`).
    ///
    /// # Errors
    /// How the instance died instead of answering.
    fn run_inline(&mut self, engine: EngineId, ops_frame: &[u8]) -> Result<Vec<u8>, EngineDeath>;

    /// Ends an inline engine instance.
    fn end_inline(&mut self, engine: EngineId);

    /// Posts an ops frame to Worker engine `engine` now (a frame that grew too large to wait
    /// for the executor's next drain).
    fn post_ops(&mut self, engine: EngineId, ops_frame: Vec<u8>);

    /// Commands wait: take them ([`LiveCore::take_commands`](crate::LiveCore::take_commands))
    /// once the call under way has returned.
    fn wake(&mut self);
}

#[cfg(test)]
mod tests {
    use super::EngineDeath;

    #[test]
    fn a_death_is_classified_by_the_error_name_and_the_bytes_that_did_not_fit() {
        let fault = |s: &str| EngineDeath::Fault(s.to_owned());
        let table = [
            (
                "EngineMemoryError",
                "EngineMemoryError: full",
                65_536.0,
                EngineDeath::OutOfMemory(65_536),
            ),
            // No bytes to name: not known to be out of memory.
            (
                "EngineMemoryError",
                "EngineMemoryError: full",
                0.0,
                fault("EngineMemoryError: full"),
            ),
            ("EngineStoppedError", "stopped", 0.0, EngineDeath::Stopped),
            (
                "RuntimeError",
                "RuntimeError: unreachable",
                0.0,
                fault("RuntimeError: unreachable"),
            ),
            // Bytes reported with another name are not an out-of-memory verdict.
            ("RangeError", "RangeError: x", 8.0, fault("RangeError: x")),
            ("", "worker error: boom", 0.0, fault("worker error: boom")),
        ];
        for (name, description, bytes, death) in table {
            assert_eq!(
                EngineDeath::classify(name, description.to_owned(), bytes),
                death,
                "{name} {bytes}"
            );
        }
    }
}
