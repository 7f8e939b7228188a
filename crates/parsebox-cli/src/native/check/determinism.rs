//! The determinism checks: two passes over the same lines must give the same entries (a
//! fresh run, and the same run after `reset()`); budget overruns are timing, not behaviour, and
//! are not compared.

use parsebox_transcript::LineFailure;

use super::feed::{Answer, Line, Outcome};
use crate::native::lines::preview;
use crate::native::report::{plural, Check, Status};

/// "reset + replay": `again` is the second pass over `det_lines` (`det_what`) in the run that
/// gave `first`, after `reset()`, or how `reset()` failed. `stateless`: the parser is driven
/// through `parseStdoutLine`.
pub(super) fn reset_replay_check(
    det_what: &str,
    det_lines: &[Line],
    first: &[Answer],
    again: Result<Vec<Answer>, LineFailure>,
    stateless: bool,
    max: usize,
) -> Check {
    match again {
        Err(f) => Check::new(
            "reset_replay",
            "reset + replay",
            Status::Fail,
            format!("reset() failed: {f}"),
        ),
        Ok(again) => match compare(det_lines, first, &again, max) {
            None => Check::new(
                "reset_replay",
                "reset + replay",
                Status::Pass,
                format!("{det_what} again after reset() in the same run gives the same entries"),
            ),
            Some((n, mut details)) => {
                details.push(if stateless {
                        "parseStdoutLine is called directly for the whole run, so module-level state (counters, \
                         buffers) carries over when Paperclip rebuilds the transcript; ids then change on every \
                         rebuild. Keep per-run state in createStdoutParser() and clear it in reset()."
                            .to_owned()
                    } else {
                        "reset() does not bring the parser back to its initial state (module-level counters, \
                         Math.random() ids or state it forgets to clear), so a rebuilt transcript differs from \
                         the first one"
                            .to_owned()
                    });
                Check::new(
                    "reset_replay",
                    "reset + replay",
                    Status::Warn,
                    format!(
                        "{det_what} again after reset() in the same run differs on {n} line{}",
                        plural(n)
                    ),
                )
                .with_details(details)
            }
        },
    }
}

/// "determinism": `fresh` is the pass over `det_lines` (`det_what`) in a second fresh run, or
/// why that run could not start.
pub(super) fn determinism_check(
    det_what: &str,
    det_lines: &[Line],
    first: &[Answer],
    fresh: Result<Vec<Answer>, String>,
    max: usize,
) -> Check {
    match fresh {
        Err(m) => Check::new("determinism", "determinism", Status::Fail, m),
        Ok(fresh) => match compare(det_lines, first, &fresh, max) {
            None => Check::new(
                "determinism",
                "determinism",
                Status::Pass,
                format!("two fresh runs over {det_what} give the same entries"),
            ),
            Some((n, details)) => Check::new(
                "determinism",
                "determinism",
                Status::Fail,
                format!(
                    "two fresh runs over {det_what} disagree on {n} line{}",
                    plural(n)
                ),
            )
            .with_details(details),
        },
    }
}

/// Compares two passes over `lines`; `None` when they agree. Lines where either pass ran over
/// its budget are not compared (timing is not behaviour).
fn compare(lines: &[Line], a: &[Answer], b: &[Answer], max: usize) -> Option<(usize, Vec<String>)> {
    let mut differing = 0;
    let mut details = Vec::new();
    for ((line, x), y) in lines.iter().zip(a).zip(b) {
        if x.outcome.is_timing() || y.outcome.is_timing() || x.outcome == y.outcome {
            continue;
        }
        differing += 1;
        if details.len() < max {
            details.push(format!(
                "{}: {}\nfirst:  {}\nsecond: {}",
                line.label,
                preview(&line.text, 100),
                show_outcome(&x.outcome),
                show_outcome(&y.outcome)
            ));
        }
    }
    if differing > max {
        details.push(format!("… and {} more", differing - max));
    }
    (differing > 0).then_some((differing, details))
}

/// One pass's outcome for a line, shortened for the report.
fn show_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Entries(e) => preview(&serde_json::to_string(e).unwrap_or_default(), 240),
        Outcome::Failed(f) => format!("failed ({f})"),
    }
}
