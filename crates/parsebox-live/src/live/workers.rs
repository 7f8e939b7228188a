//! Worker engines: their ops frames, posted as one message per engine, and the events the
//! JS driver reports of them (started, began a line, progress, answers, died), each answer
//! read with the real bytes it holds.

use parsebox_host::{wire, EngineAnswer, EngineId, EngineOp, LoadError, Seq, Started};
use parsebox_meter::Meter;

use super::{malformed, LiveCore, Queued};
use crate::command::ExecutorCommand;
use crate::executor::{EngineDeath, Executor};

impl<X: Executor> LiveCore<X> {
    /// Adds `ops` to the Worker's pending frame: every send to one engine until the JS
    /// executor takes the frame ([`LiveCore::take_ops`]) travels as one message, unless the
    /// frame grows past [`wire::post_now`]'s size first: then it is posted at once. A frame
    /// posted early stays in `frames`, empty, until its `send` is performed: the `send`
    /// already queued carries whatever comes after it.
    pub(super) fn send_to_worker(&mut self, engine: EngineId, ops: Vec<EngineOp>) {
        if !self.frames.contains_key(&engine) {
            self.command(ExecutorCommand::Send { engine: engine.0 });
        }
        let frame = self.frames.entry(engine).or_default();
        let before = buffer_bytes(frame);
        wire::encode_ops(&ops, frame);
        self.frames_bytes += buffer_bytes(frame) - before;
        if wire::post_now(frame.len()) {
            let frame = std::mem::take(frame);
            self.frames_bytes -= buffer_bytes(&frame);
            // Posting is a message to a Worker: it cannot fail in a way the core could act on
            // (a Worker that is gone reports itself through its error event).
            self.executor.post_ops(engine, frame);
        }
    }

    /// The ops frame waiting for Worker `engine` (empty when there is none, or the engine
    /// ended before its `send` was performed).
    pub fn take_ops(&mut self, engine: EngineId) -> Vec<u8> {
        let frame = self.frames.remove(&engine).unwrap_or_default();
        self.frames_bytes -= buffer_bytes(&frame);
        frame
    }

    /// A Worker engine reported its start: JSON `{"Ok": started}` (`{ entryPoint, module }`) or
    /// `{"Err": loadError}`.
    /// A report that is not either is the engine's fault: the type fails to start with an
    /// `engine_fault` load error.
    pub fn worker_started(&mut self, engine: EngineId, report_json: &str) {
        let result: Result<Started, LoadError> =
            serde_json::from_str(report_json).unwrap_or_else(|e| {
                Err(LoadError::new(
                    "engine_fault",
                    format!("malformed start report: {e}"),
                ))
            });
        let now = self.executor.now_ms();
        self.host.handle_engine_started(now, engine, result);
        self.pump();
    }

    /// A Worker engine is starting line `seq`: its deadline is armed from now. Returns when the
    /// timer fires next (`None`: no deadline is armed). A `began` leads to no command: the page
    /// re-arms its timer and does nothing else.
    pub fn worker_began(&mut self, engine: EngineId, seq: Seq) -> Option<f64> {
        let now = self.executor.now_ms();
        self.host.handle_began(now, engine, seq);
        self.host.poll_timeout()
    }

    /// A Worker engine's count of work moved on while it works on a line: its deadline moves
    /// ([`Host::handle_progress`](parsebox_host::Host::handle_progress)). Returns when the timer fires next.
    pub fn worker_progress(&mut self, engine: EngineId) -> Option<f64> {
        let now = self.executor.now_ms();
        self.host.handle_progress(now, engine);
        self.host.poll_timeout()
    }

    /// A Worker engine's answers: the batches it posted since the last, each JSON
    /// `[[seq, outcome, reports?], …]`, in order. A malformed batch is the engine's fault: it
    /// is treated as the engine dying (its owed line falls back, a new engine replays).
    pub fn worker_answered<S: AsRef<str>>(&mut self, engine: EngineId, batches: &[S]) {
        let now = self.executor.now_ms();
        // Each answer is read on its own, so the bytes it holds are known: it waits with them
        // until its transcript takes it ([`pending_bytes`](Self::pending_bytes)).
        let mut answers = Vec::new();
        for batch in batches {
            let mut de = serde_json::Deserializer::from_str(batch.as_ref());
            let read =
                serde::de::DeserializeSeed::deserialize(MeteredAnswers(&mut answers), &mut de)
                    .and_then(|()| de.end());
            if let Err(e) = read {
                let _ = self.host.handle_engine_died(now, engine, &malformed(e));
                self.pump();
                return;
            }
        }
        for (answer, read_bytes) in answers {
            let meter = Meter::start();
            let pending = self.pending_bytes();
            self.queued = None;
            let answer = self.host.take_engine_answers(engine, vec![answer]);
            let _ = self.host.handle_answers(now, engine, answer);
            self.pump();
            // What the answer holds now: read, settled and queued, less what it let go of (its
            // line's copy in flight), less what else the pump left waiting (an ops frame).
            let held = read_bytes + meter.held() - (self.pending_bytes() - pending);
            match self.queued.take() {
                Some(Queued::Answer(run, seq)) => {
                    self.frame.charge_answer(run, seq, held);
                    if !self.has_room_for_answers(run) {
                        // Past its transcript's budget, or the core's: the line keeps its
                        // generic entry, and the answer is let go of now.
                        drop(self.frame.drop_answer(run, seq));
                        self.host.record_over_budget(run, 1);
                    }
                }
                Some(Queued::Line) => self.frame.charge_lines(held),
                None => {}
            }
        }
    }

    /// A Worker engine died, as `death` says ([`EngineDeath::classify`] reads what the Worker
    /// reported, as the binding reads what an engine of this thread threw).
    pub fn worker_died(&mut self, engine: EngineId, death: EngineDeath) {
        let now = self.executor.now_ms();
        let _ = self.engine_died(now, engine, death);
        self.pump();
    }
}

/// The real bytes of a byte buffer's block ([`parsebox_meter::buffer_bytes`]), signed as the
/// frames' count is.
fn buffer_bytes(buffer: &Vec<u8>) -> isize {
    isize::try_from(parsebox_meter::buffer_bytes(buffer.capacity())).unwrap_or(isize::MAX)
}

/// Reads a batch of answers, `[[seq, outcome, reports?], …]`, one answer at a time, each with
/// the bytes reading it left held.
struct MeteredAnswers<'a>(&'a mut Vec<(EngineAnswer, isize)>);

impl<'de> serde::de::DeserializeSeed<'de> for MeteredAnswers<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for MeteredAnswers<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of answers")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let meter = Meter::start();
            let Some(answer) = seq.next_element::<EngineAnswer>()? else {
                return Ok(());
            };
            let held = meter.held();
            self.0.push((answer, held));
        }
    }
}
