//! Giving up a call the sandbox cannot interrupt, under WASI (`npx parsebox`). WASI has no
//! threads, so no watchdog can run beside a stuck call, and nothing can stop it but a trap.
//! The npm command (`cli.js`, Node's `node:wasi`) does it: every watched call tells it its limit
//! ([`begin`]); the module's loops call `env.parsebox_poll` (`parsebox-preempt`, as in the engine
//! module), and past the limit cli.js throws from it, which ends the attempt. cli.js then runs
//! the command again from the start with `PARSEBOX_GIVEN_UP` listing, by number, the watched
//! calls it gave up; this module says which they are, and the command does there what the native
//! watchdog does when a call hangs. The lines before are parsed again the same way (budgets are
//! counted by the engine, not by the clock), and cli.js passes on only the output the earlier
//! attempts had not written.

#![allow(unsafe_code)] // the two imports below, and nothing else

use std::cell::Cell;
use std::time::Duration;

#[link(wasm_import_module = "parsebox_cli")]
extern "C" {
    /// Watched call `n` begins: cli.js ends the attempt once it has run `limit_ms`.
    fn call_began(n: f64, limit_ms: f64);
    /// The watched call returned.
    fn call_ended();
}

thread_local! {
    /// How many watched calls this attempt has begun.
    static CALLS: Cell<u64> = const { Cell::new(0) };
    /// The watched calls earlier attempts gave up (`PARSEBOX_GIVEN_UP`, read once: every line
    /// `parse` feeds is a watched call).
    static GIVEN_UP: Vec<u64> = std::env::var("PARSEBOX_GIVEN_UP")
        .map(|list| list.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_default();
}

/// Whether watched call `n` (from 1) is one an earlier attempt gave up.
fn given_up(n: u64) -> bool {
    GIVEN_UP.with(|calls| calls.contains(&n))
}

/// A watched call is about to begin, with `limit`: true when an earlier attempt gave it up (the
/// caller then does what it does at a hang, without calling); otherwise cli.js watches it until
/// [`end`].
pub fn begin(limit: Duration) -> bool {
    let n = CALLS.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    if given_up(n) {
        return true;
    }
    #[allow(clippy::cast_precision_loss)] // a count of calls, far below 2^53
    let n = n as f64;
    // SAFETY: an import of cli.js taking two numbers; it touches no memory of this module.
    unsafe { call_began(n, limit.as_secs_f64() * 1000.0) };
    false
}

/// The watched call returned.
pub fn end() {
    // SAFETY: an import of cli.js taking nothing; it touches no memory of this module.
    unsafe { call_ended() };
}
