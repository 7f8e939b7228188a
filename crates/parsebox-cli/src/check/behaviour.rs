//! The behaviour checks: the lines fed through fresh runs (run A: the sample log or the
//! awkward lines, then reset() and the same lines again; run B: the same lines in a fresh run;
//! run C: the awkward lines in their own run), each check pushed as soon as it is known.

use std::sync::Mutex;

use parsebox_sandbox::{EntryPoint, ParserModule, SandboxOptions};

use super::determinism::{determinism_check, reset_replay_check};
use super::feed::{feed_all, Answer, Line};
use super::line_checks::{entries_check, failures_check};
use super::load::describe_load_error;
use super::order::BEHAVIOUR_CHECKS;
use crate::report::{Check, Status};
use crate::watch::Watch;

/// Feeds the lines through fresh runs and pushes each behaviour check to `shared` as soon as it
/// is known (so a hang later still reports it).
pub(super) fn behaviour(
    module: &ParserModule,
    options: &SandboxOptions,
    sample: Option<&[Line]>,
    awkward: &[Line],
    max: usize,
    watch: &Watch,
    shared: &Mutex<Vec<Check>>,
) {
    let push = |c: Check| {
        if let Ok(mut checks) = shared.lock() {
            checks.push(c);
        }
    };
    let start_run = |what: &str| {
        module.new_run().map_err(|e| {
            format!(
                "could not start a fresh run for the {what}: {}",
                describe_load_error(&e)
            )
        })
    };
    // The determinism input: the sample log, or the awkward lines without one.
    let det_lines = sample.unwrap_or(awkward);
    let det_what = if sample.is_some() {
        "the sample log"
    } else {
        "the awkward lines"
    };

    // Run A: the input; then reset() and the input again in the same run.
    let mut run_a = match start_run(det_what) {
        Ok(r) => r,
        Err(m) => {
            for (id, title) in BEHAVIOUR_CHECKS {
                push(Check::new(id, title, Status::Fail, m.clone()));
            }
            return;
        }
    };
    let first = feed_all(&mut run_a, det_lines, options, watch);
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
    let stateless = module.entry_point() == EntryPoint::ParseStdoutLine;
    let again = run_a
        .reset()
        .map(|()| feed_all(&mut run_a, det_lines, options, watch));
    push(reset_replay_check(
        det_what, det_lines, &first, again, stateless, max,
    ));
    drop(run_a);

    // Run B: the input in a fresh run.
    let fresh = start_run(det_what).map(|mut r| feed_all(&mut r, det_lines, options, watch));
    push(determinism_check(det_what, det_lines, &first, fresh, max));

    // Run C: the awkward lines in their own fresh run (already done without a sample log).
    let mut all_fed: Vec<(&Line, &Answer)> = Vec::new();
    let awkward_answers = match sample {
        Some(lines) => {
            all_fed.extend(lines.iter().zip(&first));
            match start_run("awkward lines").map(|mut r| feed_all(&mut r, awkward, options, watch))
            {
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
}
