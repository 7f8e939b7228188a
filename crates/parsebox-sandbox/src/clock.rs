//! The budgets' monotonic clock: [`SandboxOptions::clock`] when the embedder gives one (the raw
//! engine module imports its clock from the page), otherwise std's `Instant` natively and
//! web-time's `performance.now()` on wasm32 with the `js` feature.

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

/// A point in time on the options' clock, in milliseconds, after which a call is stopped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    started_ms: f64,
    at_ms: f64,
    clock: fn() -> f64,
}

impl Deadline {
    /// `budget_ms` from now (a negative budget counts as 0).
    pub(crate) fn after(budget_ms: f64, opts: &SandboxOptions) -> Deadline {
        let clock = clock_of(opts);
        let started_ms = clock();
        Deadline {
            started_ms,
            at_ms: started_ms + budget_ms.max(0.0),
            clock,
        }
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
    fn the_default_clock_is_monotonic_milliseconds() {
        let opts = SandboxOptions::default();
        assert!(!Deadline::after(60_000.0, &opts).passed());
        assert!(Deadline::after(0.0, &opts).passed());
    }
}
