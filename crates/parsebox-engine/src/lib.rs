//! One adapter's engine: the half of the host design that runs guest code.
//!
//! The host core ([`parsebox_host::Host`]) decides and runs no guest code; it sends each engine
//! batches of [`EngineOp`]s. An [`Engine`] holds one adapter's loaded parser
//! ([`ParserModule`]) and its runs, performs those ops in order and answers every line with its
//! raw [`LineOutcome`] (the host settles it with the one line rule). After a line whose outcome
//! calls for it ([`outcome_resets_parser`]) the run is reset before its next line, exactly where
//! the host journals the reset for replay.
//!
//! This is what each engine instance (inline, or inside a Worker) will run once the binding
//! drives the host core; natively it lets the host core be tested end to end against real
//! sandboxed parsers (`tests/host_end_to_end.rs`).

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

use std::collections::HashMap;

use parsebox_host::{EngineConfig, EngineOp, LoadError, RunId, Seq};
use parsebox_sandbox::{ParserModule, ParserRun, SandboxOptions};
use parsebox_transcript::{outcome_resets_parser, FailureCode, LineFailure, LineOutcome};

/// The sandbox's load error as the host core's data: the one conversion, for every host.
pub fn load_error(e: parsebox_sandbox::LoadError) -> LoadError {
    LoadError {
        code: e.code.to_string(),
        message: e.message,
        line: e.line,
        column: e.column,
    }
}

/// The sandbox options of an engine started with the host's [`EngineConfig`]: the one place
/// the engine-side options are laid onto the sandbox's defaults.
///
/// # Errors
/// A `LoadError` with code `bad_options` when the sandbox refuses a value (the host core
/// checked them already; this guards an engine started with a hand-made config).
pub fn sandbox_options(config: &EngineConfig) -> Result<SandboxOptions, LoadError> {
    let options = SandboxOptions {
        line_budget_ms: config.line_budget_ms,
        init_budget_ms: config.init_budget_ms,
        max_source_bytes: config.max_source_bytes,
        max_line_bytes: config.max_line_bytes,
        ..SandboxOptions::default()
    };
    options
        .validate()
        .map_err(|m| LoadError::new("bad_options", m))?;
    Ok(options)
}

/// One adapter's loaded parser and its runs.
pub struct Engine {
    module: ParserModule,
    runs: HashMap<RunId, Slot>,
}

/// A run and whether its parser owes a reset before the next line.
struct Slot {
    run: Result<ParserRun, LineFailure>,
    reset_owed: bool,
}

impl Engine {
    /// Loads `source` (static checks, trial evaluation). Returns the engine and the export it
    /// drives (`createStdoutParser` or `parseStdoutLine`), what
    /// [`Host::handle_engine_started`](parsebox_host::Host::handle_engine_started) takes.
    ///
    /// # Errors
    /// The sandbox's load error as the host core's data.
    pub fn start(source: &str, options: SandboxOptions) -> Result<(Engine, String), LoadError> {
        let module = ParserModule::load(source, options).map_err(load_error)?;
        let entry = module.entry_point().as_str().to_owned();
        let engine = Engine {
            module,
            runs: HashMap::new(),
        };
        Ok((engine, entry))
    }

    /// Performs `ops` in order and returns the outcome of every line, in order. `began(seq)`
    /// is called before each live (not replayed) line starts, so the host can arm its deadline.
    pub fn run_ops(
        &mut self,
        ops: Vec<EngineOp>,
        mut began: impl FnMut(Seq),
    ) -> Vec<(Seq, LineOutcome)> {
        let mut answers = Vec::new();
        for op in ops {
            match op {
                EngineOp::NewRun { run } => {
                    let made = self.module.new_run().map_err(|e| {
                        LineFailure::new(
                            FailureCode::RealmUnavailable,
                            format!("could not start the run: {e}"),
                        )
                    });
                    self.runs.insert(
                        run,
                        Slot {
                            run: made,
                            reset_owed: false,
                        },
                    );
                }
                EngineOp::Line {
                    seq,
                    run,
                    line,
                    ts,
                    replay,
                } => {
                    if !replay {
                        began(seq);
                    }
                    answers.push((seq, self.line(run, &line, &ts)));
                }
                EngineOp::Reset { run } => {
                    if let Some(Slot {
                        run: Ok(r),
                        reset_owed,
                    }) = self.runs.get_mut(&run)
                    {
                        *reset_owed = false;
                        // A reset that fails shows on the run's next line.
                        let _ = r.reset();
                    }
                }
                EngineOp::DropRun { run } => {
                    self.runs.remove(&run);
                }
            }
        }
        answers
    }

    fn line(&mut self, run: RunId, line: &str, ts: &str) -> LineOutcome {
        let Some(slot) = self.runs.get_mut(&run) else {
            return Err(LineFailure::new(
                FailureCode::RealmUnavailable,
                format!("the engine has no run {}", run.0),
            ));
        };
        let r = slot.run.as_mut().map_err(|e| e.clone())?;
        if std::mem::take(&mut slot.reset_owed) {
            let _ = r.reset();
        }
        let outcome = r.parse_line_raw(line, ts);
        slot.reset_owed = outcome_resets_parser(&outcome);
        outcome
    }
}
