//! What a call may spend: the engine's own count of work, which decides (the same on every
//! machine, under any load, in every browser), and the wall clock, which is only the backstop
//! for what the engine cannot count (one long native step: a regex, a huge `replace`). The
//! clock never decides for an engine making progress (SPEC §11): its deadline moves on each
//! time the engine counts work ([`Deadline::progressed`]), so only a stretch of the clock with
//! no count of work in it (one native step that runs long) can pass it.
//!
//! Work is counted in boa's "cycles" (bytecode instructions weighted by their cost), read at
//! each yield of the budgeted evaluation, and budgets given in milliseconds are converted at
//! [`WORK_PER_MS`]: *reference milliseconds*, what the engine module does in one millisecond
//! in Node or Chromium on the reference machine (BENCHMARKS.md). The clock is
//! [`SandboxOptions::clock`] when the embedder gives one (the raw engine module imports its
//! clock from the page), otherwise std's `Instant` natively and web-time's
//! `performance.now()` on wasm32 with the `js` feature.

use crate::SandboxOptions;

#[cfg(feature = "js")]
use web_time::Instant;

#[cfg(not(feature = "js"))]
use std::time::Instant;

/// Milliseconds since the first call on this clock (the default when no clock is given).
/// On wasm32 without the `js` feature std's `Instant` is unsupported: an embedder there must
/// set [`SandboxOptions::clock`].
fn default_clock() -> f64 {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// The options' clock: theirs, or the default.
fn clock_of(opts: &SandboxOptions) -> fn() -> f64 {
    opts.clock.unwrap_or(default_clock)
}

/// Now on the options' clock, in milliseconds.
pub(crate) fn now_ms(opts: &SandboxOptions) -> f64 {
    clock_of(opts)()
}

/// Cycles of work every call in this thread (this engine instance) has run so far, counted at
/// each yield (bytecode) and as each native step charges its work (a regex scan, `JSON.parse`),
/// so a long native call that does counted work shows it moving before it returns. An embedder
/// that reads it twice knows whether the engine's work moved on between the two, so a long
/// call that is making progress is told apart from one stuck in a single native step (SPEC
/// §11: the clock never decides for an engine making progress).
static WORK_DONE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Cycles of work run so far in this engine instance ([`WORK_DONE`]); it only grows.
pub fn work_done() -> u64 {
    WORK_DONE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Counts `cycles` of work into [`work_done`].
pub(crate) fn count_work(cycles: u64) {
    WORK_DONE.fetch_add(cycles, std::sync::atomic::Ordering::Relaxed);
}

/// boa cycles per reference millisecond: a budget of `n` ms lets a call run `n ×` this many
/// cycles of bytecode, whatever the machine. Measured with `cargo run --release -p
/// parsebox-sandbox --example work_rate` and the engine module in Node (BENCHMARKS.md).
pub const WORK_PER_MS: u64 = 70_000;

/// `ms` reference milliseconds as boa cycles (saturating; a negative budget is no work).
pub(crate) fn work_of(ms: f64) -> u64 {
    #[allow(clippy::cast_precision_loss)]
    let cycles = ms.max(0.0) * WORK_PER_MS as f64;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if cycles >= u64::MAX as f64 {
        u64::MAX
    } else {
        cycles as u64
    }
}

/// `cycles` of work in reference milliseconds.
pub(crate) fn ms_of(cycles: u64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let ms = cycles as f64 / WORK_PER_MS as f64;
    ms
}

/// Cycles charged for one search of a native regex method ([`charge_native`]) besides the
/// code units it scanned: a global `replace` over a line with 100,000 matches runs 100,000
/// searches inside one native call, and each is work. A code unit a cycle and this constant put
/// the regex methods at the rate boa runs bytecode: natively (`--example work_rate`, lines of
/// 2,000 tokens) a bytecode loop counts ~210k cycles per wall millisecond, `split(/ /)` is
/// charged ~184k, a failing `test` ~230k, a global `replace` ~68k, and `JSON.parse` (a code unit
/// a cycle) ~69k on stream-json lines, ~102k on arrays of numbers: never more than bytecode.
pub(crate) const SEARCH_CYCLES: u64 = 16;

/// The work the sandbox's own native built-ins (the regex methods) did in the current call,
/// which boa's cycle count does not see: `taken` since the evaluation last yielded, and the
/// `room` the call's budget had left at that yield. Per thread: one engine per thread.
#[derive(Clone, Copy)]
struct NativeWork {
    taken: u64,
    room: u64,
    over: bool,
}

thread_local! {
    static NATIVE: std::cell::Cell<NativeWork> = const {
        std::cell::Cell::new(NativeWork { taken: 0, room: u64::MAX, over: false })
    };
}

/// Charges `cycles` of native work (code units a regex scanned or `JSON.parse` read, and
/// [`SEARCH_CYCLES`] a search) to the current call. Once the call's budget is spent, an error
/// the guest cannot catch (boa's runtime-limit errors are the uncatchable ones) ends the
/// evaluation, and the call ends as `budget_exceeded` ([`take_native`] says it ran past its
/// room): counted work, not the clock. Outside a budgeted call every charge is allowed.
///
/// # Errors
/// That uncatchable error, once the budget is spent.
pub(crate) fn charge_native(cycles: u64) -> boa_engine::JsResult<()> {
    // Seen at once by whoever watches for progress: a `replace` whose callbacks run for a
    // second yields nowhere, and its work must not look like a stuck native step.
    count_work(cycles);
    let over = NATIVE.with(|cell| {
        let mut work = cell.get();
        work.taken = work.taken.saturating_add(cycles);
        work.over |= work.taken > work.room;
        cell.set(work);
        work.over
    });
    if over {
        Err(boa_engine::JsError::from(
            boa_engine::error::RuntimeLimitError::LoopIteration,
        ))
    } else {
        Ok(())
    }
}

/// The native work taken since the last take (and whether it ran past the room it had), now
/// counted by the caller; counting starts again from nothing.
pub(crate) fn take_native() -> (u64, bool) {
    NATIVE.with(|cell| {
        let work = cell.get();
        cell.set(NativeWork {
            taken: 0,
            over: false,
            ..work
        });
        (work.taken, work.over)
    })
}

/// Sets the cycles the current call's budget has left for native work (at its start and at
/// each yield; `u64::MAX` outside a budgeted call).
pub(crate) fn set_native_room(room: u64) {
    NATIVE.with(|cell| {
        let work = cell.get();
        cell.set(NativeWork { room, ..work });
    });
}

/// What one call may spend: `limit` cycles by the engine's count, and the wall clock up to
/// `deadline` (the backstop).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meter {
    /// Cycles the call may run.
    pub(crate) limit: u64,
    /// Cycles it ran so far (counted at each yield).
    pub(crate) used: u64,
    /// The wall-clock backstop.
    pub(crate) deadline: Deadline,
}

impl Meter {
    /// A budget of `budget_ms` reference milliseconds of work, with the clock backstop
    /// `backstop_ms` from now.
    pub(crate) fn new(budget_ms: f64, backstop_ms: f64, opts: &SandboxOptions) -> Meter {
        Meter {
            limit: work_of(budget_ms),
            used: 0,
            deadline: Deadline::after(backstop_ms, opts),
        }
    }

    /// Counts `cycles` of work; false once more than the limit was run.
    pub(crate) fn spend(&mut self, cycles: u64) -> bool {
        self.used = self.used.saturating_add(cycles);
        self.used <= self.limit
    }

    /// The cycles the call may still run.
    pub(crate) fn room(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// A point in time on the options' clock, in milliseconds, after which a call is stopped
/// unless it made progress meanwhile ([`progressed`](Self::progressed)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    started_ms: f64,
    at_ms: f64,
    window_ms: f64,
    clock: fn() -> f64,
}

impl Deadline {
    /// `budget_ms` from now (a negative budget counts as 0).
    pub(crate) fn after(budget_ms: f64, opts: &SandboxOptions) -> Deadline {
        let clock = clock_of(opts);
        let started_ms = clock();
        let window_ms = budget_ms.max(0.0);
        Deadline {
            started_ms,
            at_ms: started_ms + window_ms,
            window_ms,
            clock,
        }
    }

    /// The call made progress (the engine counted work, or a replayed line ended): the
    /// deadline is its whole length from now again.
    pub(crate) fn progressed(&mut self) {
        self.at_ms = (self.clock)() + self.window_ms;
    }

    /// When the deadline was set.
    pub(crate) fn started_ms(&self) -> f64 {
        self.started_ms
    }

    /// Whether the deadline has passed.
    pub(crate) fn passed(&self) -> bool {
        (self.clock)() >= self.at_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static NOW: std::cell::Cell<f64> = const { std::cell::Cell::new(1000.0) };
    }

    fn fake() -> f64 {
        NOW.with(std::cell::Cell::get)
    }

    #[test]
    fn a_given_clock_decides_when_the_deadline_passes() {
        let opts = SandboxOptions {
            clock: Some(fake),
            ..SandboxOptions::default()
        };
        let d = Deadline::after(50.0, &opts);
        NOW.with(|n| n.set(1049.0));
        assert!(!d.passed());
        NOW.with(|n| n.set(1050.0));
        assert!(d.passed());
    }

    #[test]
    fn a_deadline_moves_on_with_progress_and_passes_only_after_a_stretch_without_any() {
        let opts = SandboxOptions {
            clock: Some(fake),
            ..SandboxOptions::default()
        };
        NOW.with(|n| n.set(0.0));
        let mut d = Deadline::after(50.0, &opts);
        // Ten times the deadline by the clock, with progress every 40 ms.
        for k in 1..=12 {
            NOW.with(|n| n.set(f64::from(k) * 40.0));
            assert!(!d.passed(), "progress at {k}");
            d.progressed();
        }
        NOW.with(|n| n.set(480.0 + 49.0));
        assert!(!d.passed());
        NOW.with(|n| n.set(480.0 + 50.0));
        assert!(d.passed(), "50 ms with no progress");
        assert_eq!(d.started_ms(), 0.0);
    }

    #[test]
    fn work_is_counted_in_reference_milliseconds() {
        let mut m = Meter::new(1.0, 60_000.0, &SandboxOptions::default());
        assert_eq!(m.limit, WORK_PER_MS);
        assert!(m.spend(WORK_PER_MS - 1));
        assert!(!m.spend(2), "past the budget");
        assert_eq!(m.used, WORK_PER_MS + 1);
        assert!((ms_of(m.used) - 1.0).abs() < 1e-3);
        assert_eq!(work_of(-1.0), 0);
        assert_eq!(work_of(f64::MAX), u64::MAX);
    }

    #[test]
    fn the_default_clock_is_monotonic_milliseconds() {
        let opts = SandboxOptions::default();
        assert!(!Deadline::after(60_000.0, &opts).passed());
        assert!(Deadline::after(0.0, &opts).passed());
    }
}
