//! Which of the page's Workers are kept for later engines, for how long, and how long the page
//! waits for an ended engine's Worker to say it is idle. The package's `workers.js` holds the
//! Workers and asks these two rules.
//!
//! A Worker whose engine ended is asked to drop it, and one that answers is idle: it is kept
//! for the next engine rather than terminated, [`MAX_IDLE_WORKERS`] of them for as long as the
//! page lives and [`MAX_SURPLUS_IDLE_WORKERS`] more for [`SURPLUS_IDLE_MS`] (a page that ended
//! a few engines at once, such as a deadline's restart on a busy machine). Any more (a page
//! parking many engines to make room for others) are terminated once idle: each may hold its
//! engine's wasm memory until collected, and a page has room for only so many. A Worker that
//! does not answer within [`end_wait_ms`] (or fails) is terminated at once.
//!
//! Why: in WebKit (JavaScriptCore, WebKitGTK 2.50), terminating a Worker while the engine
//! module's code was being compiled for a faster tier left that code in the interpreter for
//! every later instance of the module, 4-25x slower for the rest of the page (session 32), and
//! a Worker that has just run an engine may still be compiling its hot code in the background.
//! A Worker stops a line past its deadline itself, so at a deadline the Worker is idle, or
//! nearly, when the page ends its engine.

/// Idle Workers a page keeps for later engines until they are taken (in a browser; none in
/// Node, see [`idle_worker_keep_ms`]).
pub const MAX_IDLE_WORKERS: usize = 2;

/// Idle Workers past [`MAX_IDLE_WORKERS`] a page keeps for [`SURPLUS_IDLE_MS`]; any more are
/// terminated once idle. (Kept for a while, 200 parked engines' Workers left Chromium without
/// room for new wasm memories: `scale.test.mjs`.)
pub const MAX_SURPLUS_IDLE_WORKERS: usize = 2;

/// How long an idle Worker past [`MAX_IDLE_WORKERS`] is kept before it is terminated: long past
/// the background compile an engine it just ran may have started, so a page that ended more
/// engines at once than it keeps Workers for never terminates one at work. A later engine takes
/// it meanwhile, if one starts.
pub const SURPLUS_IDLE_MS: f64 = 10_000.0;

/// How long, beyond the line deadline it may still be stopping a line at, an ended engine's
/// Worker may take to say it dropped the engine. A Worker answers as soon as its thread runs
/// (it stops a line at the deadline itself); this is room for a thread the machine has not
/// scheduled, which a busy machine's Workers waited for past a second (CI, WebKit).
pub const END_GRACE_MS: f64 = 5000.0;

/// The longest delay a JavaScript timer keeps (2^31 - 1 ms, ~24.8 days): a longer one fires at
/// once in browsers and Node.
pub const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// How long a Worker that has no engine now (its engine ended and it said so, or it finished
/// the warm-up) is kept for a later engine, when `kept` idle Workers are kept already: `None`
/// until one takes it, `Some(ms)` that many milliseconds and then terminated (`Some(0.0)`: at
/// once). In Node none is kept: a Web Worker there (such as the tests' on `worker_threads`)
/// would keep the process from exiting.
pub fn idle_worker_keep_ms(kept: usize, in_node: bool) -> Option<f64> {
    if in_node {
        Some(0.0)
    } else if kept < MAX_IDLE_WORKERS {
        None
    } else if kept < MAX_IDLE_WORKERS + MAX_SURPLUS_IDLE_WORKERS {
        Some(SURPLUS_IDLE_MS)
    } else {
        Some(0.0)
    }
}

/// How long the page waits for an ended engine's Worker to say it dropped the engine before it
/// terminates the Worker: the engine's line deadline (`line_deadline_ms`, at which the Worker
/// stops a line it is running) and [`END_GRACE_MS`], at most [`MAX_TIMER_MS`]. A deadline
/// that is not a number of milliseconds (negative, NaN) waits the grace alone.
pub fn end_wait_ms(line_deadline_ms: f64) -> f64 {
    let deadline = if line_deadline_ms >= 0.0 {
        line_deadline_ms
    } else {
        0.0
    };
    (deadline + END_GRACE_MS).min(MAX_TIMER_MS)
}

#[cfg(test)]
mod tests {
    use super::{end_wait_ms, idle_worker_keep_ms, END_GRACE_MS, MAX_TIMER_MS, SURPLUS_IDLE_MS};

    #[test]
    fn a_browser_keeps_two_idle_workers_and_two_more_for_a_while_and_node_none() {
        let table = [
            (0, false, None),
            (1, false, None),
            (2, false, Some(SURPLUS_IDLE_MS)),
            (3, false, Some(SURPLUS_IDLE_MS)),
            (4, false, Some(0.0)),
            (150, false, Some(0.0)),
            (0, true, Some(0.0)),
            (1, true, Some(0.0)),
        ];
        for (kept, in_node, keep_ms) in table {
            assert_eq!(
                idle_worker_keep_ms(kept, in_node),
                keep_ms,
                "{kept} kept, in Node {in_node}"
            );
        }
    }

    #[test]
    fn an_ended_engines_worker_gets_its_line_deadline_and_a_grace_within_a_timers_range() {
        let table = [
            (0.0, END_GRACE_MS),
            (100.0, 100.0 + END_GRACE_MS),
            (30_000.0, 35_000.0),
            // Past what a timer keeps: capped, or the timer would fire at once.
            (1e12, MAX_TIMER_MS),
            (f64::INFINITY, MAX_TIMER_MS),
            // Not a duration: the grace alone.
            (-5.0, END_GRACE_MS),
            (f64::NAN, END_GRACE_MS),
        ];
        for (deadline, wait) in table {
            assert_eq!(end_wait_ms(deadline), wait, "line deadline {deadline}");
        }
    }
}
