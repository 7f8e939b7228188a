//! The watchdog's report (WASI, where the sandbox runs in the command's own thread): when a call
//! never returns (one native step the sandbox cannot interrupt), it adds the `unstoppable` check
//! to what is known, prints the report and exits.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::feed::Line;
use super::order::ordered;
use super::stopped::{skip_the_rest, unstoppable_check, Presentation};
use crate::error::EXIT_FAILED;
use crate::inspect::ModuleShape;
use crate::lines::preview;
use crate::report::{Check, Report};
use crate::watch::Watch;

/// What the watchdog's report is about.
pub(super) struct Subject {
    /// The parser file, as shown.
    pub(super) parser_name: String,
    /// `--strict`.
    pub(super) strict: bool,
    /// The module's shape.
    pub(super) shape: Option<ModuleShape>,
    /// The line budget, in milliseconds.
    pub(super) budget: f64,
}

/// Starts the watchdog over the checks in `shared`: a call running longer than `hang_limit`
/// ends the process with the report printed as `presentation` says. `lines` are every line the
/// check may feed, to show the one that hung.
pub(super) fn spawn_watchdog<'a>(
    hang_limit: Duration,
    shared: &Arc<Mutex<Vec<Check>>>,
    subject: Subject,
    lines: impl Iterator<Item = &'a Line>,
    presentation: Presentation,
) -> Watch {
    let shared = Arc::clone(shared);
    let Subject {
        parser_name,
        strict,
        shape,
        budget,
    } = subject;
    let lines: Vec<(String, String)> = lines
        .map(|l| (l.label.clone(), preview(&l.text, 100)))
        .collect();
    Watch::spawn(hang_limit, move |label, elapsed| {
        let mut checks = shared.lock().map(|c| c.clone()).unwrap_or_default();
        let text = lines
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, t)| t.clone())
            .unwrap_or_default();
        checks.push(unstoppable_check(label, text, elapsed.as_secs(), budget));
        skip_the_rest(&mut checks);
        let report = Report::new(parser_name.clone(), strict, shape.clone(), ordered(checks));
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(
            report
                .render(presentation.json, &presentation.painter)
                .as_bytes(),
        );
        let _ = out.flush();
        std::process::exit(i32::from(EXIT_FAILED));
    })
}
