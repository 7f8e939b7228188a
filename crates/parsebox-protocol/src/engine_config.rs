//! The engine-side options every engine is started with.

use serde::{Deserialize, Serialize};

/// What every engine the executor starts is configured with: the engine-side options, as one
/// JSON object (the core's `HostOptions::engine_config`). The executor passes it to each engine as is
/// and sizes the engine's memory by `max_memory_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineConfig {
    /// In-engine budget of one line, in reference milliseconds (work the engine counts).
    pub line_budget_ms: f64,
    /// Wall-clock backstop of one line in the engine, in milliseconds: past it the line is
    /// stopped at the engine's next count and run once more alone on a fresh realm. Absent:
    /// [`DEFAULT_CLOCK_BACKSTOP_MS`].
    #[serde(default = "default_clock_backstop")]
    pub clock_backstop_ms: f64,
    /// In-engine budget of module evaluation plus `createStdoutParser()`, in milliseconds.
    pub init_budget_ms: f64,
    /// Largest parser source accepted, in bytes.
    pub max_source_bytes: usize,
    /// Longest line handed to the parser, in bytes.
    pub max_line_bytes: usize,
    /// Most linear memory the engine instance may grow to, in bytes.
    pub max_memory_bytes: u64,
    /// Whether the engine refuses regex patterns of a catastrophic shape. An engine in a
    /// Worker has it off: a deadline ends a line its regex hangs, so such a pattern costs that
    /// line, not the whole parser (the core's `HostOptions::engine_config_at`). Absent: on.
    #[serde(default = "screen_by_default")]
    pub screen_regexes: bool,
    /// Longest text the engine keeps of what a parser throws (and of a failure's message), in
    /// UTF-8 bytes: the host's `maxStringBytes`, so the thrown text is cut where every other
    /// string a parser controls is, and no longer text crosses to the host. Absent:
    /// [`DEFAULT_MAX_STRING_BYTES`].
    #[serde(default = "default_max_string_bytes")]
    pub max_string_bytes: usize,
}

/// The engine's longest kept thrown text when a config does not say: 1 MiB, the host's
/// default `maxStringBytes`.
pub const DEFAULT_MAX_STRING_BYTES: usize = 1 << 20;

fn default_max_string_bytes() -> usize {
    DEFAULT_MAX_STRING_BYTES
}

fn screen_by_default() -> bool {
    true
}

/// The engine's wall-clock backstop of one line when a config does not say.
pub const DEFAULT_CLOCK_BACKSTOP_MS: f64 = 1000.0;

fn default_clock_backstop() -> f64 {
    DEFAULT_CLOCK_BACKSTOP_MS
}
