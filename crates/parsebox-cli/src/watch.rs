//! A watchdog for parser calls the sandbox cannot interrupt.
//!
//! boa checks the budget between bytecode steps; one native step (a regex over a long line,
//! `split`, `JSON.parse`, building a huge string) runs to its end. In the browser the Worker
//! host terminates such a parser; a native CLI cannot stop a thread, so it measures every call,
//! reports the calls that overran without being stopped, and lets the command decide what to do
//! about a call that has not returned after a hang limit (check: abort with a report; parse:
//! warn and keep waiting). Under WASI (`npx parsebox`) there is no thread to watch from: the npm
//! command gives a hung call up, and the command runs again to report it (`given_up.rs`).

use std::time::Duration;

#[cfg(not(target_os = "wasi"))]
pub use threaded::Watch;
#[cfg(target_os = "wasi")]
pub use wasi::Watch;

/// Whether a call that returned normally after `elapsed` overran a budget of `budget_ms` by far
/// more than the sandbox's deadline checks allow, i.e. in one native step it cannot interrupt.
/// The margin (4× the budget plus 200 ms) keeps a busy machine from tripping it.
pub fn overran(elapsed: Duration, budget_ms: f64) -> bool {
    elapsed.as_secs_f64() * 1000.0 > budget_ms * 4.0 + 200.0
}

#[cfg(not(target_os = "wasi"))]
mod threaded {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    struct Call {
        started: Instant,
        label: String,
        reported: bool,
    }

    struct State {
        current: Mutex<Option<Call>>,
        stop: AtomicBool,
    }

    /// Watches one parser call at a time from a background thread.
    pub struct Watch {
        state: Arc<State>,
    }

    const POLL: Duration = Duration::from_millis(50);

    impl Watch {
        /// Starts the watchdog: `on_hang(label, elapsed)` runs (once per call, on the watchdog
        /// thread) when a call has been running for longer than `limit`.
        pub fn spawn(limit: Duration, on_hang: impl Fn(&str, Duration) + Send + 'static) -> Self {
            let state = Arc::new(State {
                current: Mutex::new(None),
                stop: AtomicBool::new(false),
            });
            let watched = Arc::clone(&state);
            let spawned = std::thread::Builder::new()
                .name("parsebox-watchdog".into())
                .spawn(move || {
                    while !watched.stop.load(Ordering::Relaxed) {
                        std::thread::sleep(POLL);
                        let hung = {
                            let Ok(mut slot) = watched.current.lock() else {
                                return;
                            };
                            match slot.as_mut() {
                                Some(call) if !call.reported && call.started.elapsed() > limit => {
                                    call.reported = true;
                                    Some((call.label.clone(), call.started.elapsed()))
                                }
                                _ => None,
                            }
                        };
                        if let Some((label, elapsed)) = hung {
                            on_hang(&label, elapsed);
                        }
                    }
                });
            // Without a watchdog thread the commands still work; they just cannot report hangs.
            drop(spawned);
            Self { state }
        }

        /// A call is starting.
        pub fn begin(&self, label: impl Into<String>) {
            if let Ok(mut slot) = self.state.current.lock() {
                *slot = Some(Call {
                    started: Instant::now(),
                    label: label.into(),
                    reported: false,
                });
            }
        }

        /// The call returned; its duration.
        pub fn end(&self) -> Duration {
            self.state
                .current
                .lock()
                .ok()
                .and_then(|mut slot| slot.take())
                .map_or(Duration::ZERO, |call| call.started.elapsed())
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            self.state.stop.store(true, Ordering::Relaxed);
        }
    }
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

#[cfg(all(test, not(target_os = "wasi")))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_long_call_is_reported_once_and_a_short_one_never() {
        let (tx, rx) = mpsc::channel();
        let watch = Watch::spawn(Duration::from_millis(100), move |label, _| {
            let _ = tx.send(label.to_owned());
        });
        watch.begin("short");
        watch.end();
        watch.begin("long");
        std::thread::sleep(Duration::from_millis(400));
        assert!(watch.end() >= Duration::from_millis(400));
        drop(watch);
        let reported: Vec<String> = rx.iter().collect();
        assert_eq!(reported, ["long"]);
    }

    #[test]
    fn overrun_threshold() {
        assert!(!overran(Duration::from_millis(350), 50.0));
        assert!(overran(Duration::from_millis(450), 50.0));
    }
}
