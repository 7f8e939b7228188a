//! The sandbox's limits and budgets, and the checks that refuse values out of range.

use parsebox_transcript::EntryLimits;

/// Limits and budgets of the sandbox. The defaults suit real parsers on real runs.
#[derive(Clone, Debug)]
pub struct SandboxOptions {
    /// Largest accepted parser source, in bytes (SPEC §3: 50 KB).
    pub max_source_bytes: usize,
    /// Work budget for module evaluation plus `createStdoutParser()`, in reference
    /// milliseconds (the engine's own count of work: see [`WORK_PER_MS`]).
    pub init_budget_ms: f64,
    /// Work budget for one `parseLine` / `parseStdoutLine` / `reset` call including the
    /// conversion of its result, in reference milliseconds: counted by the engine, so a line
    /// gets the same outcome on every machine and under any load ([`WORK_PER_MS`]).
    pub line_budget_ms: f64,
    /// Wall-clock backstop of one call, in milliseconds: the longest the engine may go without
    /// counting any work. What the work count cannot see (one long native step, such as a
    /// regex or a huge `replace`) is stopped here, at the engine's next count; an engine that
    /// keeps counting work is never stopped by the clock, however busy the machine. A line stopped by the clock alone runs once more, alone, on a fresh realm
    /// (a stalled machine is not the parser's fault) and fails only if the clock stops it
    /// again.
    pub clock_backstop_ms: f64,
    /// Longest line handed to the parser, in UTF-8 bytes; longer lines fail with `line_too_long`.
    pub max_line_bytes: usize,
    /// Bounds applied when validating returned entries.
    pub entry_limits: EntryLimits,
    /// boa "cycles" between two deadline checks (smaller: faster stop, more overhead).
    pub budget_cycles: u32,
    /// boa's per-frame loop-iteration limit. It is what stops loops in code boa runs in nested,
    /// non-yielding calls (getters, Proxy traps, callbacks of the remaining native built-ins),
    /// which the work budget cannot interrupt. `0` (the default): derived from each call's
    /// work budget ([`loop_limit`](Self::loop_limit)), so a loop the budget allows is never
    /// stopped by it (a fixed 1,000,000 failed honest loops a larger `lineBudgetMs` allowed)
    /// and a nested loop runs at most one budget's worth of iterations.
    pub loop_iteration_limit: u64,
    /// boa's recursion limit: JavaScript frames plus nested host calls, counted together.
    /// JavaScript-to-JavaScript calls take no native stack in boa, but a nested host call
    /// (a getter, `toString`, `f.call(…)`, a Proxy trap: one frame and one host call per
    /// level) takes about 1.4 KiB of native stack natively and, compiled to wasm, ~300 bytes
    /// of the module's 8 MiB stack and ~600 bytes of the host engine's own stack. The default
    /// lets a call chain through the bounded built-ins (`arr.map(f)`: two frames a level) go
    /// 1,000 levels deep, as real code can where V8 goes thousands, while nested host calls
    /// stop at 1,100 levels: ~1.5 MiB natively in an unoptimised build, and in wasm under Node
    /// (the sandbox built for WASI, release) between 600 and 700 KiB of V8's stack, whose
    /// default is 984 KiB (`node --stack-size=600` trapped, 700 did not).
    pub recursion_limit: usize,
    /// Most elements a native array built-in (`includes`, `join`, `fill`, `sort`, …) may visit.
    pub max_builtin_elements: usize,
    /// Longest string `repeat` / `padStart` / `padEnd` may build, in UTF-16 units.
    pub max_builtin_string_len: usize,
    /// Longest regex pattern accepted (literal or `RegExp(...)`), in UTF-16 units.
    pub max_regex_source: usize,
    /// Refuse regex patterns whose shape backtracks catastrophically ([`regex_screen`]): a
    /// literal fails the load with `unsafe_regex`, a `RegExp(...)` throws. On by default, since
    /// nothing in the thread can stop a regex once it runs. An engine that runs where a
    /// deadline can end it (a Worker) turns it off: the pattern runs, and a line it hangs is
    /// ended by that deadline and falls back, instead of the whole parser being refused.
    pub screen_regexes: bool,
    /// Longest string a regex may run on, in UTF-16 units.
    pub max_regex_input: usize,
    /// Deepest nesting of a returned value (deeper values fail the line with `bad_return`).
    pub max_result_depth: usize,
    /// Most values (objects, arrays, primitives) in one line's returned value.
    pub max_result_values: usize,
    /// Most string bytes (values and keys) in one line's returned value.
    pub max_result_string_bytes: usize,
    /// Bytes of earlier lines kept for replay after a realm rebuild; beyond this a rebuild
    /// loses the parser's state (counted in [`RunDiagnostics::state_lost`]).
    pub max_replay_bytes: usize,
    /// Most work a rebuild may replay, in reference milliseconds ([`WORK_PER_MS`]), so
    /// recovery never blocks the thread for long. A run whose recorded lines ran more work than
    /// this keeps no history at all (a replay would cost too much), so a long run's memory stays
    /// flat and a rebuild starts fresh (counted in [`RunDiagnostics::state_lost`]); the replay
    /// runs the same work again, so this decides the same way on every machine. Ten times
    /// this, by the clock, is the replay's backstop.
    pub replay_budget_ms: f64,
    /// Optional probe of the bytes currently allocated (a counting global allocator, or wasm
    /// memory size). Checked at each budget yield.
    pub heap_probe: Option<fn() -> usize>,
    /// Optional monotonic clock for the budgets, in milliseconds (any origin). `None`: std's
    /// `Instant` natively, `performance.now()` through web-time on wasm32 with the `js`
    /// feature. An embedder on wasm32 without `js` (the raw engine module) must give one:
    /// std has no clock there, and the first budget check would trap.
    pub clock: Option<fn() -> f64>,
    /// With a probe: largest heap growth one call may cause before it is stopped.
    pub max_heap_growth_bytes: usize,
    /// Install the bounded built-ins and the guarded `RegExp` (on by default; switch off only
    /// to measure their cost).
    pub bounded_builtins: bool,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            max_source_bytes: 50 * 1024,
            init_budget_ms: 200.0,
            line_budget_ms: 50.0,
            clock_backstop_ms: 1000.0,
            max_line_bytes: 4 << 20,
            entry_limits: EntryLimits::default(),
            budget_cycles: 4096,
            loop_iteration_limit: 0,
            recursion_limit: 2_200,
            max_builtin_elements: 1 << 20,
            max_builtin_string_len: 1 << 24,
            max_regex_source: 2048,
            screen_regexes: true,
            max_regex_input: 4 << 20,
            max_result_depth: 64,
            max_result_values: 200_000,
            max_result_string_bytes: 32 << 20,
            max_replay_bytes: 16 << 20,
            replay_budget_ms: 250.0,
            heap_probe: None,
            clock: None,
            max_heap_growth_bytes: 256 << 20,
            bounded_builtins: true,
        }
    }
}

/// Checks a budget or deadline option by the one duration rule
/// ([`parsebox_transcript::check_duration_ms`]).
///
/// # Errors
/// A sentence naming `name` and the accepted range.
pub fn check_budget_ms(name: &str, value: f64) -> Result<(), String> {
    parsebox_transcript::check_duration_ms(value).map_err(|m| format!("{name} {m}"))
}

/// Largest `maxSourceBytes` accepted.
pub const SOURCE_BYTES_LIMIT: usize = 64 << 20;
/// Largest `maxLineBytes` accepted.
pub const LINE_BYTES_LIMIT: usize = 1 << 30;

/// Checks that a size option `name` is at least `min` and at most `max`.
///
/// # Errors
/// A sentence naming the option, its range and the value given.
pub fn check_range(name: &str, value: usize, min: usize, max: usize) -> Result<(), String> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be between {min} and {max}, got {value}"
        ))
    }
}

/// boa's cost of one loop iteration's count (its `IncrementLoopIteration` instruction, which
/// every iteration runs): no iteration costs less work.
const LOOP_STEP_CYCLES: u64 = 3;

impl SandboxOptions {
    /// The loop-iteration limit of a call that may run `budget_cycles` of work: the option when
    /// it is set, else one more iteration than the budget (and the last slice boa runs before
    /// its yield is counted) could pay for. A yielding frame is therefore always stopped by the
    /// budget first, with the budget's message; a nested, non-yielding one by this limit after
    /// at most about one budget's worth of iterations.
    pub fn loop_limit(&self, budget_cycles: u64) -> u64 {
        if self.loop_iteration_limit > 0 {
            return self.loop_iteration_limit;
        }
        budget_cycles
            .saturating_add(u64::from(self.budget_cycles))
            .div_ceil(LOOP_STEP_CYCLES)
            .saturating_add(1)
    }

    /// Checks every budget and size against its range, so a bad option is refused where it is
    /// given rather than overflowing later, inside a call.
    ///
    /// # Errors
    /// A sentence naming the first option out of range (in the JS option's name).
    pub fn validate(&self) -> Result<(), String> {
        check_budget_ms("lineBudgetMs", self.line_budget_ms)?;
        check_budget_ms("hardDeadlineMs", self.clock_backstop_ms)?;
        check_budget_ms("replayBudgetMs", self.replay_budget_ms)?;
        check_budget_ms("initBudgetMs", self.init_budget_ms)?;
        check_range(
            "maxSourceBytes",
            self.max_source_bytes,
            1,
            SOURCE_BYTES_LIMIT,
        )?;
        check_range("maxLineBytes", self.max_line_bytes, 1, LINE_BYTES_LIMIT)?;
        self.entry_limits.validate().map_err(|e| e.to_string())
    }
}
