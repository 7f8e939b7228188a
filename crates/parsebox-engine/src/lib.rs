//! One adapter's engine: the half of the host design that runs guest code.
//!
//! The host core (`parsebox_host::Host`) decides and runs no guest code; it sends each engine
//! batches of [`EngineOp`]s. An [`Engine`] holds one adapter's loaded parser
//! ([`ParserModule`]) and its runs, performs those ops in order and answers every line with its
//! raw outcome, the value as JSON text ([`ReturnJson`]; the host decodes it into a
//! [`LineOutcome`](parsebox_transcript::LineOutcome) and settles it with the one line rule). After a line whose outcome
//! calls for it ([`outcome_resets_parser`](parsebox_transcript::outcome_resets_parser)) the run is reset before its next line, exactly where
//! the host journals the reset for replay.
//!
//! This is what each engine instance runs: the engine module (`parsebox-engine-wasm`, one wasm
//! instance per adapter, inline or in a Worker) wraps it in a byte ABI; natively it lets the
//! host core be tested end to end against real sandboxed parsers (`tests/host_end_to_end.rs`).

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

use parsebox_protocol::{
    EngineConfig, EngineOp, EngineReports, EngineRuns, InstanceFactory, LineStart, LoadError,
    ModuleShape, ParserInstance, Seq, Started,
};
use parsebox_sandbox::{BlankRealm, ParserModule, ParserRun, SandboxOptions};
use parsebox_transcript::{EntryLimits, FailureCode, LineFailure, ReturnJson};

/// What a loaded module reports as started: the export it drives and [`module_shape`].
pub fn started(module: &ParserModule) -> Started {
    Started {
        entry_point: module.entry_point().as_str().to_owned(),
        module: Some(module_shape(module)),
    }
}

/// A loaded module's format and exports: the one conversion for every host (the core's
/// `status().module` and the command's `module` check).
pub fn module_shape(module: &ParserModule) -> ModuleShape {
    let exports = module.exports();
    ModuleShape {
        format: exports.format.as_str().to_owned(),
        exports: exports
            .contract
            .iter()
            .map(|e| e.as_str().to_owned())
            .collect(),
        other_exports: exports.other.clone(),
    }
}

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
        clock_backstop_ms: config.clock_backstop_ms,
        init_budget_ms: config.init_budget_ms,
        max_source_bytes: config.max_source_bytes,
        max_line_bytes: config.max_line_bytes,
        screen_regexes: config.screen_regexes,
        entry_limits: EntryLimits {
            max_string_bytes: config.max_string_bytes,
            ..EntryLimits::default()
        },
        ..SandboxOptions::default()
    };
    options
        .validate()
        .map_err(|m| LoadError::new("bad_options", m))?;
    Ok(options)
}

/// One adapter's loaded parser and its runs.
pub struct Engine {
    runs: EngineRuns<Loaded>,
}

/// The loaded module as the maker of each run's instance.
struct Loaded(ParserModule);

impl InstanceFactory for Loaded {
    type Instance = Instance;
    fn new_instance(&mut self, stateless: bool) -> Result<Instance, LineFailure> {
        let run = if stateless {
            self.0.new_stateless_run()
        } else {
            self.0.new_run()
        };
        run.map(Instance).map_err(|e| {
            LineFailure::new(
                FailureCode::RealmUnavailable,
                format!("could not start the run: {e}"),
            )
        })
    }
    fn now_ms(&self) -> f64 {
        self.0.now_ms()
    }
}

/// One run's sandboxed parser instance.
struct Instance(ParserRun);

impl ParserInstance for Instance {
    type Value = ReturnJson;
    fn parse(&mut self, line: &str, ts: &str) -> Result<ReturnJson, LineFailure> {
        self.0.parse_line_json(line, ts)
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        self.0.reset()
    }
    fn needs_recovery(&self) -> bool {
        self.0.needs_recovery()
    }
    fn recover(&mut self) {
        // A realm that cannot be rebuilt fails the line itself, which tries again.
        let _ = self.0.recover();
    }
    fn state_lost(&self) -> u64 {
        self.0.diagnostics().state_lost
    }
}

impl Engine {
    /// Loads `source` (static checks, trial evaluation). Returns the engine and what it
    /// started ([`started`]: the export it drives and the module's shape), what the core's
    /// `Host::handle_engine_started` takes.
    ///
    /// # Errors
    /// The sandbox's load error as the host core's data.
    pub fn start(source: &str, options: SandboxOptions) -> Result<(Engine, Started), LoadError> {
        Engine::start_with(source, options, &mut None)
    }

    /// [`start`](Self::start) with a realm made ahead of time: the load uses `blank` when it
    /// suits the options ([`ParserModule::load_with`] says when it is taken).
    ///
    /// # Errors
    /// As [`start`](Self::start).
    pub fn start_with(
        source: &str,
        options: SandboxOptions,
        blank: &mut Option<BlankRealm>,
    ) -> Result<(Engine, Started), LoadError> {
        let module = ParserModule::load_with(source, options, blank).map_err(load_error)?;
        let started = started(&module);
        let engine = Engine {
            runs: EngineRuns::new(Loaded(module)),
        };
        Ok((engine, started))
    }

    /// Performs `ops` in order and returns the outcome of every line, in order, each value as
    /// JSON text. `began` is called as each live line starts, saying whether the host needs it
    /// to arm the line's deadline ([`EngineRuns::run_ops`](parsebox_protocol::EngineRuns::run_ops)).
    pub fn run_ops(
        &mut self,
        ops: Vec<EngineOp>,
        began: impl FnMut(LineStart),
    ) -> Vec<(Seq, Result<ReturnJson, LineFailure>)> {
        self.runs.run_ops(ops, began)
    }

    /// A batch of ops arrived from the host: its first live line reports `began`
    /// ([`EngineRuns::batch_arrived`](parsebox_protocol::EngineRuns::batch_arrived)).
    pub fn batch_arrived(&mut self) {
        self.runs.batch_arrived();
    }

    /// What the engine reports beside the answers of some lines since the last call, in line
    /// order (see [`EngineRuns::take_reports`](parsebox_protocol::EngineRuns::take_reports)).
    pub fn take_reports(&mut self) -> Vec<(Seq, EngineReports)> {
        self.runs.take_reports()
    }
}
