//! Adapter lifecycles: loads, sources, builtins, engine starts, failure, notification.

use parsebox_transcript::{settle_failure, FailureCode, LineFailure};

use crate::diagnostics::{count_line, AnsweredBy};
use crate::engine::{Engine, Phase};
use crate::host::EngineModule;
use crate::journal::Delivery;
use crate::{
    check_contract_version, AdapterState, AdapterStatus, Answered, Command, EngineId, Host,
    HostError, LoadError, LoadResult, Placement, Started,
};

impl Host {
    /// Registers `source` as `adapter_type`'s parser now (superseding any load in flight and
    /// ending the type's current engine). After the contract-version check the type is
    /// `loading` until its new engine reports [`Host::handle_engine_started`].
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn register_source(
        &mut self,
        now_ms: f64,
        adapter_type: &str,
        source: &str,
        contract_version: Option<&str>,
    ) -> Result<AdapterStatus, HostError> {
        self.check_live()?;
        self.install_source(now_ms, adapter_type, source, contract_version);
        Ok(self.status(adapter_type))
    }

    /// Clears a failure (or a loaded parser) and loads `adapter_type` again: its engine ends,
    /// the type goes to `loading` and a new [`Command::Load`] is queued. A type whose built-in
    /// answers keeps it answering while the loader is asked for an external parser to lay
    /// over it (Paperclip's override of a built-in type).
    ///
    /// With no loader ([`HostOptions::load_sources`](crate::HostOptions::load_sources) off)
    /// nothing is asked for: a type registered from source starts again from that source (a
    /// fresh engine, as [`Host::register_source`] would), and any other type stays as it is.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn reload(&mut self, now_ms: f64, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        self.check_live()?;
        if !self.options.load_sources {
            let registered = self.adapters.get(adapter_type).and_then(|a| {
                let source = a.source.clone()?;
                Some((source, a.contract_version.clone()))
            });
            if let Some((source, contract_version)) = registered {
                self.install_source(now_ms, adapter_type, &source, contract_version.as_deref());
            }
            return Ok(self.status(adapter_type));
        }
        let builtin = self
            .adapters
            .get(adapter_type)
            .is_some_and(|a| a.state == AdapterState::Builtin);
        if builtin {
            // The built-in answers until an external parser arrives to lie over it.
            self.queue_load(adapter_type);
        } else {
            self.replace_parser(adapter_type);
            self.request_load(adapter_type);
        }
        Ok(self.status(adapter_type))
    }

    /// The executor's answer to a [`Command::Load`]. A result whose `token` is not the type's
    /// current load (superseded by `reload`, `register_source`, `register_builtin`, dispose) is
    /// ignored and returns `None`.
    pub fn handle_load_result(
        &mut self,
        now_ms: f64,
        adapter_type: &str,
        token: u64,
        result: LoadResult,
    ) -> Option<AdapterStatus> {
        if self
            .loads_out
            .get(&token)
            .is_some_and(|t| t == adapter_type)
        {
            self.loads_out.remove(&token);
        }
        let current = self.adapters.get(adapter_type).map(|a| a.load_token);
        if self.is_disposed() || token == 0 || current != Some(token) {
            return None;
        }
        match result {
            LoadResult::Source {
                source,
                contract_version,
            } => self.install_source(now_ms, adapter_type, &source, contract_version.as_deref()),
            LoadResult::NoParser => {
                if self.fall_back_to_builtin(adapter_type) {
                    return Some(self.status(adapter_type));
                }
                if let Some(a) = self.adapters.get_mut(adapter_type) {
                    a.load_token = 0;
                    a.state = AdapterState::Generic;
                    let reason = "this adapter type has no ui-parser; the generic parser is used";
                    a.reason = Some(reason.into());
                    a.error = Some(LoadError::new("no_parser", reason));
                }
                self.changed(adapter_type);
            }
            LoadResult::Failed(reason) => {
                let error = LoadError::new("loader_failed", reason.clone());
                let builtin_answers = self
                    .adapters
                    .get(adapter_type)
                    .is_some_and(|a| a.state == AdapterState::Builtin);
                if builtin_answers {
                    if let Some(a) = self.adapters.get_mut(adapter_type) {
                        a.reason = Some(reason);
                        a.error = Some(error);
                    }
                    self.fall_back_to_builtin(adapter_type);
                } else {
                    self.fail_type(adapter_type, &reason, None);
                    self.set_error(adapter_type, error);
                }
            }
        }
        Some(self.status(adapter_type))
    }

    /// An engine finished starting: `Ok(started)` (its entry point, `createStdoutParser` or
    /// `parseStdoutLine`, and the module's shape) makes a loading type `ready` and lets its ops flow; `Err` marks the
    /// type failed with the load error. Reports for ended engines are ignored.
    pub fn handle_engine_started(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        result: Result<Started, LoadError>,
    ) {
        self.engine_started(now_ms, engine, result);
        // Started (idle, or ended when it failed): room for an engine waiting to start.
        self.start_waiting(now_ms);
    }

    fn engine_started(
        &mut self,
        now_ms: f64,
        engine: EngineId,
        result: Result<Started, LoadError>,
    ) {
        let replay_budget = self.options.replay_deadline_ms;
        let Some(e) = self.engines.get_mut(&engine) else {
            return;
        };
        if e.phase != Phase::Starting {
            return;
        }
        let adapter_type = e.adapter_type.clone();
        if e.spread && result.is_err() {
            // The type's parser started in its engine: this one's failure is not the parser's.
            self.spread_failed(now_ms, engine, None);
            return;
        }
        match result {
            Ok(started) => {
                let load_ms = (now_ms - e.start_requested_ms).max(0.0);
                let timed = e.placement != Placement::Builtin;
                e.phase = Phase::Running;
                e.start_deadline = None;
                if e.replay_pending > 0 && e.killable() {
                    e.replay_deadline = Some(now_ms + replay_budget);
                }
                let Some(a) = self.adapters.get_mut(&adapter_type) else {
                    return;
                };
                let changed =
                    a.started.as_ref() != Some(&started) || a.state == AdapterState::Loading;
                a.started = Some(started);
                if timed {
                    a.diag.load_ms = Some(load_ms);
                }
                if a.state == AdapterState::Loading {
                    a.state = AdapterState::Ready;
                    a.reason = None;
                    a.error = None;
                }
                if changed {
                    self.changed(&adapter_type);
                }
            }
            Err(load_error) => self.fail_load(&adapter_type, load_error),
        }
    }

    /// The type's engine could not start with its parser: on a first load the type fails with
    /// `load_error` as its error; on a restart the reason says the engine could not restart.
    fn fail_load(&mut self, adapter_type: &str, load_error: LoadError) {
        let first = self
            .adapters
            .get(adapter_type)
            .is_some_and(|a| a.state == AdapterState::Loading);
        let reason = if first {
            load_error.to_string()
        } else {
            format!("could not restart the engine: {load_error}")
        };
        self.fail_type(adapter_type, &reason, None);
        if first {
            self.set_error(adapter_type, load_error);
        }
    }

    /// Replaces the failure data of a type that just failed with a more precise error.
    fn set_error(&mut self, adapter_type: &str, error: LoadError) {
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.error = Some(error);
        }
    }

    /// Contract check, then a fresh engine for `source`.
    fn install_source(
        &mut self,
        now_ms: f64,
        adapter_type: &str,
        source: &str,
        contract_version: Option<&str>,
    ) {
        self.replace_parser(adapter_type);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            // The external parser is the type's parser now, even if it fails at once.
            a.state = AdapterState::Loading;
        }
        if let Some(Err(reason)) = contract_version.map(check_contract_version) {
            self.fail_type(adapter_type, &reason, None);
            self.set_error(
                adapter_type,
                LoadError::new("unsupported_contract_version", reason),
            );
            return;
        }
        let placement = self.initial_placement();
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.state = AdapterState::Loading;
            a.reason = None;
            a.error = None;
            a.source = Some(source.to_owned());
            a.contract_version = contract_version.map(str::to_owned);
            // Sticky: a type once moved to a Worker stays there for its next parser.
            if a.placement != Placement::Worker {
                a.placement = placement;
            }
        }
        self.start_engine(now_ms, adapter_type);
        self.changed(adapter_type);
    }

    /// Makes sure the type exists, supersedes its load, ends its engine (its runs' journals
    /// belong to the old parser) and bumps its generation.
    pub(crate) fn replace_parser(&mut self, adapter_type: &str) {
        if !self.adapters.contains_key(adapter_type) {
            let placement = self.initial_placement();
            self.adapters.insert(
                adapter_type.to_owned(),
                crate::adapter::Adapter::new(placement),
            );
        }
        self.end_engine_of(adapter_type);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.load_token = 0;
            a.generation += 1;
            a.started = None;
            a.starts_without_progress = 0;
            a.spread_stopped = false;
            (a.paced_lines, a.paced_ms) = (0, 0.0);
            if a.placement == Placement::Builtin {
                a.placement = Placement::Inline;
            }
        }
    }

    /// Queues a load of `adapter_type`'s source; the type is `loading` meanwhile.
    pub(crate) fn request_load(&mut self, adapter_type: &str) {
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.state = AdapterState::Loading;
        }
        self.queue_load(adapter_type);
    }

    /// Queues a [`Command::Load`] under a new token (superseding any load in flight) and
    /// clears the type's last failure; its state is the caller's to set.
    pub(crate) fn queue_load(&mut self, adapter_type: &str) {
        let token = self.next_token;
        self.next_token += 1;
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.reason = None;
            a.error = None;
            a.load_token = token;
        }
        self.commands.push_back(Command::Load {
            adapter_type: adapter_type.to_owned(),
            token,
        });
        self.changed(adapter_type);
    }

    /// Issues `StartEngine` for the type's current parser and placement; returns its id. While
    /// the engine module is pending, a sandboxed engine's start is held (its engine waits in
    /// `Starting`); once the module failed, the type fails to start as any load error would.
    pub(crate) fn start_engine(&mut self, now_ms: f64, adapter_type: &str) -> Option<EngineId> {
        self.new_engine(now_ms, adapter_type, false)
    }

    /// [`Host::start_engine`], or (`spread`) another engine of the type beside its engine, for
    /// lines of its stateless runs (`spread.rs`): the type's engine stays what it is.
    pub(crate) fn new_engine(
        &mut self,
        now_ms: f64,
        adapter_type: &str,
        spread: bool,
    ) -> Option<EngineId> {
        let a = self.adapters.get_mut(adapter_type)?;
        let sandboxed = a.placement != Placement::Builtin;
        if let (true, EngineModule::Failed(error)) = (sandboxed, &self.engine_module) {
            self.fail_load(adapter_type, error.clone());
            return None;
        }
        let held = sandboxed && matches!(self.engine_module, EngineModule::Pending(_));
        let config = self.options.engine_config_at(a.placement);
        let id = EngineId(self.next_engine);
        self.next_engine += 1;
        let answer_batch_ms = if a.placement == Placement::Worker && !a.answers_each_line {
            self.options.answer_batch_ms()
        } else {
            0.0
        };
        let mut engine = Engine::new(adapter_type, a.placement);
        engine.answers_batched = answer_batch_ms > 0.0;
        engine.last_used = self.next_seq;
        engine.spread = spread;
        if spread {
            a.spread.push(id);
        } else {
            a.engine = Some(id);
            a.starts_without_progress += 1;
        }
        let command = Command::StartEngine {
            engine: id,
            adapter_type: adapter_type.to_owned(),
            placement: a.placement,
            source: a.source.clone(),
            contract_version: a.contract_version.clone(),
            config,
            answer_batch_ms,
            line_deadline_ms: self.options.hard_deadline_ms,
        };
        self.engines.insert(id, engine);
        match &mut self.engine_module {
            EngineModule::Pending(starts) if held => starts.push(command),
            _ => {
                if let Some(command) = self.issue_start(now_ms, command) {
                    self.waiting_for_room.push_back(command);
                }
            }
        }
        Some(id)
    }

    /// Issues a `StartEngine` now (its start deadline counts from `now_ms`), when there is
    /// room for its engine ([`Host::make_room_for_engine`]); gives the command back when there
    /// is none (`Some`), the engine marked as waiting.
    pub(crate) fn issue_start(&mut self, now_ms: f64, command: Command) -> Option<Command> {
        let Command::StartEngine { engine: id, .. } = &command else {
            return None;
        };
        let id = *id;
        if !self.make_room_for_engine(id) {
            if let Some(e) = self.engines.get_mut(&id) {
                e.awaiting_room = true;
            }
            return Some(command);
        }
        let start_budget = self.options.start_deadline_ms;
        if let Some(e) = self.engines.get_mut(&id) {
            e.awaiting_room = false;
            e.start_requested(now_ms, start_budget);
        }
        self.commands.push_back(command);
        None
    }

    /// Issues the starts that waited for room, in order, while there is room (an engine ended
    /// while it waited is skipped).
    pub(crate) fn start_waiting(&mut self, now_ms: f64) {
        while let Some(command) = self.waiting_for_room.pop_front() {
            let waiting = matches!(&command, Command::StartEngine { engine, .. } if self.engines.contains_key(engine));
            if !waiting {
                continue;
            }
            if let Some(command) = self.issue_start(now_ms, command) {
                self.waiting_for_room.push_front(command);
                return;
            }
        }
    }

    /// Whether `engine` is still one of the core's (not ended).
    pub fn has_engine(&self, engine: EngineId) -> bool {
        self.engines.contains_key(&engine)
    }

    /// The executor will compile the engine module later: until
    /// [`Host::handle_engine_module`] says it is ready, parsers that run sandboxed stay
    /// `loading` (their lines get the generic entry) and only built-in parsers start.
    pub fn engine_module_pending(&mut self) {
        if matches!(self.engine_module, EngineModule::Ready) {
            self.engine_module = EngineModule::Pending(Vec::new());
        }
    }

    /// The engine module is compiled (`Ok`) or could not be loaded (`Err`, why). Held engine
    /// starts are issued now (their start deadlines count from now); if it failed, every type
    /// waiting for it fails to start with an `engine_fault` load error saying why, as later
    /// registrations will, and falls back to its built-in if it has one.
    pub fn handle_engine_module(&mut self, now_ms: f64, result: Result<(), String>) {
        let EngineModule::Pending(held) = &mut self.engine_module else {
            return;
        };
        let held = std::mem::take(held);
        let failed = result.err().map(|why| {
            LoadError::new(
                "engine_fault",
                format!("the engine module could not be loaded: {why}"),
            )
        });
        self.engine_module = match &failed {
            None => EngineModule::Ready,
            Some(error) => EngineModule::Failed(error.clone()),
        };
        for command in held {
            let Command::StartEngine { engine: id, .. } = &command else {
                continue;
            };
            let id = *id;
            // An engine ended while it waited (its parser was replaced) is not started.
            if !self.engines.contains_key(&id) {
                continue;
            }
            if let Some(error) = &failed {
                self.handle_engine_started(now_ms, id, Err(error.clone()));
            } else if let Some(command) = self.issue_start(now_ms, command) {
                self.waiting_for_room.push_back(command);
            }
        }
    }

    /// Ends `engine`: its late answers become stale. Runs bound to it stay bound (a restart
    /// rebinds them).
    pub(crate) fn end_engine(&mut self, engine: EngineId) {
        if let Some(e) = self.engines.remove(&engine) {
            if e.spread {
                if let Some(a) = self.adapters.get_mut(&e.adapter_type) {
                    a.spread.retain(|&id| id != engine);
                }
            }
            self.retired.insert(engine, e.adapter_type);
            self.commands.push_back(Command::EndEngine { engine });
        }
    }

    /// Detaches the type's current engine, if it has one, and ends it (a parked one is
    /// forgotten: nothing starts it again), with the engines it spread lines to.
    fn end_current_engine(&mut self, adapter_type: &str) {
        let (engine, spread) = self
            .adapters
            .get_mut(adapter_type)
            .map(|a| {
                a.parked = None;
                // Its lines are settled or abandoned with the runs' journals.
                a.backlog.clear();
                (a.engine.take(), std::mem::take(&mut a.spread))
            })
            .unwrap_or_default();
        for engine in engine.into_iter().chain(spread) {
            self.end_engine(engine);
        }
    }

    /// Ends the type's engine because its parser is being replaced or dropped: every run of
    /// the type is unbound and its journal (lines of the old parser) abandoned.
    pub(crate) fn end_engine_of(&mut self, adapter_type: &str) {
        self.end_current_engine(adapter_type);
        for r in self
            .runs
            .values_mut()
            .filter(|r| r.adapter_type == adapter_type)
        {
            r.engine = None;
            r.journal.take_pending();
        }
    }

    /// Marks the type failed with `reason`: its engine ends and every line still waiting for
    /// it falls back (`code`, default `engine_fault`). Answers for waiting callers go to
    /// `sink` when given, else become `LateAnswer`s.
    pub(crate) fn fail_type(
        &mut self,
        adapter_type: &str,
        reason: &str,
        sink: Option<&mut Vec<Answered>>,
    ) {
        self.fail_type_with(adapter_type, reason, FailureCode::EngineFault, sink);
    }

    /// [`Host::fail_type`] with the fallback code for waiting lines.
    pub(crate) fn fail_type_with(
        &mut self,
        adapter_type: &str,
        reason: &str,
        code: FailureCode,
        mut sink: Option<&mut Vec<Answered>>,
    ) {
        let was_builtin = self
            .adapters
            .get(adapter_type)
            .is_some_and(|a| a.state == AdapterState::Builtin);
        self.end_current_engine(adapter_type);
        let mut settled = Vec::new();
        for (id, r) in self
            .runs
            .iter_mut()
            .filter(|(_, r)| r.adapter_type == adapter_type)
        {
            r.engine = None;
            for l in r.journal.take_pending() {
                let failure = LineFailure::new(code, reason);
                let s = settle_failure(&l.line, &l.ts, failure, r.failed_line_entry);
                settled.push((*id, l.seq, l.line, l.ts, l.pending, s));
            }
        }
        let Some(a) = self.adapters.get_mut(adapter_type) else {
            return;
        };
        a.state = AdapterState::Failed;
        a.reason = Some(reason.to_owned());
        a.error = Some(LoadError::new("engine_fault", reason));
        a.load_token = 0;
        a.generation += 1;
        a.started = None;
        let mut late = Vec::new();
        for (run, seq, line, ts, delivery, s) in settled {
            count_line(&mut a.diag, &line, &ts, &s, AnsweredBy::Parser);
            let answered = Answered {
                run,
                seq,
                line,
                ts,
                entries: s.entries,
                failure: s.fallback,
                dropped: s.dropped,
            };
            match (delivery, sink.as_deref_mut()) {
                (Some(Delivery::Now), Some(sink)) => sink.push(answered),
                _ => late.push(answered),
            }
        }
        for answered in late {
            self.push_late(answered);
        }
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.diag.last_error = Some(reason.to_owned());
        }
        self.changed(adapter_type);
        if !was_builtin {
            self.fall_back_to_builtin(adapter_type);
        }
    }

    /// Queues a `Notify` for the type unless one is already waiting.
    pub(crate) fn changed(&mut self, adapter_type: &str) {
        if self.notify_queued.insert(adapter_type.to_owned()) {
            self.commands.push_back(Command::Notify {
                adapter_type: adapter_type.to_owned(),
            });
        }
    }
}
