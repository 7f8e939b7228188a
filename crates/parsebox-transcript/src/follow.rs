//! Following a chunk list that a page hands over whole on every render (Paperclip's
//! `buildTranscript(chunks, …)`): which of its chunks a builder has been given already, which
//! are new, where the list now begins, and when the chunks before it can be let go.
//!
//! Chunks are named by ids the caller gives them (the JS side numbers chunk objects by identity),
//! so a list "goes on" from the last one when it holds the same chunks in the same order from
//! some point on, maybe without some at the front and with new ones at the end.

use std::collections::VecDeque;

use crate::Stream;

/// One chunk given to the builder: its id, and whether a line ends in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Given {
    id: u64,
    ends_line: bool,
}

/// Whether a line ends in a chunk from `stream` that holds a newline or not: only stdout is
/// split into lines.
fn ends_line(stream: Stream, newline: bool) -> bool {
    stream == Stream::Stdout && newline
}

/// What [`ChunkTrail::settle`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Settled {
    /// The list begins at another chunk than the last list did.
    pub moved: bool,
    /// Chunks let go from the front of the trail now (the builder lets go of as many).
    pub cut: usize,
}

/// The chunks given to one builder from the lists it followed, oldest first, with where the
/// last list began. Chunks before the last list's current line are let go once they are at
/// least half the trail, so following a list that drops its oldest chunks keeps memory bounded.
#[derive(Clone, Debug, Default)]
pub struct ChunkTrail {
    given: VecDeque<Given>,
    /// Index in `given` of the last list's first chunk.
    start: usize,
    /// Chunks let go from the front, in all.
    cut: usize,
}

impl ChunkTrail {
    /// A trail with no chunk given.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index in `ids` of its first chunk not given yet, or `None` when `ids` does not go
    /// on from the chunks given: it begins before the last list did or with a chunk never
    /// given, leaves out or reorders one, or is empty after chunks were given.
    pub fn new_from(&self, ids: &[u64]) -> Option<usize> {
        self.offset(ids).map(|k| self.given.len() - k)
    }

    /// Index in the trail of `ids`' first chunk (see [`new_from`](Self::new_from)).
    fn offset(&self, ids: &[u64]) -> Option<usize> {
        let Some(&first) = ids.first() else {
            return self.given.is_empty().then_some(0);
        };
        if self.given.is_empty() {
            return Some(0);
        }
        let k = self.start + self.given.range(self.start..).position(|g| g.id == first)?;
        let shared = self.given.len() - k;
        let same = ids.len() >= shared
            && self
                .given
                .range(k..)
                .zip(ids)
                .all(|(given, &id)| given.id == id);
        same.then_some(k)
    }

    /// Records that the builder was given a chunk named `id`, from `stream`, holding a
    /// newline or not.
    pub fn give(&mut self, id: u64, stream: Stream, newline: bool) {
        self.given.push_back(Given {
            id,
            ends_line: ends_line(stream, newline),
        });
    }

    /// Takes `ids` as the list now followed, once its new chunks were given: it begins where
    /// its first chunk is, and the chunks before the line that chunk is part of are let go when
    /// they are at least half the trail. `None` (and nothing changed) when `ids` does not go
    /// on from the trail with every chunk given (a chunk before the end was refused).
    pub fn settle(&mut self, ids: &[u64]) -> Option<Settled> {
        let k = self.offset(ids)?;
        if self.given.len() - k != ids.len() {
            return None;
        }
        let moved = k != self.start;
        let line = self.line_start(k);
        let cut = if line > 0 && line * 2 >= self.given.len() {
            line
        } else {
            0
        };
        self.given.drain(..cut);
        self.cut += cut;
        self.start = k - cut;
        Some(Settled { moved, cut })
    }

    /// Index in the trail of the last list's first chunk.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Chunks let go from the front, in all: the trail's first chunk is the one given with
    /// this many before it.
    pub fn cut(&self) -> usize {
        self.cut
    }

    /// Where a replay of the pending (unfinished) line begins: the last chunk in which a line
    /// ends before the last list's start, or with `from_end` before the trail's end (0 when
    /// there is none).
    pub fn replay_from(&self, from_end: bool) -> usize {
        self.line_start(if from_end {
            self.given.len()
        } else {
            self.start
        })
    }

    /// The index of the last chunk before `k` in which a line ends, or 0.
    fn line_start(&self, k: usize) -> usize {
        self.given
            .range(..k)
            .rposition(|g| g.ends_line)
            .unwrap_or(0)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// Follows `ids` as the JS side does: new chunks given (stdout, a whole line each unless
    /// named in `partial`), then settled.
    fn follow(trail: &mut ChunkTrail, ids: &[u64], partial: &[u64]) -> Settled {
        let from = trail.new_from(ids).expect("goes on");
        for &id in &ids[from..] {
            trail.give(id, Stream::Stdout, !partial.contains(&id));
        }
        trail.settle(ids).expect("settles")
    }

    #[test]
    fn where_a_list_goes_on() {
        let mut trail = ChunkTrail::new();
        assert_eq!(trail.new_from(&[]), Some(0), "nothing given: empty goes on");
        assert_eq!(trail.new_from(&[5, 6]), Some(0), "nothing given: all new");
        follow(&mut trail, &[1, 2, 3], &[]);
        let rows: &[(&[u64], Option<usize>, &str)] = &[
            (&[1, 2, 3], Some(3), "the same list: nothing new"),
            (&[1, 2, 3, 4], Some(3), "one more at the end"),
            (&[2, 3, 4], Some(2), "the oldest left out"),
            (&[3], Some(1), "only the last"),
            (&[], None, "empty after chunks were given"),
            (&[1, 3], None, "a chunk left out in the middle"),
            (&[1, 2], None, "the last chunk left out"),
            (&[2, 1, 3], None, "reordered"),
            (&[9, 1, 2, 3], None, "begins with a chunk never given"),
        ];
        for &(ids, want, why) in rows {
            assert_eq!(trail.new_from(ids), want, "{why}");
        }
    }

    #[test]
    fn a_list_never_goes_back_before_where_the_last_began() {
        let mut trail = ChunkTrail::new();
        follow(&mut trail, &[1, 2, 3], &[]);
        let s = follow(&mut trail, &[2, 3], &[]);
        assert!(s.moved);
        assert_eq!(trail.new_from(&[1, 2, 3]), None);
        assert_eq!(trail.new_from(&[2, 3, 4]), Some(2));
    }

    #[test]
    fn the_front_goes_once_it_is_half_the_trail() {
        let mut trail = ChunkTrail::new();
        follow(&mut trail, &[1, 2, 3, 4], &[]);
        // The list starts at 2: the line before it ends in 1, one chunk of four: kept.
        let s = follow(&mut trail, &[2, 3, 4], &[]);
        assert_eq!(
            s,
            Settled {
                moved: true,
                cut: 0
            }
        );
        // Starts at 4 (index 3): the line ends in 3 (index 2), two of four: let go.
        let s = follow(&mut trail, &[4], &[]);
        assert_eq!(
            s,
            Settled {
                moved: true,
                cut: 2
            }
        );
        assert_eq!((trail.cut(), trail.start(), trail.given.len()), (2, 1, 2));
        assert_eq!(trail.new_from(&[4, 5]), Some(1));
        let s = follow(&mut trail, &[4, 5], &[]);
        assert_eq!(
            s,
            Settled {
                moved: false,
                cut: 0
            }
        );
    }

    #[test]
    fn a_line_split_over_chunks_is_kept_whole() {
        let mut trail = ChunkTrail::new();
        // 1 and 2 end lines; 3 and 4 are the start of one line that 5 ends.
        follow(&mut trail, &[1, 2, 3, 4, 5], &[3, 4]);
        let s = follow(&mut trail, &[4, 5], &[]);
        // The line 4 is part of began after chunk 2 (index 1): only chunk 1 could go, and one
        // of five is under half.
        assert_eq!(
            s,
            Settled {
                moved: true,
                cut: 0
            }
        );
        assert_eq!(trail.replay_from(false), 1);
        assert_eq!(trail.replay_from(true), 4);
    }

    #[test]
    fn only_stdout_ends_a_line() {
        let mut trail = ChunkTrail::new();
        trail.give(1, Stream::Stdout, false);
        trail.give(2, Stream::Stdout, true);
        trail.give(3, Stream::Stderr, true);
        trail.give(4, Stream::System, true);
        trail.give(5, Stream::Stdout, false);
        assert_eq!(
            trail.replay_from(true),
            1,
            "the line after stdout 2 goes on"
        );
        trail.give(6, Stream::Stdout, true);
        assert_eq!(trail.replay_from(true), 5);
    }

    #[test]
    fn a_list_with_a_chunk_not_given_does_not_settle() {
        let mut trail = ChunkTrail::new();
        follow(&mut trail, &[1, 2], &[]);
        // 3 was refused by the builder (never given): the list is not settled.
        assert_eq!(trail.settle(&[1, 2, 3]), None);
        assert_eq!(trail.new_from(&[1, 2, 3]), Some(2));
    }
}
