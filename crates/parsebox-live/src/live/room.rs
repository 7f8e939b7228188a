//! What waits for the page, in real bytes, and whether a builder's late answers still fit
//! its transcript's room; the frame's answers handed out.

use parsebox_host::{RunId, Seq};
use parsebox_transcript::TranscriptEntry;

use super::LiveCore;
use crate::executor::Executor;
use crate::frame::Frame;

impl<X: Executor> LiveCore<X> {
    /// The real bytes the core holds for no transcript: what waits for the page to take it
    /// (ops frames for Workers, late answers for builders, line updates for `onChange`), and
    /// the answers the registry remembers for a re-render
    /// ([`Host::memo_bytes`](parsebox_host::Host::memo_bytes)). A
    /// transcript's call that adds to them is not charged for it
    /// ([`LiveTranscript`](crate::LiveTranscript)'s memory); the late answers are charged to
    /// their run when its transcript folds them in.
    pub fn pending_bytes(&self) -> isize {
        let memo = isize::try_from(self.host.memo_bytes()).unwrap_or(isize::MAX);
        self.frames_bytes + self.frame.bytes() + memo
    }

    /// The real bytes of the late answers waiting for the builder of `run`.
    pub fn answers_waiting_bytes(&self, run: RunId) -> isize {
        self.frame.answers_bytes(run)
    }

    /// The builder of `run` may hold `room` bytes at most (what it said at the end of its last
    /// call).
    pub fn set_transcript_room(&mut self, run: RunId, room: usize) {
        self.rooms.insert(run, room);
    }

    /// Whether the answers waiting for the builder of `run` fit its transcript's room beside
    /// what it holds, and the core's room.
    pub(super) fn has_room_for_answers(&self, run: RunId) -> bool {
        let waiting = usize::try_from(self.frame.answers_bytes(run)).unwrap_or(0);
        let held = self.host.transcript_held(run);
        let room = self.rooms.get(&run).copied().unwrap_or(usize::MAX);
        held.saturating_add(waiting) <= room && crate::memory::core_room() > 0
    }

    /// What waits for this frame (a `frame` command asked for it).
    pub fn take_frame(&mut self) -> Frame {
        self.frame.take()
    }

    /// The late answers of builder run `run` to fold in at this frame, and whether more wait
    /// for the next one.
    pub fn take_answers(&mut self, run: RunId) -> (Vec<(Seq, Vec<TranscriptEntry>)>, bool) {
        self.frame.take_answers(run)
    }
}
