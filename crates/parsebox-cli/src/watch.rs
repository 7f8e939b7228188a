//! Parser calls the sandbox cannot interrupt, under WASI only: natively the package's live core
//! ends a call stuck past the deadline with its engine process (`hosted`), and its work budget
//! and deadline are the only verdicts, as in the page. Under WASI the sandbox runs in the
//! command's own thread: [`overran`] says when a call that returned took far longer than its
//! budget by the clock (one native step: a regex over a long line, `split`, `JSON.parse`,
//! building a huge string), and [`Watch`] has the npm command give a hung call up; the command
//! then runs again to report it (`given_up.rs`).

use std::time::Duration;

#[cfg(target_os = "wasi")]
pub use wasi::Watch;

/// Whether a call that returned normally after `elapsed` overran a budget of `budget_ms` by far
/// more than the sandbox's deadline checks allow, i.e. in one native step it cannot interrupt.
/// The margin (4× the budget plus 200 ms) keeps a busy machine from tripping it.
#[cfg_attr(not(target_os = "wasi"), allow(dead_code))]
pub fn overran(elapsed: Duration, budget_ms: f64) -> bool {
    elapsed.as_secs_f64() * 1000.0 > budget_ms * 4.0 + 200.0
}

#[cfg(target_os = "wasi")]
mod wasi {
    use std::cell::Cell;
    use std::time::{Duration, Instant};

    use crate::given_up;

    /// What runs for a hung call: its label, and how long it ran.
    type OnHang = Box<dyn Fn(&str, Duration)>;

    /// Watches one parser call at a time, through the npm command (`given_up.rs`).
    pub struct Watch {
        limit: Duration,
        on_hang: OnHang,
        started: Cell<Option<Instant>>,
    }

    impl Watch {
        /// `on_hang(label, limit)` runs, before the call, for a call an earlier attempt of the
        /// command gave up after `limit`.
        pub fn spawn(limit: Duration, on_hang: impl Fn(&str, Duration) + Send + 'static) -> Self {
            Self {
                limit,
                on_hang: Box::new(on_hang),
                started: Cell::new(None),
            }
        }

        /// A call is starting.
        pub fn begin(&self, label: impl Into<String>) {
            if given_up::begin(self.limit) {
                (self.on_hang)(&label.into(), self.limit);
            }
            self.started.set(Some(Instant::now()));
        }

        /// The call returned; its duration.
        pub fn end(&self) -> Duration {
            given_up::end();
            self.started.take().map_or(Duration::ZERO, |s| s.elapsed())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrun_threshold() {
        assert!(!overran(Duration::from_millis(350), 50.0));
        assert!(overran(Duration::from_millis(450), 50.0));
    }
}
