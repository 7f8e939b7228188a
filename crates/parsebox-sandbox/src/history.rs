//! A run's replay history: the lines and resets that brought its realm to its current state,
//! so a fresh realm can be brought back to it after an abort.
//!
//! Kept only while a replay could still restore the state. A replay runs under
//! [`SandboxOptions::replay_budget_ms`] and is given up past it, so once the recorded ops took
//! longer than that budget when they first ran, replaying them would be given up too: the
//! history is dropped then rather than kept to no use (a long run's memory stays flat, and a
//! later rebuild starts fresh at once instead of spending the budget first). The byte cap
//! ([`SandboxOptions::max_replay_bytes`]) bounds it besides.

use crate::SandboxOptions;

/// One recorded operation.
pub(crate) enum Op {
    /// A line and its `ts`.
    Line(String, String),
    /// A call of the instance's `reset()`.
    Reset,
}

impl Op {
    /// Bytes the op is counted as (the texts plus a fixed overhead).
    fn bytes(&self) -> usize {
        match self {
            Op::Line(l, t) => l.len() + t.len() + 48,
            Op::Reset => 16,
        }
    }
}

/// See the module documentation.
pub(crate) struct History {
    ops: Vec<Op>,
    bytes: usize,
    /// What the recorded ops took when they ran, in milliseconds.
    ran_ms: f64,
    /// Whether `ops` still holds every op since the run's realm was fresh.
    complete: bool,
}

impl Default for History {
    fn default() -> Self {
        Self {
            ops: Vec::new(),
            bytes: 0,
            ran_ms: 0.0,
            complete: true,
        }
    }
}

impl History {
    /// Records an op that ran for `ran_ms` and left the realm usable; drops the history for
    /// good once it is over either cap.
    pub(crate) fn record(&mut self, op: Op, ran_ms: f64, opts: &SandboxOptions) {
        if !self.complete {
            return;
        }
        let bytes = op.bytes();
        let ran_ms = self.ran_ms + ran_ms.max(0.0);
        if self.bytes + bytes > opts.max_replay_bytes || ran_ms > opts.replay_budget_ms {
            self.complete = false;
            self.restart();
            return;
        }
        self.bytes += bytes;
        self.ran_ms = ran_ms;
        self.ops.push(op);
    }

    /// Whether replaying the history restores the realm's state.
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    /// Empties the history for a realm that starts fresh (a replay given up): what comes next
    /// is recorded again.
    pub(crate) fn restart(&mut self) {
        self.ops = Vec::new();
        self.bytes = 0;
        self.ran_ms = 0.0;
    }

    /// The op at `k`.
    pub(crate) fn get(&self, k: usize) -> Option<&Op> {
        self.ops.get(k)
    }

    /// Number of recorded ops.
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// Removes the op at `k` (one that now stops the realm). Its bytes and time stay counted:
    /// the caps only need to be upper bounds.
    pub(crate) fn remove(&mut self, k: usize) {
        if k < self.ops.len() {
            self.ops.remove(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Op {
        Op::Line(text.to_owned(), "t".to_owned())
    }

    fn replay_budget(ms: f64) -> SandboxOptions {
        SandboxOptions {
            replay_budget_ms: ms,
            ..SandboxOptions::default()
        }
    }

    #[test]
    fn a_history_that_could_not_be_replayed_in_budget_is_dropped() {
        let opts = replay_budget(100.0);
        let mut h = History::default();
        h.record(line("a"), 60.0, &opts);
        h.record(Op::Reset, 30.0, &opts);
        assert!(h.is_complete());
        assert_eq!(h.len(), 2);
        h.record(line("b"), 20.0, &opts);
        assert!(!h.is_complete(), "110 ms of ops cannot replay in 100 ms");
        assert_eq!(h.len(), 0);
        h.record(line("c"), 0.0, &opts);
        assert_eq!(h.len(), 0, "an incomplete history records nothing more");
    }

    #[test]
    fn the_byte_cap_drops_it_too() {
        let opts = SandboxOptions {
            max_replay_bytes: 100,
            ..SandboxOptions::default()
        };
        let mut h = History::default();
        h.record(line(&"x".repeat(40)), 0.0, &opts);
        assert!(h.is_complete());
        h.record(line(&"x".repeat(40)), 0.0, &opts);
        assert!(!h.is_complete());
    }

    #[test]
    fn a_restart_counts_from_zero_again() {
        let opts = replay_budget(100.0);
        let mut h = History::default();
        h.record(line("a"), 90.0, &opts);
        h.restart();
        h.record(line("b"), 90.0, &opts);
        assert!(h.is_complete());
        assert_eq!(h.len(), 1);
    }
}
