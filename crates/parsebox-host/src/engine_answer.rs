//! An engine's answer to one line as it travels back to the core: JSON `[seq, outcome]`, or
//! `[seq, outcome, {"stateLost":true}]` when the line's run lost its parser's state before the
//! engine answered it (see [`EngineRuns::take_state_lost`](crate::EngineRuns::take_state_lost)).
//! A batch is a JSON array of them.

use std::fmt;

use parsebox_transcript::LineOutcome;
use serde::de::{Deserialize, Deserializer, Error, SeqAccess, Visitor};

use crate::{EngineId, Host, Seq};

/// One line's answer from an engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineAnswer {
    /// The line.
    pub seq: Seq,
    /// What its parser gave.
    pub outcome: LineOutcome,
    /// Its run's parser lost its state before answering it.
    pub state_lost: bool,
}

/// The third element of an answer.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Reports {
    #[serde(default)]
    state_lost: bool,
}

impl<'de> Deserialize<'de> for EngineAnswer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Answer;
        impl<'de> Visitor<'de> for Answer {
            type Value = EngineAnswer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("[seq, outcome] or [seq, outcome, {\"stateLost\": true}]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<EngineAnswer, A::Error> {
                let seq = a
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let outcome = a
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                let reports: Option<Reports> = a.next_element()?;
                if a.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(4, &self));
                }
                Ok(EngineAnswer {
                    seq,
                    outcome,
                    state_lost: reports.is_some_and(|r| r.state_lost),
                })
            }
        }
        d.deserialize_seq(Answer)
    }
}

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
                if a.state_lost {
                    self.handle_state_lost(engine, a.seq);
                }
                (a.seq, a.outcome)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_read_with_and_without_reports() {
        let batch: Vec<EngineAnswer> = serde_json::from_str(
            r#"[[1,{"Ok":[]}],[2,{"Ok":null},{"stateLost":true}],[3,{"Ok":null},{}]]"#,
        )
        .unwrap_or_default();
        let lost: Vec<(Seq, bool)> = batch.iter().map(|a| (a.seq, a.state_lost)).collect();
        assert_eq!(lost, vec![(1, false), (2, true), (3, false)]);
    }

    #[test]
    fn malformed_answers_are_refused() {
        for bad in [
            r#"[[1]]"#,
            r#"[[1,{"Ok":null},{"stateLost":true},4]]"#,
            r#"[[1,{"Ok":null},{"other":1}]]"#,
        ] {
            assert!(
                serde_json::from_str::<Vec<EngineAnswer>>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
