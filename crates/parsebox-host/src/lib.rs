//! The sans-IO host core of parsebox: every decision that keeps a page alive around untrusted
//! `ui-parser.js` parsers — where a parser runs (inline or in a Worker), what each run's replay
//! journal holds, in which order answers are accepted, which answers are stale, and how to
//! recover when an engine dies or misses its deadline — as a state machine that does no I/O
//! and runs no guest code.
//!
//! # Events in, commands out
//!
//! Modelled on quinn-proto's `Connection`. A thin executor (JS in the page) owns the real
//! engines (wasm instances inline or in Workers, trusted built-in parsers), timers and the
//! network, and does three things only:
//!
//! 1. reports events: the page's calls ([`Host::parse_line`], [`Host::create_run`],
//!    [`Host::register_source`], …) and what engines did ([`Host::handle_load_result`],
//!    [`Host::handle_engine_started`], [`Host::handle_began`], [`Host::handle_answers`],
//!    [`Host::handle_engine_died`], [`Host::handle_timeout`]); methods where time matters take
//!    `now_ms`, the executor's clock (e.g. `performance.now()`);
//! 2. after each event, drains [`Host::poll_command`] and performs every [`Command`];
//! 3. keeps one timer at [`Host::poll_timeout`] and calls [`Host::handle_timeout`] when it
//!    fires.
//!
//! # The one path a line takes
//!
//! [`Host::parse_line`] decides by the type's state. With no engine (generic, loading, failed)
//! the generic entry is the answer, at once ([`LineStep::Answered`]). Otherwise the line gets a
//! sequence number, enters its run's journal as unanswered and is queued for the engine:
//! an inline or builtin engine runs it now ([`LineStep::RunNow`]: the executor runs the ops
//! synchronously and feeds the answers to [`Host::handle_answers`], which returns them as
//! [`Answered`]); a Worker engine gets it in the next batched [`Command::Send`] and the page
//! shows the generic entry meanwhile ([`LineStep::Deferred`]), replaced in place when
//! [`Command::LateAnswer`] arrives. Every answer, whatever engine gave it, goes through
//! [`parsebox_transcript::settle_line`] with the configured entry limits and is counted by one
//! function. A line that never gets an answer (its engine died on it, or it ran past its
//! deadline) is settled with [`parsebox_transcript::settle_failure`] on the same path.
//!
//! # Remembered answers
//!
//! A Worker's answers are remembered by the line's whole history (`memo`): parsers are
//! deterministic, so a fresh run that reaches the same line by the same ops (a page that
//! builds its transcript again on every change, as Paperclip's `buildTranscript` does) is
//! answered at once ([`LineStep::Answered`]), and its engine catches up by replay before the
//! run's first line that was not seen before. A failed line ends remembering for its run.
//!
//! # Recovery
//!
//! When an engine dies or its head line misses the deadline, that line falls back and leaves
//! the journal, the engine is ended and a fresh one is started from the same source; each run's
//! journal is replayed into it (`replay: true` lines: answered, not delivered, not counted),
//! then the unanswered lines. Replay runs under one budget for the whole replay, not per line;
//! a replay that dies or misses that budget is given up (the runs' history is dropped and
//! counted as state lost) rather than retried. A line that takes its engine down fails alone
//! and counts as progress; a type whose engines start `max_respawns_without_progress` times
//! without a line answered or failed alone (each dead while starting or replaying) is marked
//! failed. Under
//! `host: auto` a type whose inline engine overruns (or dies) continues in a Worker, where the
//! same journals are replayed.
//!
//! # Room for engines
//!
//! At most [`HostOptions::max_live_engines`] sandboxed engines run at once (a browser gives a
//! page room for a limited number of wasm memories). Before one more starts, the least recently
//! used idle engine of another type is parked: ended, its runs left bound to it, and started
//! again by the type's next line with their journals replayed (`parking.rs`). A start with no
//! idle engine to make room waits until one is idle.
//!
//! # Lines over several Workers
//!
//! With [`HostOptions::max_workers`] above 1, a type whose Worker engine falls far behind (a
//! finished run opened at once) gets more engines of its own, each in a Worker. Lines of its
//! stateless runs (the module exports only `parseStdoutLine`, or Paperclip's stateless
//! `adapter.parseStdoutLine`) go to the engine that owes the fewest, each owing at most
//! [`SPREAD_OWED_MS`] of work at its pace; the rest wait in the type's backlog, handed out as
//! engines answer.
//! When the backlog holds more than [`SPREAD_AFTER_MS`] of work at the pace the type's engine
//! answers, one more engine starts (up to `max_workers`, one start at a time, only in free
//! room). Answers are addressed by `(run, seq)` as ever, so the page puts each in its place
//! whichever engine gave it. A spread engine ends once it owes nothing and nothing waits; when
//! it dies or misses a deadline, its lines go back to the type's engine, whose rules then
//! apply, and the type spreads no more until its parser changes (`spread.rs`).
//!
//! # What the executor must do
//!
//! - **Start**: on [`Command::StartEngine`] make the engine and report
//!   [`Host::handle_engine_started`] with the entry point or a [`LoadError`]. No ops arrive
//!   before that. A Worker engine that does not report within `start_deadline_ms` is ended.
//! - **Run ops in order** ([`Command::Send`], [`LineStep::RunNow`]) and answer every
//!   [`EngineOp::Line`] in that order with its `seq`, replay lines included. Reset a stateful
//!   run after a line whose outcome [`parsebox_transcript::outcome_resets_parser`] — the core
//!   journals a reset in the same place.
//! - **Report `began`** ([`Host::handle_began`]) when the engine starts a line with
//!   `replay: false` after being idle: before the first such line of each batch it is sent,
//!   and before any op queued ahead of that line (a `reset()` that hangs then counts against
//!   that line). This arms the line's deadline (`hard_deadline_ms`). Later lines of the batch
//!   need no report: each answer arms the next line's deadline when it arrives (the engine
//!   goes straight on), so a line never pays for time it spent queued behind others and a
//!   Worker need not report each line it begins. Only Worker engines get deadlines: inline
//!   and builtin engines cannot be stopped from outside, and their own in-engine budget (and
//!   the clock, [`Host::handle_inline_answers`]) bounds them.
//! - **Answer in batches, or line by line**: a Worker engine may hold its answers for up to
//!   `answer_batch_ms` ([`Command::StartEngine`]) and report them together; it reports what it
//!   holds before realm work of its own ([`engine_work_follows`], a `NewRun`) and before its
//!   death. Ended at a deadline while it may have held answers for more than one owed line,
//!   it cannot say which line it was stuck on: no line is failed (`unattributed_kills`), and
//!   the type's later engines get `answer_batch_ms` 0 and run the owed lines again.
//! - **Report deaths** ([`Host::handle_engine_died`]): a trap, out of memory, a Worker
//!   `error` event. Inline, a trap during [`LineStep::RunNow`] is reported instead of the
//!   answers (answers obtained before it first, via [`Host::handle_answers`]); the returned
//!   [`Answered`] holds the fallback for the waiting line.
//! - **Synchronous answers** come back from [`Host::handle_answers`] /
//!   [`Host::handle_engine_died`] as [`Answered`] with the `seq` of the `RunNow`; if none
//!   carries it (the engine was replaced meanwhile), show the generic entry.
//! - **Late answers** are addressed by `(run, seq)`: the `seq` of the [`LineStep::Deferred`]
//!   the page got for that line. Lines still waiting when a type's parser is replaced
//!   (`register_source`, `reload`, `register_builtin`, `dispose_type`) are abandoned without
//!   a `LateAnswer`: the type's [`Command::Notify`] tells viewers to rebuild.
//! - **End** engines on [`Command::EndEngine`] (terminate the Worker); anything it still sends
//!   is ignored by id.
//! - **The engine module**: an executor that makes the host before it can make sandboxed
//!   engines (the page compiles that module in the background) calls
//!   [`Host::engine_module_pending`] first and [`Host::handle_engine_module`] when the module is
//!   ready or could not be loaded. Meanwhile sandboxed parsers stay `loading` and their
//!   `StartEngine`s are held (no start deadline runs); built-in parsers start as usual.

// The unit tests count the allocator's bytes as the core module does: the memo measures
// itself in real bytes where a counting allocator is installed.
#[cfg(test)]
#[global_allocator]
static ALLOC: parsebox_meter::Counting<std::alloc::System> =
    parsebox_meter::Counting::new(std::alloc::System);

mod adapter;
mod answers;
mod command;
mod diagnostics;
mod dynamic;
mod engine;
mod engine_answer;
mod host;
mod journal;
mod layers;
mod lifecycle;
mod loaded;
mod memo;
mod options;
mod parking;
mod recovery;
mod spread;
mod transcripts;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use adapter::{check_contract_version, AdapterState, AdapterStatus, LineHost};
pub use command::{Answered, Command, LineStep, LoadResult, Placement};
pub use diagnostics::{
    count_line, AnsweredBy, Diagnostics, FallbackLine, HostCounters, FALLBACK_LINES_KEPT,
    FALLBACK_LINE_CHARS,
};
pub use dynamic::DynamicLoad;
pub use host::{Host, REBUILD_AHEAD_LINES};
pub use loaded::{Field, Loaded};
pub use options::{
    HostOptions, HostPlacement, OptionsError, ANSWER_BATCH_MS, DEFAULT_LIVE_ENGINES,
    DEFAULT_MAX_WORKERS_CAP, DEFAULT_MEMORY_BYTES, DEFAULT_TRANSCRIPT_BYTES,
    DEFAULT_TRANSCRIPT_BYTES_TOTAL, MAX_DROPPED_PREVIEW_CHARS, MAX_JOURNAL_BYTES, MAX_LINE_BYTES,
    MAX_LIVE_ENGINES, MAX_MEMORY_BYTES, MAX_RESPAWNS, MAX_SOURCE_BYTES, MAX_TRANSCRIPT_BYTES_TOTAL,
    MAX_WORKERS, MIN_MEMORY_BYTES,
};
// What the core and its engines exchange (`parsebox-protocol`), re-exported: the core's API
// speaks it, and an executor needs nothing else to drive an engine.
pub use parsebox_protocol::{
    engine_work_follows, wire, EngineAnswer, EngineConfig, EngineOp, EngineReports, EngineRuns,
    InstanceFactory, LineOp, LineStart, LoadError, ModuleShape, OutcomeOf, ParserInstance, RunId,
    Seq, Started, DEFAULT_CLOCK_BACKSTOP_MS,
};
pub use parsebox_transcript::validate::{
    MAX_COUNT, MAX_DEPTH, MAX_ENTRIES_PER_LINE, MAX_STRING_BYTES,
};
pub use parsebox_transcript::{shown_number, MAX_DURATION_MS};
pub use recovery::{REPLAY_FLOOR, REPLAY_PER_LINE};
pub use spread::{
    SPREAD_AFTER_MS, SPREAD_OWED_LINES_FIRST, SPREAD_OWED_LINES_MAX, SPREAD_OWED_LINES_MIN,
    SPREAD_OWED_MS,
};

/// Identifies one engine (one wasm instance, Worker or builtin). Never reused: answers from an
/// ended engine are recognised as stale by their id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EngineId(pub u64);

/// Misuse of the host by the page (guest failures are data, never errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    /// The host was disposed.
    Disposed,
    /// A run that does not exist (never created, dropped, or its type disposed).
    UnknownRun(RunId),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Disposed => f.write_str("parser host used after dispose()"),
            Self::UnknownRun(run) => write!(
                f,
                "run {} does not exist (it was dropped, its type disposed, or it was never created)",
                run.0
            ),
        }
    }
}

impl std::error::Error for HostError {}
