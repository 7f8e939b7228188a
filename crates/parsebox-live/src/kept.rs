//! The runs `parsebox/paperclip`'s `buildTranscript` keeps between renders (Paperclip re-renders
//! a run's transcript from its whole chunk list each time): which kept run a list goes on
//! from, and which run to let go once more than [`KEEP_RUNS`] are kept.

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_host::RunId;
use parsebox_transcript::ChunkTrail;

/// How many runs are kept at most: a page showing that many run transcripts at once re-parses
/// none of them on a re-render.
pub const KEEP_RUNS: usize = 16;

/// A kept run: its adapter type and the chunks its builder was given.
#[derive(Debug)]
struct Kept {
    run: RunId,
    adapter_type: String,
    trail: Rc<RefCell<ChunkTrail>>,
}

/// Kept runs, the one used least recently first.
#[derive(Debug, Default)]
pub(crate) struct KeptRuns {
    kept: Vec<Kept>,
}

impl KeptRuns {
    /// The kept run of `adapter_type` that the list `ids` goes on from (the most recently used
    /// of those that do), now the most recently used; `None` when none does.
    pub(crate) fn continuing(&mut self, adapter_type: &str, ids: &[u64]) -> Option<RunId> {
        let at = self.kept.iter().rposition(|k| {
            k.adapter_type == adapter_type
                && k.trail
                    .try_borrow()
                    .is_ok_and(|t| t.new_from(ids).is_some())
        })?;
        let k = self.kept.remove(at);
        let run = k.run;
        self.kept.push(k);
        Some(run)
    }

    /// Keeps a new run, as the most recently used. Returns the run let go (the least recently
    /// used) when more than [`KEEP_RUNS`] are kept: the page disposes its builder.
    pub(crate) fn keep(
        &mut self,
        run: RunId,
        adapter_type: &str,
        trail: Rc<RefCell<ChunkTrail>>,
    ) -> Option<RunId> {
        self.forget(run);
        self.kept.push(Kept {
            run,
            adapter_type: adapter_type.to_owned(),
            trail,
        });
        (self.kept.len() > KEEP_RUNS).then(|| self.kept.remove(0).run)
    }

    /// Forgets `run` (its builder is gone).
    pub(crate) fn forget(&mut self, run: RunId) {
        self.kept.retain(|k| k.run != run);
    }

    /// Forgets every run (the registry is disposed).
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parsebox_transcript::Stream;

    /// A trail given the chunks `ids`, each a whole stdout line.
    fn trail(ids: &[u64]) -> Rc<RefCell<ChunkTrail>> {
        let mut t = ChunkTrail::new();
        for &id in ids {
            t.give(id, Stream::Stdout, true);
        }
        t.settle(ids);
        Rc::new(RefCell::new(t))
    }

    #[test]
    fn a_list_goes_to_the_most_recent_kept_run_of_its_type_it_continues() {
        let mut kept = KeptRuns::default();
        assert_eq!(kept.keep(RunId(1), "a", trail(&[1, 2])), None);
        assert_eq!(kept.keep(RunId(2), "a", trail(&[1, 2])), None);
        assert_eq!(kept.keep(RunId(3), "b", trail(&[1, 2, 3])), None);
        assert_eq!(
            kept.continuing("a", &[1, 2, 3]),
            Some(RunId(2)),
            "the later"
        );
        assert_eq!(kept.continuing("b", &[1, 2, 3]), Some(RunId(3)));
        assert_eq!(kept.continuing("c", &[1, 2, 3]), None, "another type");
        assert_eq!(kept.continuing("a", &[9]), None, "a list none continues");
    }

    #[test]
    fn past_the_limit_the_run_used_least_recently_goes() {
        let mut kept = KeptRuns::default();
        for r in 1..=KEEP_RUNS as u64 {
            assert_eq!(kept.keep(RunId(r), "a", trail(&[r * 10])), None);
        }
        // Run 1 is used again: run 2 is now the one used least recently.
        assert_eq!(kept.continuing("a", &[10, 11]), Some(RunId(1)));
        assert_eq!(kept.keep(RunId(100), "a", trail(&[1000])), Some(RunId(2)));
        assert_eq!(kept.continuing("a", &[20]), None, "let go");
        assert_eq!(kept.keep(RunId(101), "a", trail(&[1010])), Some(RunId(3)));
    }

    #[test]
    fn a_run_forgotten_is_not_chosen_and_a_run_kept_again_is_kept_once() {
        let mut kept = KeptRuns::default();
        kept.keep(RunId(1), "a", trail(&[1]));
        kept.keep(RunId(1), "a", trail(&[1]));
        kept.forget(RunId(1));
        assert_eq!(kept.continuing("a", &[1]), None);
        kept.keep(RunId(2), "a", trail(&[2]));
        kept.clear();
        assert_eq!(kept.continuing("a", &[2]), None);
    }
}
