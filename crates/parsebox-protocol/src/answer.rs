//! An engine's answer to one line as it travels back to the core: JSON `[seq, outcome]`, or
//! `[seq, outcome, reports]` ([`EngineReports`]) when the engine has something to say of the
//! line besides its outcome ([`EngineRuns::take_reports`](crate::EngineRuns::take_reports)). A
//! batch is a JSON array of them. The core reads them with `Host::take_engine_answers`.

use std::fmt;

use parsebox_transcript::LineOutcome;
use serde::de::{Deserialize, Deserializer, Error, SeqAccess, Visitor};

use crate::Seq;

/// One line's answer from an engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineAnswer {
    /// The line.
    pub seq: Seq,
    /// What its parser gave.
    pub outcome: LineOutcome,
    /// What the engine reports of the line besides its outcome.
    pub reports: EngineReports,
}

/// What an engine reports about one line besides its outcome: the third element of an
/// answer, written by the engine and read by the core (this one type on both sides).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineReports {
    /// The line's run lost its parser's state before the engine answered it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub state_lost: bool,
    /// Milliseconds the engine spent on realm work of its own (a new run's realm, a recovery
    /// after a failed line) before the line.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub work_ms: f64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(ms: &f64) -> bool {
    *ms == 0.0
}

impl EngineReports {
    /// Nothing to report: the answer is then written without a third element.
    pub fn is_empty(&self) -> bool {
        *self == EngineReports::default()
    }
}

impl<'de> Deserialize<'de> for EngineAnswer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Answer;
        impl<'de> Visitor<'de> for Answer {
            type Value = EngineAnswer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "[seq, outcome] or [seq, outcome, {\"stateLost\"?: bool, \"workMs\"?: number}]",
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<EngineAnswer, A::Error> {
                let seq = a
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let outcome = a
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                let reports: EngineReports = a.next_element()?.unwrap_or_default();
                if a.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(4, &self));
                }
                Ok(EngineAnswer {
                    seq,
                    outcome,
                    reports,
                })
            }
        }
        d.deserialize_seq(Answer)
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
        let lost: Vec<(Seq, bool)> = batch
            .iter()
            .map(|a| (a.seq, a.reports.state_lost))
            .collect();
        assert_eq!(lost, vec![(1, false), (2, true), (3, false)]);
        let timed: Vec<EngineAnswer> =
            serde_json::from_str(r#"[[4,{"Ok":null},{"workMs":12.5}]]"#).unwrap_or_default();
        assert_eq!(timed.first().map(|a| a.reports.work_ms), Some(12.5));
    }

    #[test]
    fn reports_are_written_as_they_are_read_and_left_out_when_empty() {
        let lost = EngineReports {
            state_lost: true,
            work_ms: 0.0,
        };
        assert_eq!(
            serde_json::to_string(&lost).unwrap_or_default(),
            r#"{"stateLost":true}"#
        );
        let both = EngineReports {
            state_lost: true,
            work_ms: 3.5,
        };
        let text = serde_json::to_string(&both).unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<EngineReports>(&text).ok(),
            Some(both)
        );
        assert!(EngineReports::default().is_empty());
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
