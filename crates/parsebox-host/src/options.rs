//! The host's options, with units in their names, and the one check that rejects values which
//! would otherwise surface later as a panic or a page that never recovers.

use std::fmt;

use parsebox_transcript::{check_duration_ms, shown_number, EntryLimits};
use serde::{Deserialize, Serialize};

use crate::{EngineConfig, Placement, DEFAULT_CLOCK_BACKSTOP_MS};

/// Where sandboxed parsers run (the `host` option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostPlacement {
    /// Every sandboxed parser runs in an engine on the page thread and answers synchronously.
    Inline,
    /// Every sandboxed parser runs in a Worker engine; lines get the generic entry at once and
    /// their real answer later.
    Worker,
    /// Inline until a parser's first overrun or engine death, then that type moves to a Worker.
    #[default]
    Auto,
}

impl HostPlacement {
    /// Where parsers run given what the caller asked for (`None`: nothing) and whether this
    /// environment has Web Workers. Where it has, engines default to Workers, so no parser can
    /// block the page (boa cannot be interrupted inside one native call, a getter or a Proxy
    /// trap, and the clock only notices after the call returns); where it has not (Node, SSR,
    /// the CLI) they run inline. `"auto"` is that choice said out loud: a page asking for it
    /// gets Workers, never an engine on its own thread that a hostile line could freeze.
    ///
    /// # Errors
    /// `"worker"` asked for where there are no Workers.
    pub fn choose(requested: Option<Self>, workers_available: bool) -> Result<Self, OptionsError> {
        match requested {
            None | Some(Self::Auto) if workers_available => Ok(Self::Worker),
            None | Some(Self::Auto) => Ok(Self::Inline),
            Some(Self::Worker) if !workers_available => Err(OptionsError {
                option: "host",
                message: "is \"worker\", which needs Web Workers, and this environment has none; use \"inline\" or \"auto\"".to_owned(),
            }),
            Some(h) => Ok(h),
        }
    }
}

/// Longest a Worker engine holds its answers before posting them, in milliseconds: one message
/// per few milliseconds of parsing instead of one per line (the page's thread handles each
/// message), and well under a frame, so a line stays generic no longer than it did.
pub const ANSWER_BATCH_MS: f64 = 4.0;

/// Options of a [`Host`](crate::Host). Durations are milliseconds, sizes are bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct HostOptions {
    /// The in-engine budget of one line, in reference milliseconds: work the engine counts
    /// itself, so the same line gets the same outcome on every machine (the engine stops the
    /// parser itself). Passed on to engines by the executor; the core only checks it against
    /// `hard_deadline_ms`.
    pub line_budget_ms: f64,
    /// The wall-clock backstop of one line, for what the engine cannot count (one long native
    /// step): an inline engine stops the line at its next count past it, and the core ends a
    /// Worker engine that spent this long on one line, from its `began` report (or the answer
    /// before it). Either way the line runs once more, alone, on a fresh start before it fails:
    /// a stalled machine or browser is not the parser's fault. At least `line_budget_ms`. The
    /// engine's own realm work before a line is not counted
    /// ([`engine_work_follows`](crate::engine_work_follows)): `start_deadline_ms` bounds it,
    /// as it bounds the same work in a start.
    pub hard_deadline_ms: f64,
    /// Most time one call of the page (a `push`, a `rebuild`, a `parseLine`) may spend in one
    /// type's inline engine, by the host's clock, summed over its lines: a chunk of lines each
    /// just under the line budget is caught here. Past it `callOverruns` is counted and, under
    /// `host: auto`, the type moves to a Worker, which answers the call's remaining lines.
    pub call_budget_ms: f64,
    /// Longest slice of a transcript rebuild on the page's thread: past it the rest goes on
    /// in later frames. `None`: a rebuild runs whole (where there are no frames to wait for).
    pub rebuild_slice_ms: Option<f64>,
    /// The in-engine budget of module initialisation (passed on by the executor).
    pub init_budget_ms: f64,
    /// How long a Worker engine may take from `StartEngine` to its `started` report.
    pub start_deadline_ms: f64,
    /// How long a respawned Worker engine may spend replaying journals, as a whole. Replayed
    /// lines run under no per-line deadline; missing this budget gives up the replay.
    pub replay_deadline_ms: f64,
    /// Most bytes (line + ts) one run's journal keeps; over it the run's answered history is
    /// dropped and `stateLost` counted.
    pub max_journal_bytes: usize,
    /// Engine starts in a row without a single line answered or failed alone (a line that
    /// takes its engine down is decided, so it is progress) after which the type is marked
    /// failed instead of being started again.
    pub max_respawns_without_progress: u32,
    /// Bounds applied to every entry a parser returns (the configured ones, never defaults).
    pub entry_limits: EntryLimits,
    /// Where sandboxed parsers run.
    pub host: HostPlacement,
    /// Ask for a type's source ([`Command::Load`](crate::Command::Load)) on its first use.
    pub load_sources: bool,
    /// Largest parser source an engine accepts (passed on to engines).
    pub max_source_bytes: usize,
    /// Longest line an engine hands to its parser; longer lines fail alone (passed on).
    pub max_line_bytes: usize,
    /// Most linear memory one engine instance may grow to: past it the instance traps, and only
    /// that adapter fails.
    pub max_memory_bytes: u64,
    /// Most bytes all the registry's transcripts may hold together, as their budgets count
    /// them ([`Host::transcript_room`](crate::Host::transcript_room)): the shared core's
    /// memory is bounded whatever parsers return and however many runs are open.
    pub max_transcript_bytes: usize,
    /// Most sandboxed engines (inline or in Workers) running at once. Starting one more first
    /// ends the least recently used idle engine of another type (counted as `parked`); that
    /// type's next line starts it again and replays its runs' history. A browser gives a page
    /// room for about 120 wasm memories (Chromium), and each engine is one.
    pub max_live_engines: usize,
    /// Most Worker engines one adapter type's lines may be spread over (`maxWorkers`), so a
    /// finished run opened at once is parsed on several cores: lines of its stateless runs
    /// that find its engines owing [`SPREAD_OWED_MS`](crate::SPREAD_OWED_MS) of work wait,
    /// and while they hold more than [`SPREAD_AFTER_MS`](crate::SPREAD_AFTER_MS) of it another
    /// engine of the type starts, in a Worker of its own; a spread engine ends once nothing
    /// waits. 1: one engine per type (the registry's default follows the
    /// machine's cores, [`HostOptions::default_max_workers`]).
    pub max_workers: usize,
    /// Characters of each entry validation drops to keep as a preview of what the parser
    /// returned (the entry's JSON text, cut), for a report such as `parsebox check`; 0 (the
    /// default) keeps none. With previews, every returned entry is written as JSON before it
    /// is validated, a cost a page that only renders does not pay.
    pub dropped_preview_chars: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        Self {
            line_budget_ms: 50.0,
            hard_deadline_ms: DEFAULT_CLOCK_BACKSTOP_MS,
            call_budget_ms: 100.0,
            rebuild_slice_ms: None,
            init_budget_ms: 200.0,
            start_deadline_ms: 10_000.0,
            replay_deadline_ms: 30_000.0,
            max_journal_bytes: 64 << 20,
            max_respawns_without_progress: 3,
            entry_limits: EntryLimits::default(),
            host: HostPlacement::Auto,
            load_sources: true,
            max_source_bytes: 50 * 1024,
            max_line_bytes: 4 << 20,
            max_memory_bytes: DEFAULT_MEMORY_BYTES,
            max_transcript_bytes: DEFAULT_TRANSCRIPT_BYTES_TOTAL,
            max_live_engines: DEFAULT_LIVE_ENGINES,
            max_workers: 1,
            dropped_preview_chars: 0,
        }
    }
}

/// The largest journal any run may keep: 1 GiB (a wasm32 page has 4 GiB in all).
pub const MAX_JOURNAL_BYTES: usize = 1 << 30;
/// The most engine starts without progress an option accepts.
pub const MAX_RESPAWNS: u32 = 100;
/// The largest parser source an option accepts: 64 MiB.
pub const MAX_SOURCE_BYTES: usize = 64 << 20;
/// The longest line an option accepts: 1 GiB.
pub const MAX_LINE_BYTES: usize = 1 << 30;
/// Default of [`HostOptions::max_transcript_bytes`]: 512 MiB for all of a registry's
/// transcripts (the core keeps about 1.5 bytes of memory per byte counted,
/// `tests/bench/core-bytes.mjs`: about 770 MiB at most, under its 2 GiB).
pub const DEFAULT_TRANSCRIPT_BYTES_TOTAL: usize = 512 << 20;
/// Default of [`HostOptions::max_live_engines`]: 32 engines, far under what a browser gives a
/// page (Chromium ran out of room for wasm memories at about 120), and about 1 GiB of engine
/// memory at the compatibility corpus's 20,000-line peak (31 MiB).
pub const DEFAULT_LIVE_ENGINES: usize = 32;
/// The most [`HostOptions::max_live_engines`] accepted.
pub const MAX_LIVE_ENGINES: usize = 1000;
/// The most [`HostOptions::max_workers`] accepted: a type's lines over 64 Workers at most.
pub const MAX_WORKERS: usize = 64;
/// The most Workers one type's lines spread over by default, however many cores the machine
/// has: each holds an engine's memory.
pub const DEFAULT_MAX_WORKERS_CAP: usize = 4;
/// The largest [`HostOptions::dropped_preview_chars`] accepted: previews are for reading.
pub const MAX_DROPPED_PREVIEW_CHARS: usize = 10_000;
/// The largest [`HostOptions::max_transcript_bytes`] accepted: 1 GiB.
pub const MAX_TRANSCRIPT_BYTES_TOTAL: usize = 1 << 30;
/// Default budget of one transcript (`TranscriptBuilder`'s `maxTranscriptBytes`): 256 MiB.
pub const DEFAULT_TRANSCRIPT_BYTES: usize = 256 << 20;

/// Default memory maximum of one engine instance: 128 MiB, four times the largest peak of the
/// compatibility corpus's parsers over a 20,000-line run (31 MiB, `tests/bench/corpus-memory.mjs`).
pub const DEFAULT_MEMORY_BYTES: u64 = 128 << 20;
/// The least memory an engine instance may be given: 32 MiB (its code, stack and a realm).
pub const MIN_MEMORY_BYTES: u64 = 32 << 20;
/// The most memory a wasm32 instance can address: 4 GiB.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;

/// An option with a value the host cannot work with.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionsError {
    /// The option's camelCase name, as the JS options object spells it.
    pub option: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option \"{}\" {}", self.option, self.message)
    }
}

impl std::error::Error for OptionsError {}

fn duration(option: &'static str, v: f64) -> Result<(), OptionsError> {
    check_duration_ms(v).map_err(|message| OptionsError { option, message })
}

fn size(option: &'static str, v: usize, max: usize) -> Result<(), OptionsError> {
    if v > 0 && v <= max {
        Ok(())
    } else {
        Err(OptionsError {
            option,
            message: format!("must be above 0 and at most {max}, got {v}"),
        })
    }
}

impl HostOptions {
    /// Default of [`HostOptions::max_workers`] on a machine with `cores` logical cores
    /// (`navigator.hardwareConcurrency`; `None` where it is not known): one Worker per core,
    /// at most [`DEFAULT_MAX_WORKERS_CAP`]. While a finished run is parsed, the page's thread
    /// has little to do (it takes the answers), so every core may hold a Worker.
    pub fn default_max_workers(cores: Option<u32>) -> usize {
        cores.map_or(1, |n| (n as usize).clamp(1, DEFAULT_MAX_WORKERS_CAP))
    }

    /// Checks every option. [`Host::new`](crate::Host::new) calls it.
    ///
    /// # Errors
    /// The first option that is not finite, not positive, above its maximum (see the `MAX_*`
    /// constants), or a hard deadline shorter than the line budget.
    pub fn validate(&self) -> Result<(), OptionsError> {
        duration("lineBudgetMs", self.line_budget_ms)?;
        duration("hardDeadlineMs", self.hard_deadline_ms)?;
        duration("callBudgetMs", self.call_budget_ms)?;
        if let Some(v) = self.rebuild_slice_ms {
            duration("rebuildSliceMs", v)?;
        }
        duration("initBudgetMs", self.init_budget_ms)?;
        duration("startDeadlineMs", self.start_deadline_ms)?;
        duration("replayDeadlineMs", self.replay_deadline_ms)?;
        if self.hard_deadline_ms < self.line_budget_ms {
            return Err(OptionsError {
                option: "hardDeadlineMs",
                message: format!(
                    "must be at least lineBudgetMs ({}), got {}",
                    shown_number(self.line_budget_ms),
                    shown_number(self.hard_deadline_ms)
                ),
            });
        }
        size("maxJournalBytes", self.max_journal_bytes, MAX_JOURNAL_BYTES)?;
        if self.max_respawns_without_progress == 0
            || self.max_respawns_without_progress > MAX_RESPAWNS
        {
            return Err(OptionsError {
                option: "maxRespawnsWithoutProgress",
                message: format!(
                    "must be between 1 and {MAX_RESPAWNS}, got {}",
                    self.max_respawns_without_progress
                ),
            });
        }
        self.entry_limits.validate().map_err(|e| OptionsError {
            option: e.option,
            message: e.message,
        })?;
        size("maxSourceBytes", self.max_source_bytes, MAX_SOURCE_BYTES)?;
        size("maxLineBytes", self.max_line_bytes, MAX_LINE_BYTES)?;
        size(
            "maxTranscriptBytesTotal",
            self.max_transcript_bytes,
            MAX_TRANSCRIPT_BYTES_TOTAL,
        )?;
        size("maxLiveEngines", self.max_live_engines, MAX_LIVE_ENGINES)?;
        size("maxWorkers", self.max_workers, MAX_WORKERS)?;
        if self.dropped_preview_chars > MAX_DROPPED_PREVIEW_CHARS {
            return Err(OptionsError {
                option: "droppedPreviewChars",
                message: format!(
                    "must be at most {MAX_DROPPED_PREVIEW_CHARS}, got {}",
                    self.dropped_preview_chars
                ),
            });
        }
        if !(MIN_MEMORY_BYTES..=MAX_MEMORY_BYTES).contains(&self.max_memory_bytes) {
            return Err(OptionsError {
                option: "maxMemoryBytes",
                message: format!(
                    "must be between {MIN_MEMORY_BYTES} and {MAX_MEMORY_BYTES}, got {}",
                    self.max_memory_bytes
                ),
            });
        }
        Ok(())
    }

    /// The clock backstop a line budget gets when none is given: the default (1 s), or twice
    /// the budget when that is longer (at most the longest duration accepted). Generous on
    /// purpose: the budget decides by work, and the clock only catches what work cannot count.
    pub fn hard_deadline_for(line_budget_ms: f64) -> f64 {
        (2.0 * line_budget_ms).clamp(
            DEFAULT_CLOCK_BACKSTOP_MS,
            parsebox_transcript::MAX_DURATION_MS,
        )
    }

    /// How long a Worker engine may hold its answers to post them together
    /// ([`Command::StartEngine`](crate::Command::StartEngine)'s `answer_batch_ms`):
    /// [`ANSWER_BATCH_MS`], or a quarter of `hard_deadline_ms` when that is less, so an engine
    /// holding answers is never taken for one stuck on a line.
    pub fn answer_batch_ms(&self) -> f64 {
        ANSWER_BATCH_MS.min(self.hard_deadline_ms / 4.0)
    }

    /// The engine-side options every engine is started with.
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            line_budget_ms: self.line_budget_ms,
            clock_backstop_ms: self.hard_deadline_ms,
            init_budget_ms: self.init_budget_ms,
            max_source_bytes: self.max_source_bytes,
            max_line_bytes: self.max_line_bytes,
            max_memory_bytes: self.max_memory_bytes,
            screen_regexes: true,
            max_string_bytes: self.entry_limits.max_string_bytes,
        }
    }

    /// The config of an engine started at `placement`. One load rule in every host: no regex
    /// pattern is refused for its shape, inline or in a Worker (the `parsebox` command loads
    /// the same way); a line a regex hangs is stopped at the deadline, in the engine's own
    /// loops (the engine module calls the page every 16,384 loop turns, and the page stops a
    /// line whose count of work stopped moving), and falls back alone. In a Worker the core's
    /// deadline is the clock backstop (the engine's own is twice as long, so the two never
    /// race).
    pub fn engine_config_at(&self, placement: Placement) -> EngineConfig {
        let worker = placement == Placement::Worker;
        EngineConfig {
            screen_regexes: false,
            clock_backstop_ms: if worker {
                self.hard_deadline_ms * 2.0
            } else {
                self.hard_deadline_ms
            },
            ..self.engine_config()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::HostPlacement;

    #[test]
    fn engines_default_to_workers_where_workers_exist_and_inline_elsewhere() {
        for asked in [None, Some(HostPlacement::Auto)] {
            assert_eq!(
                HostPlacement::choose(asked, true),
                Ok(HostPlacement::Worker)
            );
            assert_eq!(
                HostPlacement::choose(asked, false),
                Ok(HostPlacement::Inline)
            );
        }
    }

    #[test]
    fn what_the_caller_asks_for_is_kept_where_it_can_work() {
        for h in [HostPlacement::Inline, HostPlacement::Worker] {
            assert_eq!(HostPlacement::choose(Some(h), true), Ok(h));
        }
        assert_eq!(
            HostPlacement::choose(Some(HostPlacement::Inline), false),
            Ok(HostPlacement::Inline)
        );
    }

    #[test]
    fn asking_for_workers_without_workers_is_an_options_error() {
        let e = HostPlacement::choose(Some(HostPlacement::Worker), false).unwrap_err();
        assert_eq!(e.option, "host");
        assert!(
            e.to_string()
                .contains("\"worker\", which needs Web Workers"),
            "{e}"
        );
    }
}
