//! The behaviour checks: the lines fed through fresh runs (run A: the sample log or the
//! awkward lines, then reset() and the same lines again; run B: the same lines in a fresh run;
//! run C: the awkward lines in their own run), each check pushed as soon as it is known.

use std::sync::Mutex;

use super::determinism::{determinism_check, reset_replay_check};
use super::feed::{Answer, Line};
use super::line_checks::{entries_check, failures_check};
use super::order::BEHAVIOUR_CHECKS;
use super::runs::{Runs, Stuck};
use super::stopped::{skip_the_rest, unstoppable_check};
use crate::native::lines::preview;
use crate::native::report::{Check, Status};

/// What the behaviour checks need besides the runs.
pub(super) struct Inputs<'a> {
    /// The sample log's lines, if one was given.
    pub(super) sample: Option<&'a [Line]>,
    /// The awkward lines.
    pub(super) awkward: &'a [Line],
    /// Examples shown per check.
    pub(super) max: usize,
    /// The parser answers through `parseStdoutLine`.
    pub(super) stateless: bool,
    /// The line budget, in milliseconds (for the report of a stuck line).
    pub(super) budget: f64,
    /// How long a stuck line ran before it was ended, in seconds (for its report).
    pub(super) stuck_secs: u64,
}

/// Feeds the lines through fresh runs and pushes each behaviour check to `shared` as soon as it
/// is known (so a hang later still reports it). A line stuck in one native step stops the
/// checks there: its `unstoppable` check is pushed and the rest are skipped.
pub(super) fn behaviour<R: Runs>(runs: &mut R, inputs: &Inputs<'_>, shared: &Mutex<Vec<Check>>) {
    if let Err(stuck) = checks(runs, inputs, shared) {
        let lines = inputs.sample.into_iter().flatten().chain(inputs.awkward);
        let text = lines
            .into_iter()
            .find(|l| l.label == stuck.label)
            .map(|l| preview(&l.text, 100))
            .unwrap_or_default();
        if let Ok(mut checks) = shared.lock() {
            let check = unstoppable_check(&stuck.label, text, inputs.stuck_secs, inputs.budget);
            checks.push(check);
            skip_the_rest(&mut checks);
        }
    }
}

fn checks<R: Runs>(
    runs: &mut R,
    inputs: &Inputs<'_>,
    shared: &Mutex<Vec<Check>>,
) -> Result<(), Stuck> {
    let &Inputs {
        sample,
        awkward,
        max,
        stateless,
        ..
    } = inputs;
    let push = |c: Check| {
        if let Ok(mut checks) = shared.lock() {
            checks.push(c);
        }
    };
    // The determinism input: the sample log, or the awkward lines without one.
    let det_lines = sample.unwrap_or(awkward);
    let det_what = if sample.is_some() {
        "the sample log"
    } else {
        "the awkward lines"
    };

    // Run A: the input; then reset() and the input again in the same run.
    let mut run_a = match runs.start(det_what) {
        Ok(r) => r,
        Err(m) => {
            for (id, title) in BEHAVIOUR_CHECKS {
                push(Check::new(id, title, Status::Fail, m.clone()));
            }
            return Ok(());
        }
    };
    let first = runs.feed_all(&mut run_a, det_lines)?;
    match sample {
        Some(lines) => push(failures_check(
            "sample_log",
            "sample log",
            lines,
            &first,
            max,
        )),
        None => {
            push(Check::new(
                "sample_log",
                "sample log",
                Status::Skip,
                "no --log given".into(),
            ));
            push(failures_check(
                "awkward_lines",
                "awkward lines",
                awkward,
                &first,
                max,
            ));
        }
    }
    let again = match runs.reset(&mut run_a) {
        Ok(()) => Ok(runs.feed_all(&mut run_a, det_lines)?),
        Err(f) => Err(f),
    };
    push(reset_replay_check(
        det_what, det_lines, &first, again, stateless, max,
    ));
    runs.end(run_a);

    // Run B: the input in a fresh run.
    let fresh = fresh_pass(runs, det_what, det_lines)?;
    push(determinism_check(det_what, det_lines, &first, fresh, max));

    // Run C: the awkward lines in their own fresh run (already done without a sample log).
    let mut all_fed: Vec<(&Line, &Answer)> = Vec::new();
    let awkward_answers = match sample {
        Some(lines) => {
            all_fed.extend(lines.iter().zip(&first));
            match fresh_pass(runs, "awkward lines", awkward)? {
                Ok(answers) => {
                    push(failures_check(
                        "awkward_lines",
                        "awkward lines",
                        awkward,
                        &answers,
                        max,
                    ));
                    Some(answers)
                }
                Err(m) => {
                    push(Check::new(
                        "awkward_lines",
                        "awkward lines",
                        Status::Fail,
                        m,
                    ));
                    None
                }
            }
        }
        None => None,
    };
    match (&awkward_answers, sample) {
        (Some(answers), _) => all_fed.extend(awkward.iter().zip(answers)),
        (None, None) => all_fed.extend(awkward.iter().zip(&first)),
        (None, Some(_)) => {}
    }
    push(entries_check(&all_fed, max));
    Ok(())
}

/// `lines` through a fresh run of their own (`what` names them), let go after: their answers,
/// or why the run could not start; the line that got stuck stops the checks.
fn fresh_pass<R: Runs>(
    runs: &mut R,
    what: &str,
    lines: &[Line],
) -> Result<Result<Vec<Answer>, String>, Stuck> {
    let mut run = match runs.start(what) {
        Ok(r) => r,
        Err(m) => return Ok(Err(m)),
    };
    let answers = runs.feed_all(&mut run, lines);
    runs.end(run);
    Ok(Ok(answers?))
}
