//! Which of the page's Workers are kept for later engines, and how long the page waits for an
//! ended engine's Worker to say it is idle. The package's `workers.js` holds the Workers and
//! asks these two rules.
//!
//! A Worker whose engine ended is asked to drop it, and one that answers is idle: it is kept
//! for the next engine rather than terminated, up to [`MAX_IDLE_WORKERS`]. Only a Worker that
//! does not answer within [`end_wait_ms`] (or fails) is terminated. Why: in WebKit
//! (JavaScriptCore, WebKitGTK 2.50), terminating a Worker while the engine module's code was
//! being compiled for a faster tier left that code in the interpreter for every later instance
//! of the module, 4-25x slower for the rest of the page (session 32). A Worker stops a line
//! past its deadline itself, so at a deadline the Worker is idle, or nearly, when the page ends
//! its engine.

/// Most idle Workers a page keeps for later engines (in a browser; none in Node, see
/// [`keeps_idle_worker`]).
pub const MAX_IDLE_WORKERS: usize = 2;

/// How long, beyond the line deadline it may still be stopping a line at, an ended engine's
/// Worker may take to say it dropped the engine.
pub const END_GRACE_MS: f64 = 1000.0;

/// The longest delay a JavaScript timer keeps (2^31 - 1 ms, ~24.8 days): a longer one fires at
/// once in browsers and Node.
pub const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// Whether a Worker that has no engine now (its engine ended and it said so, or it finished
/// the warm-up) is kept for a later engine, when `kept` idle Workers are kept already. In Node
/// none is: a Web Worker there (such as the tests' on `worker_threads`) would keep the process
/// from exiting.
pub fn keeps_idle_worker(kept: usize, in_node: bool) -> bool {
    !in_node && kept < MAX_IDLE_WORKERS
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
    use super::{end_wait_ms, keeps_idle_worker, END_GRACE_MS, MAX_TIMER_MS};

    #[test]
    fn a_browser_keeps_two_idle_workers_and_node_none() {
        let table = [
            (0, false, true),
            (1, false, true),
            (2, false, false),
            (5, false, false),
            (0, true, false),
            (1, true, false),
        ];
        for (kept, in_node, keeps) in table {
            assert_eq!(
                keeps_idle_worker(kept, in_node),
                keeps,
                "{kept} kept, in Node {in_node}"
            );
        }
    }

    #[test]
    fn an_ended_engines_worker_gets_its_line_deadline_and_a_grace_within_a_timers_range() {
        let table = [
            (0.0, END_GRACE_MS),
            (100.0, 100.0 + END_GRACE_MS),
            (30_000.0, 31_000.0),
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
