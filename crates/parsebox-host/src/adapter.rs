//! An adapter type's lifecycle (SPEC §4): `generic`, `loading`, `ready`, `failed`, `builtin`.

use std::collections::VecDeque;

use serde::Serialize;

use crate::memo::Memo;
use crate::{Diagnostics, EngineId, LineOp, LoadError, ModuleShape, Placement, RunId, Started};

/// Where an adapter type is in its lifecycle.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AdapterState {
    /// Lines are answered by the generic parser: nothing was requested yet, or the loader said
    /// this type has no parser.
    Generic,
    /// The source was requested, or its engine is starting; the generic parser answers meanwhile.
    Loading,
    /// A sandboxed parser answers lines.
    Ready,
    /// Loading failed, or the host gave up on the engine (see `reason`); the generic parser
    /// answers until `reload`.
    Failed,
    /// A trusted built-in parser answers lines.
    Builtin,
}

/// Where an adapter type's lines are answered ([`AdapterStatus::host`]).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineHost {
    /// In the page's thread: synchronously, by the generic parser, a built-in or an inline
    /// engine.
    Inline,
    /// In a Web Worker, which the host can end at a deadline; answers arrive late.
    Worker,
}

impl LineHost {
    /// Where lines are answered when the type's engine (if any) has `placement`.
    pub fn of(placement: Option<Placement>) -> Self {
        if placement == Some(Placement::Worker) {
            Self::Worker
        } else {
            Self::Inline
        }
    }
}

/// The status of one adapter type, as `status(type)` and `registerSource` return it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "RegistryStatus"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterStatus {
    /// The adapter type, e.g. `hermes_local`.
    pub adapter_type: String,
    /// Lifecycle state.
    pub state: AdapterState,
    /// Why the type is `failed` (or `generic` after the loader said it has no parser).
    pub reason: Option<String>,
    /// Why the type is `failed` (or `generic` because the loader has no parser for it: code
    /// `no_parser`), as data (`reason` says the same as a sentence), else null.
    pub error: Option<LoadError>,
    /// Which export answers lines when `ready`, as the engine reported it when it started.
    #[cfg_attr(
        feature = "ts",
        ts(type = "\"createStdoutParser\" | \"parseStdoutLine\" | null")
    )]
    pub entry_point: Option<String>,
    /// How the parser's module is written and what it exports, as its engine loaded it (null
    /// for a built-in parser, and before the engine started).
    pub module: Option<ModuleShape>,
    /// Declared contract version (`paperclip.adapterUiParser`), when known.
    pub contract_version: Option<String>,
    /// Where the type's engine runs, when it has one: `inline` (in the page's thread),
    /// `worker` (a Web Worker the host can end at a deadline) or `builtin`.
    pub placement: Option<Placement>,
    /// Where the type's lines are answered: in a Worker when its engine runs in one, in the
    /// page's thread otherwise (the generic parser, a built-in, an inline engine).
    pub host: LineHost,
    /// Why the type's engine runs in a Worker, when it does.
    pub host_reason: Option<String>,
    /// Bumped whenever the type's parser is replaced (new source, reload, builtin, failure).
    pub generation: u64,
    /// A built-in parser is registered for the type: it answers when `state` is `builtin`, and
    /// lies beneath an external parser otherwise (answering again when that one fails, finds no
    /// parser, or is unregistered).
    pub has_builtin: bool,
    /// An external parser (a registered or loaded source) answers, is loading, or failed or was
    /// missing (its failure kept in `error`): the layer `unregister` removes first.
    pub has_external: bool,
}

/// The core's record of one adapter type.
#[derive(Debug)]
pub(crate) struct Adapter {
    pub(crate) state: AdapterState,
    pub(crate) reason: Option<String>,
    pub(crate) error: Option<LoadError>,
    pub(crate) contract_version: Option<String>,
    /// What the type's engine reported when it last started (cleared when it fails).
    pub(crate) started: Option<Started>,
    /// The source the current engine was started from (restarts reuse it).
    pub(crate) source: Option<String>,
    /// Where the next engine starts (sticky after a move to a Worker).
    pub(crate) placement: Placement,
    /// Why the type was moved to a Worker, if it was.
    pub(crate) moved_because: Option<&'static str>,
    pub(crate) generation: u64,
    /// A built-in parser lies beneath whatever answers now ([`AdapterStatus::has_builtin`]).
    pub(crate) has_builtin: bool,
    /// The load in flight; results carrying another token are stale. 0: none.
    pub(crate) load_token: u64,
    pub(crate) engine: Option<EngineId>,
    /// More engines of the type's parser, each in a Worker, that answer lines of its stateless
    /// runs while `engine` is far behind ([`HostOptions::max_workers`](crate::HostOptions)).
    pub(crate) spread: Vec<EngineId>,
    /// Lines of its stateless runs waiting for one of its engines to owe less than
    /// [`SPREAD_OWED_MS`](crate::SPREAD_OWED_MS) of work (only with `max_workers` above 1).
    pub(crate) backlog: VecDeque<LineOp>,
    /// The pace of its engines, by the executor's clock: live lines they answered while busy,
    /// and the time those took ([`Adapter::ms_per_line`]). Reset when its parser changes.
    pub(crate) paced_lines: u64,
    pub(crate) paced_ms: f64,
    /// One of the `spread` engines died or missed a deadline: the type's lines stay on its one
    /// engine until its parser changes.
    pub(crate) spread_stopped: bool,
    /// The engine ended while idle to make room for another type's (`max_live_engines`): its
    /// runs are still bound to it, and the type's next line starts a fresh engine that replays
    /// their history ([`Host::unpark`](crate::Host)).
    pub(crate) parked: Option<EngineId>,
    /// The run `parseLine(type, …)` uses: the contract's choice (`createStdoutParser` wins).
    pub(crate) default_run: Option<RunId>,
    /// The run Paperclip's `adapter.parseStdoutLine` uses: the module's stateless function.
    pub(crate) stateless_run: Option<RunId>,
    /// Engine starts since a line was last answered by one of this type's engines.
    pub(crate) starts_without_progress: u32,
    /// The last engine ended out of memory and its successor replayed the runs' history: if
    /// it runs out again before a live line is answered, the history is what fills it, and the
    /// next engine starts without it.
    pub(crate) replayed_after_oom: bool,
    /// The type's Worker engines post each answer alone (no batches): set once a Worker was
    /// ended while it may have held answers, so which line it was stuck on was not known.
    pub(crate) answers_each_line: bool,
    /// Late answers by history, for the page's next `parse_line` of the same line reached the
    /// same way (a re-render's fresh run, or the default run).
    pub(crate) memo: Memo,
    pub(crate) diag: Diagnostics,
    /// History lines handed to fresh engines for replay after recoveries
    /// ([`crate::REPLAY_PER_LINE`]).
    pub(crate) replay_sent: u64,
    /// Time the type's inline engine spent in the page's current call
    /// ([`Host::begin_call`](crate::Host::begin_call)), and whether it passed the call budget.
    pub(crate) call_ms: f64,
    pub(crate) call_over: bool,
}

impl Adapter {
    pub(crate) fn new(placement: Placement) -> Self {
        Self {
            state: AdapterState::Generic,
            reason: None,
            error: None,
            contract_version: None,
            started: None,
            source: None,
            placement,
            moved_because: None,
            generation: 0,
            has_builtin: false,
            load_token: 0,
            engine: None,
            spread: Vec::new(),
            backlog: VecDeque::new(),
            paced_lines: 0,
            paced_ms: 0.0,
            spread_stopped: false,
            parked: None,
            default_run: None,
            stateless_run: None,
            starts_without_progress: 0,
            replayed_after_oom: false,
            answers_each_line: false,
            memo: Memo::default(),
            diag: Diagnostics::default(),
            replay_sent: 0,
            call_ms: 0.0,
            call_over: false,
        }
    }

    /// Its engines' time per line so far (ms), once they have answered enough lines over
    /// enough time to say: the page's thread hears a Worker's answers when it is free, so a
    /// busy page hears a batch at once, and a short sample can make any pace look instant.
    pub(crate) fn ms_per_line(&self) -> Option<f64> {
        const ENOUGH_LINES: u64 = 64;
        const ENOUGH_MS: f64 = 50.0;
        (self.paced_lines >= ENOUGH_LINES && self.paced_ms >= ENOUGH_MS)
            .then(|| self.paced_ms / self.paced_lines as f64)
    }

    /// Lines go to an engine (otherwise the generic parser answers).
    pub(crate) fn answers_with_engine(&self) -> bool {
        matches!(self.state, AdapterState::Ready | AdapterState::Builtin)
    }

    /// [`AdapterStatus::has_external`]: an external parser answers, is on its way, or failed or
    /// was missing (a built-in answering meanwhile keeps that failure in `error`).
    pub(crate) fn external_layer(&self) -> bool {
        self.load_token != 0
            || self.error.is_some()
            || matches!(
                self.state,
                AdapterState::Loading | AdapterState::Ready | AdapterState::Failed
            )
    }
}

/// The contract version check of SPEC §4: the major version must be 1 (a missing version is
/// accepted by the caller).
///
/// # Errors
/// A sentence naming the declared version when its major is not 1 or cannot be read.
pub fn check_contract_version(v: &str) -> Result<(), String> {
    let major = v
        .trim()
        .trim_start_matches(['^', '~', '=', 'v'])
        .split('.')
        .next()
        .unwrap_or("");
    match major.parse::<u64>() {
        Ok(1) => Ok(()),
        Ok(m) => Err(format!(
            "unsupported ui-parser contract version {v:?}: this host supports 1.x, the parser declares {m}.x"
        )),
        Err(_) => Err(format!(
            "unreadable ui-parser contract version {v:?}: expected 1.x"
        )),
    }
}
