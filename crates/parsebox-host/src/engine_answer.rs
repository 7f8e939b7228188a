//! The core's side of an engine's answers ([`EngineAnswer`], `parsebox-protocol`): what they
//! report besides their outcomes is recorded before the outcomes go on.

use parsebox_transcript::LineOutcome;

use crate::{EngineAnswer, EngineId, Host, Seq};

impl Host {
    /// Takes a batch of `engine`'s answers as they arrived: records what they report besides
    /// their outcomes ([`Host::handle_state_lost`]), and returns the outcomes for
    /// [`handle_answers`](Host::handle_answers) or
    /// [`handle_inline_answers`](Host::handle_inline_answers).
    pub fn take_engine_answers(
        &mut self,
        engine: EngineId,
        answers: Vec<EngineAnswer>,
    ) -> Vec<(Seq, LineOutcome)> {
        answers
            .into_iter()
            .map(|a| {
                if a.reports.state_lost {
                    self.handle_state_lost(engine, a.seq);
                }
                if let Some(e) = self.engines.get_mut(&engine) {
                    e.work_ms += a.reports.work_ms.max(0.0);
                }
                (a.seq, a.outcome)
            })
            .collect()
    }
}
