//! The conformance report: a list of checks with a status, a one-line summary and details,
//! rendered as text for a person or as JSON for a script.

use serde::Serialize;

use crate::native::inspect::ModuleShape;
use crate::native::style::{Painter, Style};

/// The outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The parser meets this part of the contract.
    Pass,
    /// Allowed, but worth fixing; fails only under `--strict`.
    Warn,
    /// The parser does not meet this part of the contract.
    Fail,
    /// Not checked (no input for it, or an earlier failure made it impossible).
    Skip,
}

/// One check of the report.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Stable identifier, e.g. `sample_log`.
    pub id: &'static str,
    /// Short title for the text report.
    pub title: &'static str,
    /// The outcome.
    pub status: Status,
    /// One sentence: what was found.
    pub summary: String,
    /// Examples and explanations (invalid entries with their reason, failing lines, …).
    pub details: Vec<String>,
}

impl Check {
    /// A check without details.
    pub fn new(id: &'static str, title: &'static str, status: Status, summary: String) -> Self {
        Self {
            id,
            title,
            status,
            summary,
            details: Vec::new(),
        }
    }

    /// Adds details.
    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// The whole report of `parsebox check`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The parser file, as given.
    pub parser: String,
    /// `true` when the exit code is 0: no failure (and no warning under `--strict`).
    pub passed: bool,
    /// Whether warnings count as failures.
    pub strict: bool,
    /// Shape and exports, when the module loaded.
    pub module: Option<ModuleShape>,
    /// Every check, in report order.
    pub checks: Vec<Check>,
}

impl Report {
    /// A report over `checks`; `passed` is derived from their statuses.
    pub fn new(
        parser: String,
        strict: bool,
        module: Option<ModuleShape>,
        checks: Vec<Check>,
    ) -> Self {
        let passed = checks.iter().all(|c| match c.status {
            Status::Pass | Status::Skip => true,
            Status::Warn => !strict,
            Status::Fail => false,
        });
        Self {
            parser,
            passed,
            strict,
            module,
            checks,
        }
    }

    fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }

    /// The report as `--json` or text.
    pub fn render(&self, json: bool, p: &Painter) -> String {
        if json {
            let mut s = serde_json::to_string_pretty(self)
                .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
            s.push('\n');
            s
        } else {
            self.to_text(p)
        }
    }

    /// The text report.
    pub fn to_text(&self, p: &Painter) -> String {
        let mut out = format!(
            "{} {}\n\n",
            p.paint(Style::Bold, "parsebox check"),
            p.paint(Style::Plain, &self.parser)
        );
        let width = self
            .checks
            .iter()
            .map(|c| c.title.chars().count())
            .max()
            .unwrap_or(0);
        for c in &self.checks {
            let (mark, style) = match c.status {
                Status::Pass => ("✓", Style::Green),
                Status::Warn => ("!", Style::Yellow),
                Status::Fail => ("✗", Style::Red),
                Status::Skip => ("-", Style::Gray),
            };
            let pad = " ".repeat(width.saturating_sub(c.title.chars().count()));
            let summary_style = if c.status == Status::Skip {
                Style::Gray
            } else {
                Style::Plain
            };
            out.push_str(&format!(
                "  {} {}{pad}  {}\n",
                p.paint(style, mark),
                p.paint(Style::Bold, c.title),
                p.paint(summary_style, &c.summary)
            ));
            for d in &c.details {
                let indent = " ".repeat(width + 6);
                let d = d.replace('\n', &format!("\n{indent}  "));
                out.push_str(&format!(
                    "{indent}{}\n",
                    p.paint(Style::Gray, &format!("· {d}"))
                ));
            }
        }
        let (pass, warn, fail, skip) = (
            self.count(Status::Pass),
            self.count(Status::Warn),
            self.count(Status::Fail),
            self.count(Status::Skip),
        );
        let mut tally = vec![format!("{pass} passed")];
        if fail > 0 {
            tally.push(format!("{fail} failed"));
        }
        if warn > 0 {
            tally.push(format!(
                "{warn} warning{}{}",
                plural(warn),
                if self.strict {
                    " (--strict: failing)"
                } else {
                    ""
                }
            ));
        }
        if skip > 0 {
            tally.push(format!("{skip} skipped"));
        }
        let verdict = if self.passed {
            p.paint(Style::Green, "PASS")
        } else {
            p.paint(Style::Red, "FAIL")
        };
        out.push_str(&format!("\n{verdict}: {}\n", tally.join(", ")));
        out
    }
}

/// `"s"` unless `n == 1`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
