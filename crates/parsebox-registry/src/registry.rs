//! The registry itself: adapter lifecycles, runs, per-line fallback.

use std::collections::HashMap;
use std::rc::Rc;

use parsebox_engine::load_error;
use parsebox_host::{check_contract_version, count_line, AnsweredBy};
use parsebox_sandbox::{EntryPoint, ParserModule, SandboxOptions};
use parsebox_transcript::{
    generic_entry, outcome_resets_parser, settle_line, FailureCode, LineFailure, LineOutcome,
    SettledLine, TranscriptEntry,
};
use web_time::Instant;

use crate::run::{Engine, Recovery, Run, RunParser};
use crate::{
    AdapterState, AdapterStatus, BuiltinFactory, Diagnostics, LoadError, RegistryError, RunId,
};

/// Options of a [`Registry`].
#[derive(Clone, Debug)]
pub struct RegistryOptions {
    /// Limits and budgets for every sandboxed parser.
    pub sandbox: SandboxOptions,
    /// Request a type's parser source the first time the type is used. Off, unknown types stay
    /// generic until the host calls [`Registry::register_source`].
    pub load_sources: bool,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        Self {
            sandbox: SandboxOptions::default(),
            load_sources: true,
        }
    }
}

/// A request for an adapter type's parser source; answer it with [`Registry::complete_load`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadRequest {
    /// The adapter type whose source is wanted.
    pub adapter_type: String,
    /// Pass back to [`Registry::complete_load`]; a superseded load (after `reload`) is ignored.
    pub token: u64,
}

pub use parsebox_host::LoadResult;

enum Parser {
    Generic,
    Module(Rc<ParserModule>),
    Builtin(BuiltinFactory),
}

struct Adapter {
    state: AdapterState,
    reason: Option<String>,
    /// Why the type failed, as data (set with `reason` by `fail`).
    error: Option<LoadError>,
    contract_version: Option<String>,
    parser: Parser,
    /// Bumped whenever `parser` changes, so runs know they are stale.
    generation: u64,
    /// The token of the load in flight; results carrying another token are stale.
    load_token: u64,
    diag: Diagnostics,
    default_run: Option<RunId>,
}

impl Adapter {
    fn new() -> Self {
        Self {
            state: AdapterState::Generic,
            reason: None,
            error: None,
            contract_version: None,
            parser: Parser::Generic,
            generation: 0,
            load_token: 0,
            diag: Diagnostics::default(),
            default_run: None,
        }
    }
}

/// The parser registry: see the crate documentation.
pub struct Registry {
    options: RegistryOptions,
    adapters: HashMap<String, Adapter>,
    runs: HashMap<RunId, Run>,
    next_run: u64,
    next_token: u64,
    load_requests: Vec<LoadRequest>,
    changes: Vec<String>,
    overruns: Vec<String>,
    events: u64,
    /// Fallbacks and dropped entries, all types: lets a host notice new ones cheaply.
    incidents: u64,
}

impl Registry {
    /// A registry whose only parser is the generic one.
    pub fn new(options: RegistryOptions) -> Self {
        Self {
            options,
            adapters: HashMap::new(),
            runs: HashMap::new(),
            next_run: 1,
            next_token: 1,
            load_requests: Vec::new(),
            changes: Vec::new(),
            overruns: Vec::new(),
            events: 0,
            incidents: 0,
        }
    }

    /// The options the registry was made with.
    pub fn options(&self) -> &RegistryOptions {
        &self.options
    }

    /// Parses one line of `adapter_type`'s output with that type's long-lived default run.
    /// Never fails: a line the parser cannot answer gets the generic entry. The first line of
    /// an unknown type starts loading its parser (see [`Registry::take_load_requests`]).
    pub fn parse_line(&mut self, adapter_type: &str, line: &str, ts: &str) -> Vec<TranscriptEntry> {
        let generation = self.touch(adapter_type);
        let current = self.adapters.get(adapter_type).and_then(|a| a.default_run);
        let run = match current.filter(|id| {
            self.runs
                .get(id)
                .is_some_and(|r| r.generation == generation)
        }) {
            Some(id) => id,
            None => {
                if let Some(old) = current {
                    self.runs.remove(&old);
                }
                let id = self.create_run(adapter_type);
                if let Some(a) = self.adapters.get_mut(adapter_type) {
                    a.default_run = Some(id);
                }
                id
            }
        };
        self.run_parse_line(run, line, ts)
            .unwrap_or_else(|_| vec![generic_entry(line, ts)])
    }

    /// Starts a run (one transcript) of `adapter_type`: a fresh parser instance with fresh
    /// module state. Starts loading the type's parser if it is unknown.
    pub fn create_run(&mut self, adapter_type: &str) -> RunId {
        let id = RunId(self.next_run);
        self.next_run += 1;
        let generation = self.touch(adapter_type);
        let engine = self.bind(adapter_type);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.diag.runs_created += 1;
        }
        self.runs.insert(
            id,
            Run {
                adapter_type: adapter_type.to_owned(),
                generation,
                engine,
                reset_owed: false,
            },
        );
        id
    }

    /// Parses one line in `run`. Guest failures are not errors: the line gets the generic
    /// entry and the diagnostics count why.
    ///
    /// # Errors
    /// [`RegistryError::UnknownRun`] when `run` was dropped or never existed.
    pub fn run_parse_line(
        &mut self,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<Vec<TranscriptEntry>, RegistryError> {
        let adapter_type = self
            .runs
            .get(&run)
            .ok_or(RegistryError::UnknownRun(run.0))?
            .adapter_type
            .clone();
        let settled = match self.run_parse_raw(run, line, ts)? {
            Some(outcome) => self.settle(&adapter_type, line, ts, outcome),
            None => self.settle_generic(&adapter_type, line, ts),
        };
        if let Some(f) = settled
            .fallback
            .as_ref()
            .filter(|f| f.code == FailureCode::EngineFault)
        {
            let reason = format!("engine fault: {}", f.message);
            let error = LoadError::new("engine_fault", f.message.clone());
            self.fail(&adapter_type, reason, error);
        }
        Ok(settled.entries)
    }

    /// Runs one line in `run` and returns what the parser did, before the line rule (`None`:
    /// the run has no parser and the generic parser answers). Nothing is counted: the host that
    /// settles the outcome (this registry's [`Registry::settle`], or the page's registry for a
    /// line run in a Worker) counts it, once. A stateful parser is reset before its next line
    /// when the outcome calls for it ([`outcome_resets_parser`]).
    ///
    /// # Errors
    /// [`RegistryError::UnknownRun`] when `run` was dropped or never existed.
    pub fn run_parse_raw(
        &mut self,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<Option<LineOutcome>, RegistryError> {
        let r = self
            .runs
            .get_mut(&run)
            .ok_or(RegistryError::UnknownRun(run.0))?;
        let owed = std::mem::take(&mut r.reset_owed);
        let before = r.engine.recovery();
        let outcome = match &mut r.engine {
            Engine::Generic => None,
            Engine::Parser(p) => {
                if owed && guarded(|| p.reset()).is_err() {
                    // Not even reset() works: answer generically until the run is rebuilt.
                    r.engine = Engine::Generic;
                    None
                } else {
                    Some(guarded(|| p.parse(line, ts)))
                }
            }
        };
        if let Some(outcome) = &outcome {
            // SPEC §4: a stateful instance is reset after a failed line — before the next
            // line, so a line that ran out of budget does not also pay, in the same call, for
            // the realm rebuild that `reset()` then needs.
            r.reset_owed = outcome_resets_parser(outcome);
        }
        let recovered = r.engine.recovery().since(before);
        let adapter_type = r.adapter_type.clone();
        if recovered != Recovery::default() {
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                a.diag.host.realm_rebuilds += recovered.rebuilds;
                a.diag.host.replayed_lines += recovered.replayed_lines;
                a.diag.host.state_lost += recovered.state_lost;
            }
        }
        Ok(outcome)
    }

    /// The one line rule with this registry's limits, counted in `adapter_type`'s diagnostics:
    /// what every answer for that type goes through, whether it was parsed here or in a Worker
    /// (a late answer). An overrun is reported to the host (see [`Registry::take_overruns`]).
    pub fn settle(
        &mut self,
        adapter_type: &str,
        line: &str,
        ts: &str,
        outcome: LineOutcome,
    ) -> SettledLine {
        let settled = settle_line(line, ts, outcome, &self.options.sandbox.entry_limits);
        self.record(adapter_type, &settled, true);
        settled
    }

    /// A line the generic parser answered (no parser, or the type failed), counted.
    fn settle_generic(&mut self, adapter_type: &str, line: &str, ts: &str) -> SettledLine {
        let settled = SettledLine {
            entries: vec![generic_entry(line, ts)],
            fallback: None,
            dropped: Vec::new(),
        };
        self.record(adapter_type, &settled, false);
        settled
    }

    /// Counts one settled line in `adapter_type`'s diagnostics (with the host core's one
    /// counting function) and tells the host about overruns.
    fn record(&mut self, adapter_type: &str, settled: &SettledLine, by_parser: bool) {
        let Some(a) = self.adapters.get_mut(adapter_type) else {
            return;
        };
        let by = if by_parser {
            AnsweredBy::Parser
        } else {
            AnsweredBy::Generic
        };
        count_line(&mut a.diag, settled, by);
        self.incidents += settled.dropped.len() as u64 + u64::from(settled.fallback.is_some());
        if settled
            .fallback
            .as_ref()
            .is_some_and(|f| f.code.is_overrun())
        {
            // What no in-thread layer bounds well belongs in a killable Worker: the host hears
            // of each overrun (see `take_overruns`).
            self.events += 1;
            if !self.overruns.iter().any(|t| t == adapter_type) {
                self.overruns.push(adapter_type.to_owned());
            }
        }
    }

    /// Resets `run` (the transcript is being rebuilt from scratch): the parser's `reset()` is
    /// called, and a run whose adapter got a new parser since it was made switches to it.
    ///
    /// # Errors
    /// [`RegistryError::UnknownRun`] when `run` was dropped or never existed.
    pub fn reset_run(&mut self, run: RunId) -> Result<(), RegistryError> {
        let r = self
            .runs
            .get_mut(&run)
            .ok_or(RegistryError::UnknownRun(run.0))?;
        // This reset is also the one a failed line owed, if any.
        r.reset_owed = false;
        let adapter_type = r.adapter_type.clone();
        let generation = self.adapters.get(&adapter_type).map_or(0, |a| a.generation);
        if r.generation != generation {
            let engine = self.bind(&adapter_type);
            if let Some(r) = self.runs.get_mut(&run) {
                r.engine = engine;
                r.generation = generation;
            }
            return Ok(());
        }
        let failed = match self.runs.get_mut(&run).map(|r| &mut r.engine) {
            Some(Engine::Parser(p)) => guarded(|| p.reset()).err(),
            _ => None,
        };
        if let Some(failure) = failed {
            if let Some(a) = self.adapters.get_mut(&adapter_type) {
                a.diag.last_error = Some(format!("reset() failed: {}", failure.message));
            }
            // A fresh instance is the only reliable reset left.
            let engine = self.bind(&adapter_type);
            if let Some(r) = self.runs.get_mut(&run) {
                r.engine = engine;
            }
        }
        Ok(())
    }

    /// Forgets `run` and its parser state. Dropping an unknown run does nothing.
    pub fn drop_run(&mut self, run: RunId) {
        self.runs.remove(&run);
    }

    /// The adapter type a run belongs to.
    pub fn run_adapter_type(&self, run: RunId) -> Option<&str> {
        self.runs.get(&run).map(|r| r.adapter_type.as_str())
    }

    /// Compiles `source` as `adapter_type`'s parser now: contract-version check (major must be
    /// 1; none declared is accepted), the sandbox's size, import and syntax checks, and a trial
    /// evaluation under the init budget. On success the type is `ready`; on failure `failed`
    /// with the reason. Either way a change is queued. A trusted built-in is replaced.
    pub fn register_source(
        &mut self,
        adapter_type: &str,
        source: &str,
        contract_version: Option<&str>,
    ) -> AdapterStatus {
        let a = self
            .adapters
            .entry(adapter_type.to_owned())
            .or_insert_with(Adapter::new);
        a.load_token = 0; // any load still in flight is superseded
        a.contract_version = contract_version.map(str::to_owned);
        if let Some(v) = contract_version {
            if let Err(reason) = check_contract_version(v) {
                let error = LoadError::new("unsupported_contract_version", reason.clone());
                self.fail(adapter_type, reason, error);
                return self.status(adapter_type);
            }
        }
        let started = Instant::now();
        match guarded_load(|| ParserModule::load(source, self.options.sandbox.clone())) {
            Ok(module) => {
                let ms = started.elapsed().as_secs_f64() * 1e3;
                if let Some(a) = self.adapters.get_mut(adapter_type) {
                    a.parser = Parser::Module(Rc::new(module));
                    a.state = AdapterState::Ready;
                    a.reason = None;
                    a.error = None;
                    a.generation += 1;
                    a.diag.load_ms = Some(ms);
                }
                self.changed(adapter_type);
            }
            Err(error) => {
                let reason = format!("{}: {}", error.code, error.message);
                self.fail(adapter_type, reason, error);
            }
        }
        self.status(adapter_type)
    }

    /// Registers a trusted first-party parser for `adapter_type`, called directly (no sandbox).
    pub fn register_builtin(
        &mut self,
        adapter_type: &str,
        factory: BuiltinFactory,
    ) -> AdapterStatus {
        let a = self
            .adapters
            .entry(adapter_type.to_owned())
            .or_insert_with(Adapter::new);
        a.parser = Parser::Builtin(factory);
        a.state = AdapterState::Builtin;
        a.reason = None;
        a.error = None;
        a.load_token = 0;
        a.generation += 1;
        self.changed(adapter_type);
        self.status(adapter_type)
    }

    /// The host's answer to a [`LoadRequest`]. A stale answer (its load was superseded by
    /// `reload`, `register_source` or `register_builtin`) is ignored and returns `None`.
    pub fn complete_load(
        &mut self,
        request: &LoadRequest,
        result: LoadResult,
    ) -> Option<AdapterStatus> {
        let current = self
            .adapters
            .get(&request.adapter_type)
            .map(|a| a.load_token);
        if current != Some(request.token) || request.token == 0 {
            return None;
        }
        Some(match result {
            LoadResult::Source {
                source,
                contract_version,
            } => self.register_source(&request.adapter_type, &source, contract_version.as_deref()),
            LoadResult::NoParser => {
                if let Some(a) = self.adapters.get_mut(&request.adapter_type) {
                    a.load_token = 0;
                    a.state = AdapterState::Generic;
                    a.reason = Some(
                        "this adapter type has no ui-parser; the generic parser is used".into(),
                    );
                }
                self.changed(&request.adapter_type);
                self.status(&request.adapter_type)
            }
            LoadResult::Failed(reason) => {
                let error = LoadError::new("loader_failed", reason.clone());
                self.fail(&request.adapter_type, reason, error);
                self.status(&request.adapter_type)
            }
        })
    }

    /// Clears a failure (or a loaded parser) and loads `adapter_type` again: the type goes to
    /// `loading` and a new [`LoadRequest`] is queued. Built-ins stay as they are.
    pub fn reload(&mut self, adapter_type: &str) -> AdapterStatus {
        let a = self
            .adapters
            .entry(adapter_type.to_owned())
            .or_insert_with(Adapter::new);
        if a.state != AdapterState::Builtin {
            self.request_load(adapter_type);
        }
        self.status(adapter_type)
    }

    /// Load requests queued since the last call (at most one per type in flight).
    pub fn take_load_requests(&mut self) -> Vec<LoadRequest> {
        std::mem::take(&mut self.load_requests)
    }

    /// Adapter types whose parser ran over its budget (or memory cap) since the last call, each
    /// once: the host may move them to a Worker it can terminate.
    pub fn take_overruns(&mut self) -> Vec<String> {
        std::mem::take(&mut self.overruns)
    }

    /// A counter that moves whenever there is something to take (changes, load requests,
    /// overruns): one cheap comparison per line tells the host whether to look.
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Lines that fell back plus entries dropped, over all types: a counter that moves when the
    /// diagnostics got something new to show.
    pub fn incident_count(&self) -> u64 {
        self.incidents
    }

    /// Adapter types whose status changed since the last call, each once, in order.
    pub fn take_changes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.changes)
    }

    /// `adapter_type`'s status. Asking does not start a load.
    pub fn status(&self, adapter_type: &str) -> AdapterStatus {
        let Some(a) = self.adapters.get(adapter_type) else {
            return AdapterStatus {
                adapter_type: adapter_type.to_owned(),
                state: AdapterState::Generic,
                reason: None,
                error: None,
                entry_point: None,
                contract_version: None,
            };
        };
        AdapterStatus {
            adapter_type: adapter_type.to_owned(),
            state: a.state,
            reason: a.reason.clone(),
            error: a.error.clone(),
            entry_point: match &a.parser {
                Parser::Module(m) => Some(match m.entry_point() {
                    EntryPoint::CreateStdoutParser => "createStdoutParser",
                    EntryPoint::ParseStdoutLine => "parseStdoutLine",
                }),
                _ => None,
            },
            contract_version: a.contract_version.clone(),
        }
    }

    /// Every adapter type the registry has seen, sorted.
    pub fn adapter_types(&self) -> Vec<String> {
        let mut v: Vec<String> = self.adapters.keys().cloned().collect();
        v.sort();
        v
    }

    /// Counters for one adapter type, or summed over all types when `adapter_type` is `None`.
    pub fn diagnostics(&self, adapter_type: Option<&str>) -> Diagnostics {
        match adapter_type {
            Some(t) => self
                .adapters
                .get(t)
                .map(|a| a.diag.clone())
                .unwrap_or_default(),
            None => {
                let mut total = Diagnostics::default();
                for t in self.adapter_types() {
                    if let Some(a) = self.adapters.get(&t) {
                        total.add(&a.diag);
                    }
                }
                total
            }
        }
    }

    /// Marks `adapter_type` failed after its engine faulted (a panic or a wasm trap seen by the
    /// host): its runs answer with the generic parser until `reload`.
    pub fn mark_faulted(&mut self, adapter_type: &str, reason: &str) {
        self.adapters
            .entry(adapter_type.to_owned())
            .or_insert_with(Adapter::new);
        let error = LoadError::new("engine_fault", reason);
        self.fail(adapter_type, format!("engine fault: {reason}"), error);
    }

    /// Makes sure `adapter_type` has an entry (an unknown type starts loading) and returns its
    /// parser generation.
    fn touch(&mut self, adapter_type: &str) -> u64 {
        if !self.adapters.contains_key(adapter_type) {
            self.adapters
                .insert(adapter_type.to_owned(), Adapter::new());
            if self.options.load_sources {
                self.request_load(adapter_type);
            }
        }
        self.adapters.get(adapter_type).map_or(0, |a| a.generation)
    }

    fn request_load(&mut self, adapter_type: &str) {
        let token = self.next_token;
        self.next_token += 1;
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.state = AdapterState::Loading;
            a.reason = None;
            a.error = None;
            a.load_token = token;
        }
        self.events += 1;
        self.load_requests.push(LoadRequest {
            adapter_type: adapter_type.to_owned(),
            token,
        });
        self.changed(adapter_type);
    }

    /// A fresh engine for a run of `adapter_type` from its current parser.
    fn bind(&mut self, adapter_type: &str) -> Engine {
        let Some(a) = self.adapters.get(adapter_type) else {
            return Engine::Generic;
        };
        let made: Result<Box<dyn RunParser>, LoadError> = match &a.parser {
            Parser::Generic => return Engine::Generic,
            Parser::Builtin(factory) => Ok(factory()),
            Parser::Module(module) => {
                let module = Rc::clone(module);
                guarded_load(move || module.new_run())
                    .map(|run| Box::new(run) as Box<dyn RunParser>)
            }
        };
        match made {
            Ok(p) => Engine::Parser(p),
            Err(reason) => {
                let message = format!("could not start a run: {}: {}", reason.code, reason.message);
                let error = LoadError {
                    code: "run_start_failed".to_owned(),
                    ..reason
                };
                self.fail(
                    adapter_type,
                    message.clone(),
                    LoadError { message, ..error },
                );
                Engine::Generic
            }
        }
    }

    /// Marks `adapter_type` failed: `reason` is the sentence, `error` the same as data.
    fn fail(&mut self, adapter_type: &str, reason: String, error: LoadError) {
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.state = AdapterState::Failed;
            a.error = Some(error);
            a.diag.last_error = Some(reason.clone());
            a.reason = Some(reason);
            a.parser = Parser::Generic;
            a.load_token = 0;
            a.generation += 1;
        }
        // Runs of a failed type answer generically from now on.
        for r in self
            .runs
            .values_mut()
            .filter(|r| r.adapter_type == adapter_type)
        {
            r.engine = Engine::Generic;
        }
        self.changed(adapter_type);
    }

    fn changed(&mut self, adapter_type: &str) {
        self.events += 1;
        if !self.changes.iter().any(|t| t == adapter_type) {
            self.changes.push(adapter_type.to_owned());
        }
    }
}

/// Runs a sandbox call, turning a panic inside the engine into an `engine_fault` line failure
/// (natively; in wasm a panic is a trap and the binding's host re-instantiates instead).
fn guarded<T>(f: impl FnOnce() -> Result<T, LineFailure>) -> Result<T, LineFailure> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(payload) => Err(LineFailure::new(
                FailureCode::EngineFault,
                panic_message(&payload),
            )),
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        f()
    }
}

/// Like [`guarded`] for loads, with the error as data.
fn guarded_load<T>(
    f: impl FnOnce() -> Result<T, parsebox_sandbox::LoadError>,
) -> Result<T, LoadError> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(r) => r.map_err(load_error),
            Err(payload) => Err(LoadError::new("engine_fault", panic_message(&payload))),
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        f().map_err(load_error)
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the engine panicked".to_owned()
    }
}
