//! The report of a check stopped at a line stuck in one native step: the `unstoppable` check,
//! and the behaviour checks it did not reach.

use super::order::BEHAVIOUR_CHECKS;
use crate::native::report::{Check, Status};

/// The `unstoppable` check: the parser ran `secs` seconds on the line `label` (`text`, a
/// preview) in one native step, and the check stopped there.
pub(super) fn unstoppable_check(label: &str, text: String, secs: u64, budget: f64) -> Check {
    Check::new(
        "unstoppable",
        "unstoppable line",
        Status::Fail,
        format!(
            "the parser has run for {secs} s on {label} (budget {budget} ms) and the sandbox cannot \
             interrupt it: check aborted"
        ),
    )
    .with_details(vec![
        text,
        "one native operation (a regex, split or replace over a long line, JSON.parse, building a \
         huge string) runs to its end inside this command's engine; in the page the engine stops \
         it at the line's deadline and the line falls back alone, after the page waited that long"
            .into(),
        "bound the work per line: e.g. hand very long lines back as plain stdout before running \
         regexes over them"
            .into(),
    ])
}

/// The behaviour checks not reached when the check stopped, each skipped.
pub(super) fn skip_the_rest(checks: &mut Vec<Check>) {
    for (id, title) in BEHAVIOUR_CHECKS {
        if !checks.iter().any(|c| c.id == id) {
            checks.push(Check::new(
                id,
                title,
                Status::Skip,
                "not run: the check was aborted".into(),
            ));
        }
    }
}
