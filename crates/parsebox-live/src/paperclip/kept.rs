//! The runs `parsebox/paperclip`'s `buildTranscript` keeps between renders (Paperclip re-renders
//! a run's transcript from its whole chunk list each time): which kept run a list goes on
//! from, and which run to let go once more than [`KEEP_RUNS`] are kept.

/// How many runs are kept at most: a page showing that many run transcripts at once re-parses
/// none of them on a re-render.
pub const KEEP_RUNS: usize = 16;

/// What a kept run is asked.
pub(crate) trait Continued {
    /// Its adapter type.
    fn adapter_type(&self) -> &str;
    /// Whether the list `ids` goes on from the chunks it was given.
    fn continues(&self, ids: &[u64]) -> bool;
}

/// Kept runs, the one used least recently first.
#[derive(Debug)]
pub(crate) struct KeptRuns<T> {
    kept: Vec<T>,
}

impl<T> Default for KeptRuns<T> {
    fn default() -> Self {
        Self { kept: Vec::new() }
    }
}

impl<T: Continued> KeptRuns<T> {
    /// Makes the kept run of `adapter_type` that the list `ids` goes on from (the most recently
    /// used of those that do) the most recently used ([`latest`](Self::latest)); whether one
    /// does.
    pub(crate) fn bring_forward(&mut self, adapter_type: &str, ids: &[u64]) -> bool {
        let found = self
            .kept
            .iter()
            .rposition(|k| k.adapter_type() == adapter_type && k.continues(ids));
        if let Some(at) = found {
            let k = self.kept.remove(at);
            self.kept.push(k);
        }
        found.is_some()
    }

    /// The run used most recently.
    pub(crate) fn latest(&mut self) -> Option<&mut T> {
        self.kept.last_mut()
    }

    /// Keeps a new run, as the most recently used; the run used least recently is let go when
    /// more than [`KEEP_RUNS`] would be kept, and returned (dropped, its run ends).
    pub(crate) fn keep(&mut self, run: T) -> Option<T> {
        let gone = (self.kept.len() >= KEEP_RUNS).then(|| self.kept.remove(0));
        self.kept.push(run);
        gone
    }

    /// The kept runs, to go through (the page's frame).
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.kept.iter_mut()
    }

    /// Lets every run go (the registry is disposed, or another takes its place).
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept run given the chunks `ids`, each a whole line.
    #[derive(Debug, PartialEq)]
    struct Fake {
        run: u64,
        adapter_type: &'static str,
        ids: Vec<u64>,
    }

    impl Continued for Fake {
        fn adapter_type(&self) -> &str {
            self.adapter_type
        }
        fn continues(&self, ids: &[u64]) -> bool {
            // A list goes on from the last chunk given, or from any chunk given (a window).
            self.ids.iter().any(|id| ids.first() == Some(id))
        }
    }

    fn fake(run: u64, adapter_type: &'static str, ids: &[u64]) -> Fake {
        Fake {
            run,
            adapter_type,
            ids: ids.to_vec(),
        }
    }

    fn run_of(kept: &mut KeptRuns<Fake>, adapter_type: &str, ids: &[u64]) -> Option<u64> {
        if kept.bring_forward(adapter_type, ids) {
            kept.latest().map(|k| k.run)
        } else {
            None
        }
    }

    #[test]
    fn a_list_goes_to_the_most_recent_kept_run_of_its_type_it_continues() {
        let mut kept = KeptRuns::default();
        kept.keep(fake(1, "a", &[1, 2]));
        kept.keep(fake(2, "a", &[1, 2]));
        kept.keep(fake(3, "b", &[1, 2, 3]));
        assert_eq!(run_of(&mut kept, "a", &[1, 2, 3]), Some(2), "the later");
        assert_eq!(run_of(&mut kept, "b", &[1, 2, 3]), Some(3));
        assert_eq!(run_of(&mut kept, "c", &[1, 2, 3]), None, "another type");
        assert_eq!(run_of(&mut kept, "a", &[9]), None, "a list none continues");
    }

    #[test]
    fn past_the_limit_the_run_used_least_recently_goes() {
        let mut kept = KeptRuns::default();
        for r in 1..=KEEP_RUNS as u64 {
            kept.keep(fake(r, "a", &[r * 10]));
        }
        // Run 1 is used again: run 2 is now the one used least recently.
        assert_eq!(run_of(&mut kept, "a", &[10, 11]), Some(1));
        kept.keep(fake(100, "a", &[1000]));
        assert_eq!(run_of(&mut kept, "a", &[20]), None, "let go");
        assert_eq!(run_of(&mut kept, "a", &[10]), Some(1), "kept");
        kept.keep(fake(101, "a", &[1010]));
        assert_eq!(run_of(&mut kept, "a", &[30]), None, "let go next");
        assert_eq!(kept.iter_mut().count(), KEEP_RUNS);
        kept.clear();
        assert_eq!(run_of(&mut kept, "a", &[1000]), None);
    }
}
