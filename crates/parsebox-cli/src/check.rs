//! `parsebox check`: the conformance report of issue 8.
//!
//! Size, imports and load come from [`ParserModule::load`] (with the size limit lifted so that
//! an oversized file still gets every other check); the package checks from
//! [`crate::package`]; everything else from feeding lines to fresh [`ParserRun`]s exactly as the
//! registry would, and validating every returned entry with `parsebox_transcript`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parsebox_sandbox::{
    check_budget_ms, EntryPoint, LoadError, ParserModule, ParserRun, SandboxOptions,
};
use parsebox_transcript::{
    settle_line, validate_entry, EntryLimits, FailureCode, LineFailure, Rejection, TranscriptEntry,
};
use serde_json::Value;

use crate::awkward::awkward_lines;
use crate::cli::CheckArgs;
use crate::error::{CliError, EXIT_FAILED};
use crate::inspect::{inspect, ModuleShape};
use crate::lines::{fed_lines, line_ts, preview};
use crate::package::check_package;
use crate::report::{plural, Check, Report, Status};
use crate::style::Painter;
use crate::watch::{overran, Watch};

/// One line fed to a parser, labelled for the report.
#[derive(Clone, Debug)]
struct Line {
    /// "line 12" or "awkward: ANSI colour codes".
    label: String,
    text: String,
    ts: String,
}

/// What a parser made of one line.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// Valid entries (invalid ones are in [`Answer::invalid`]).
    Entries(Vec<TranscriptEntry>),
    /// The line failed: it would fall back to the generic parser.
    Failed(LineFailure),
}

#[derive(Clone, Debug)]
struct Answer {
    outcome: Outcome,
    /// Entries dropped by validation, with a preview of each.
    invalid: Vec<(Rejection, String)>,
}

impl Outcome {
    /// Budget overruns depend on the machine's load: they are reported, never compared.
    fn is_timing(&self) -> bool {
        matches!(self, Self::Failed(f) if f.code.is_overrun())
    }
}

/// Feeds one line exactly as the registry does — the raw outcome through the one line rule
/// ([`settle_line`]), and a stateful parser reset before the next line when the rule says so —
/// but keeps the raw value of every entry that validation drops (so the report can show it),
/// and times the call under the watchdog: a call that returned long after its budget ran one
/// native step the sandbox could not interrupt, and counts as a budget overrun.
fn feed(
    run: &mut ParserRun,
    line: &Line,
    options: &SandboxOptions,
    watch: &Watch,
    reset_owed: &mut bool,
) -> Answer {
    if std::mem::take(reset_owed) {
        // A reset that fails shows on the next line as that line's failure, as in the UI.
        let _ = run.reset();
    }
    watch.begin(line.label.clone());
    let raw = run.parse_line_raw(&line.text, &line.ts);
    let elapsed = watch.end();
    let raw = match raw {
        // Stopped (or answered) only long after the deadline: a native step ran past it first.
        Ok(_)
        | Err(LineFailure {
            code: FailureCode::BudgetExceeded,
            ..
        }) if overran(elapsed, options.line_budget_ms) => Err(LineFailure::new(
            FailureCode::BudgetExceeded,
            uninterruptible(elapsed, options.line_budget_ms),
        )),
        other => other,
    };
    let limits = &options.entry_limits;
    let returned = raw.as_ref().ok().cloned();
    let settled = settle_line(&line.text, &line.ts, raw, limits);
    *reset_owed = settled.resets_parser();
    let invalid = match returned {
        Some(value) if !settled.dropped.is_empty() => invalid_entries(value, limits),
        _ => Vec::new(),
    };
    let outcome = match settled.fallback {
        // The line ran to completion; its entries were all invalid (listed in `invalid`), so
        // the UI shows the line itself.
        Some(f) if f.code != FailureCode::AllEntriesInvalid => Outcome::Failed(f),
        _ => Outcome::Entries(settled.entries),
    };
    Answer { outcome, invalid }
}

/// The message for a call that overran its budget in one uninterruptible native step.
pub fn uninterruptible(elapsed: Duration, budget_ms: f64) -> String {
    format!(
        "took {} ms, over the {budget_ms} ms budget, in one native operation the sandbox cannot \
         interrupt (a regex, split or replace over a long line, JSON.parse, building a huge \
         string); in the browser the page freezes until the Worker host kills the parser",
        elapsed.as_millis()
    )
}

/// The dropped entries of a return value, each with its reason and a preview.
fn invalid_entries(value: Value, limits: &EntryLimits) -> Vec<(Rejection, String)> {
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let shown = preview(&item.to_string(), 160);
        if i >= limits.max_entries_per_line {
            out.push((
                Rejection::TooManyEntries {
                    max: limits.max_entries_per_line,
                },
                shown,
            ));
        } else if let Err(why) = validate_entry(item, limits) {
            out.push((why, shown));
        }
    }
    out
}

/// Feeds `lines` in order to `run`.
fn feed_all(
    run: &mut ParserRun,
    lines: &[Line],
    options: &SandboxOptions,
    watch: &Watch,
) -> Vec<Answer> {
    let mut reset_owed = false;
    lines
        .iter()
        .map(|l| feed(run, l, options, watch, &mut reset_owed))
        .collect()
}

/// The options the user asked for.
pub fn sandbox_options(args: &crate::cli::SandboxArgs) -> Result<SandboxOptions, CliError> {
    let mut o = SandboxOptions::default();
    for (flag, v) in [
        ("--line-budget-ms", args.line_budget_ms),
        ("--init-budget-ms", args.init_budget_ms),
    ] {
        if let Some(ms) = v {
            check_budget_ms(flag, ms).map_err(CliError::Input)?;
        }
    }
    if let Some(ms) = args.line_budget_ms {
        o.line_budget_ms = ms;
    }
    if let Some(ms) = args.init_budget_ms {
        o.init_budget_ms = ms;
    }
    if let Some(b) = args.max_source_bytes {
        o.max_source_bytes = b;
    }
    Ok(o)
}

/// A load error as one line: code, message, and where in the source when known.
pub fn describe_load_error(e: &LoadError) -> String {
    let mut s = format!("{}: {}", e.code, e.message);
    if let (Some(l), Some(c)) = (e.line, e.column) {
        if !e.message.contains(&format!("{l}:{c}")) {
            s.push_str(&format!(" (at {l}:{c})"));
        }
    }
    s
}

/// What to do about a load error, for the report.
fn load_hint(code: &str) -> Option<&'static str> {
    Some(match code {
        "syntax_error" => "the file must parse as an ES2023 script or module",
        "no_export" => "export createStdoutParser() (stateful) and/or parseStdoutLine(line, ts) (stateless)",
        "bad_factory" => "createStdoutParser() must return an object with parseLine(line, ts) and reset()",
        "top_level_await" => "a ui-parser is evaluated synchronously: move the await into a function",
        "unsafe_regex" => "rewrite the regex without nested or overlapping quantifiers",
        "init_threw" => "module evaluation and createStdoutParser() may not throw; they run with no host globals",
        "init_budget_exceeded" => "module evaluation plus createStdoutParser() must finish within the init budget",
        "unsupported_module" => "the ES module could not be rewritten for the sandbox; please report this file",
        _ => return None,
    })
}

fn read_text(path: &Path) -> Result<(String, bool), CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::read(path, &e))?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok((s, true)),
        Err(e) => Ok((String::from_utf8_lossy(e.as_bytes()).into_owned(), false)),
    }
}

/// How `run_check` prints a report the watchdog has to produce on its own.
pub struct Presentation {
    /// `--json`.
    pub json: bool,
    /// Colour for the text report.
    pub painter: Painter,
}

/// Runs every check.
///
/// # Errors
/// A [`CliError::Input`] when the parser, package.json or log cannot be read.
pub fn run_check(args: &CheckArgs, presentation: Presentation) -> Result<Report, CliError> {
    let options = sandbox_options(&args.sandbox)?;
    let (source, utf8) = read_text(&args.parser)?;
    let package = match &args.package {
        None => None,
        Some(p) => {
            let (text, _) = read_text(p)?;
            Some((p, serde_json::from_str::<Value>(&text)))
        }
    };
    let log = match &args.log {
        None => None,
        Some(p) => Some(std::fs::read(p).map_err(|e| CliError::read(p, &e))?),
    };
    let max = args.max_examples;
    let parser_name = args.parser.display().to_string();

    let mut checks = Vec::new();

    // Size.
    let limit = options.max_source_bytes;
    let size = source.len();
    let pct = size.saturating_mul(100).checked_div(limit).unwrap_or(100);
    checks.push(if size <= limit {
        Check::new(
            "size",
            "size",
            Status::Pass,
            format!(
                "{} bytes of {} allowed ({pct}%)",
                thousands(size),
                thousands(limit)
            ),
        )
    } else {
        Check::new(
            "size",
            "size",
            Status::Fail,
            format!(
                "{} bytes: over the {}-byte limit; Paperclip refuses to load it",
                thousands(size),
                thousands(limit)
            ),
        )
    });

    // Imports and load (the size limit lifted, so an oversized file gets the other checks too).
    let load_options = SandboxOptions {
        max_source_bytes: usize::MAX,
        ..options.clone()
    };
    let loaded = ParserModule::load(&source, load_options);
    let mut module_shape: Option<ModuleShape> = None;
    let module = match loaded {
        Ok(m) => {
            checks.push(Check::new(
                "imports",
                "imports",
                Status::Pass,
                "none (no import, require() or import())".into(),
            ));
            let shape = inspect(&source, &m, &options);
            checks.push(Check::new(
                "load",
                "module",
                Status::Pass,
                describe_shape(&shape),
            ));
            module_shape = Some(shape);
            Some(m)
        }
        Err(e) if e.code == "imports" => {
            checks.push(Check::new("imports", "imports", Status::Fail, describe_load_error(&e)).with_details(vec![
                "a ui-parser must have zero imports: bundle everything into the one file (esbuild --bundle)".into(),
            ]));
            checks.push(Check::new(
                "load",
                "module",
                Status::Skip,
                "not loaded: the sandbox refuses modules with imports".into(),
            ));
            None
        }
        Err(e) => {
            checks.push(if e.code == "unsafe_regex" {
                Check::new(
                    "imports",
                    "imports",
                    Status::Skip,
                    "not determined (the load stopped earlier)".into(),
                )
            } else {
                Check::new(
                    "imports",
                    "imports",
                    Status::Pass,
                    "none (no import, require() or import())".into(),
                )
            });
            let details = load_hint(e.code)
                .map(|h| vec![h.to_owned()])
                .unwrap_or_default();
            checks.push(
                Check::new("load", "module", Status::Fail, describe_load_error(&e))
                    .with_details(details),
            );
            None
        }
    };
    if !utf8 {
        checks.push(Check::new(
            "encoding",
            "encoding",
            Status::Fail,
            "the file is not valid UTF-8; Paperclip serves it as UTF-8 text, so the bad bytes become U+FFFD".into(),
        ));
    }

    // package.json.
    match &package {
        None => {
            for (id, title) in [
                ("contract_version", "contract version"),
                ("exports_entry", "exports[\"./ui-parser\"]"),
            ] {
                checks.push(Check::new(
                    id,
                    title,
                    Status::Skip,
                    "no --package given".into(),
                ));
            }
        }
        Some((path, Err(e))) => {
            checks.push(Check::new(
                "contract_version",
                "contract version",
                Status::Fail,
                format!("{} is not valid JSON: {e}", path.display()),
            ));
            checks.push(Check::new(
                "exports_entry",
                "exports[\"./ui-parser\"]",
                Status::Skip,
                "package.json unreadable".into(),
            ));
        }
        Some((path, Ok(pkg))) => checks.extend(check_package(path, pkg, &args.parser)),
    }

    // Behaviour.
    let Some(module) = module else {
        for (id, title) in BEHAVIOUR_CHECKS {
            checks.push(Check::new(
                id,
                title,
                Status::Skip,
                "the parser did not load".into(),
            ));
        }
        return Ok(Report::new(
            parser_name,
            args.strict,
            module_shape,
            ordered(checks),
        ));
    };
    let sample: Option<Vec<Line>> = log.as_deref().map(|bytes| {
        fed_lines(bytes)
            .into_iter()
            .map(|l| Line {
                label: format!("line {}", l.number),
                text: l.text,
                ts: l.ts,
            })
            .collect()
    });
    // A log without a single non-empty line tests nothing: say so, and use the awkward lines.
    let empty_log = sample.as_ref().is_some_and(Vec::is_empty);
    let sample = sample.filter(|s| !s.is_empty());
    let awkward: Vec<Line> = awkward_lines()
        .into_iter()
        .enumerate()
        .map(|(i, a)| Line {
            label: format!("awkward line \"{}\"", a.label),
            text: a.text,
            ts: line_ts(i as u64),
        })
        .collect();

    // Checks are shared with the watchdog: if a call never returns, it prints what is known and
    // exits (a thread stuck in native code cannot be stopped).
    let shared = Arc::new(Mutex::new(checks));
    let hang_limit = Duration::from_millis(args.hang_timeout_ms);
    let watch = {
        let shared = Arc::clone(&shared);
        let (strict, shape, budget) = (args.strict, module_shape.clone(), options.line_budget_ms);
        let parser_name = parser_name.clone();
        let lines: Vec<(String, String)> = sample
            .iter()
            .flatten()
            .chain(&awkward)
            .map(|l| (l.label.clone(), preview(&l.text, 100)))
            .collect();
        Watch::spawn(hang_limit, move |label, elapsed| {
            let mut checks = shared.lock().map(|c| c.clone()).unwrap_or_default();
            let text = lines
                .iter()
                .find(|(l, _)| l == label)
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            checks.push(
                Check::new(
                    "unstoppable",
                    "unstoppable line",
                    Status::Fail,
                    format!(
                        "the parser has run for {} s on {label} (budget {budget} ms) and the sandbox cannot \
                         interrupt it: check aborted",
                        elapsed.as_secs()
                    ),
                )
                .with_details(vec![
                    text,
                    "one native operation (a regex, split or replace over a long line, JSON.parse, building a \
                     huge string) runs to its end inside the engine; in the browser the Worker host kills the \
                     parser and the line falls back, but the page waits for it first"
                        .into(),
                    "bound the work per line: e.g. hand very long lines back as plain stdout before running \
                     regexes over them"
                        .into(),
                ]),
            );
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
    };
    behaviour(
        &module,
        &options,
        sample.as_deref(),
        &awkward,
        max,
        &watch,
        &shared,
    );
    drop(watch);
    let mut checks = shared.lock().map(|c| c.clone()).unwrap_or_default();
    if empty_log {
        for c in checks.iter_mut().filter(|c| c.id == "sample_log") {
            c.status = Status::Warn;
            c.summary = "the --log file has no non-empty lines: nothing to run".into();
        }
    }
    Ok(Report::new(
        parser_name,
        args.strict,
        module_shape,
        ordered(checks),
    ))
}

/// Report order, whatever order the checks were computed in.
const ORDER: [&str; 12] = [
    "size",
    "imports",
    "load",
    "encoding",
    "contract_version",
    "exports_entry",
    "sample_log",
    "awkward_lines",
    "entries",
    "determinism",
    "reset_replay",
    "unstoppable",
];

fn ordered(mut checks: Vec<Check>) -> Vec<Check> {
    checks.sort_by_key(|c| {
        ORDER
            .iter()
            .position(|id| *id == c.id)
            .unwrap_or(ORDER.len())
    });
    checks
}

const BEHAVIOUR_CHECKS: [(&str, &str); 5] = [
    ("sample_log", "sample log"),
    ("awkward_lines", "awkward lines"),
    ("entries", "entries"),
    ("determinism", "determinism"),
    ("reset_replay", "reset + replay"),
];

fn describe_shape(s: &ModuleShape) -> String {
    let format = if s.format == "esm" {
        "ES module"
    } else {
        "CommonJS module"
    };
    let exports = s.exports.join(" and ");
    let driven = if s.exports.len() > 1 {
        format!("; the sandbox drives {}", s.entry_point)
    } else {
        String::new()
    };
    let mut out = format!("{format} exporting {exports}{driven}");
    if !s.other_exports.is_empty() {
        out.push_str(&format!(
            " (also exports {}, ignored)",
            s.other_exports.join(", ")
        ));
    }
    out
}

/// Feeds the lines through fresh runs and pushes each behaviour check to `shared` as soon as it
/// is known (so a hang later still reports it).
fn behaviour(
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
    push(match run_a.reset() {
        Err(f) => Check::new(
            "reset_replay",
            "reset + replay",
            Status::Fail,
            format!("reset() failed: {f}"),
        ),
        Ok(()) => {
            let again = feed_all(&mut run_a, det_lines, options, watch);
            match compare(det_lines, &first, &again, max) {
                None => Check::new(
                    "reset_replay",
                    "reset + replay",
                    Status::Pass,
                    format!(
                        "{det_what} again after reset() in the same run gives the same entries"
                    ),
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
            }
        }
    });
    drop(run_a);

    // Run B: the input in a fresh run.
    push(
        match start_run(det_what).map(|mut r| feed_all(&mut r, det_lines, options, watch)) {
            Err(m) => Check::new("determinism", "determinism", Status::Fail, m),
            Ok(fresh) => match compare(det_lines, &first, &fresh, max) {
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
        },
    );

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

/// "no throws, no budget overruns" over one set of lines.
fn failures_check(
    id: &'static str,
    title: &'static str,
    lines: &[Line],
    answers: &[Answer],
    max: usize,
) -> Check {
    let entries: usize = answers
        .iter()
        .map(|a| {
            if let Outcome::Entries(e) = &a.outcome {
                e.len()
            } else {
                0
            }
        })
        .sum();
    let failed: Vec<(&Line, &LineFailure)> = lines
        .iter()
        .zip(answers)
        .filter_map(|(l, a)| {
            if let Outcome::Failed(f) = &a.outcome {
                Some((l, f))
            } else {
                None
            }
        })
        .collect();
    let n = lines.len();
    if failed.is_empty() {
        return Check::new(
            id,
            title,
            Status::Pass,
            format!(
                "{n} line{} → {entries} entr{}; no throws, no budget overruns",
                plural(n),
                if entries == 1 { "y" } else { "ies" }
            ),
        );
    }
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, f) in &failed {
        *by_code.entry(f.code.as_str()).or_default() += 1;
    }
    let codes: Vec<String> = by_code.iter().map(|(c, k)| format!("{c} ×{k}")).collect();
    let mut details: Vec<String> = failed
        .iter()
        .take(max)
        .map(|(l, f)| {
            format!(
                "{}: {}: {}\n{}",
                l.label,
                f.code,
                preview(&f.message, 200),
                preview(&l.text, 100)
            )
        })
        .collect();
    if failed.len() > max {
        details.push(format!("… and {} more", failed.len() - max));
    }
    details
        .push("each failing line falls back to the generic parser (shown as plain stdout)".into());
    Check::new(
        id,
        title,
        Status::Fail,
        format!(
            "{} of {n} line{} failed ({})",
            failed.len(),
            plural(n),
            codes.join(", ")
        ),
    )
    .with_details(details)
}

/// "every returned entry valid".
fn entries_check(fed: &[(&Line, &Answer)], max: usize) -> Check {
    let valid: usize = fed
        .iter()
        .map(|(_, a)| {
            if let Outcome::Entries(e) = &a.outcome {
                e.len()
            } else {
                0
            }
        })
        .sum();
    let invalid: Vec<(&Line, &(Rejection, String))> = fed
        .iter()
        .flat_map(|(l, a)| a.invalid.iter().map(move |i| (*l, i)))
        .collect();
    let total = valid + invalid.len();
    if invalid.is_empty() {
        return Check::new(
            "entries",
            "entries",
            Status::Pass,
            format!(
                "all {total} returned entr{} valid",
                if total == 1 { "y is" } else { "ies are" }
            ),
        );
    }
    let mut details: Vec<String> = invalid
        .iter()
        .take(max)
        .map(|(l, (why, raw))| format!("{}: {why}\n{raw}", l.label))
        .collect();
    if invalid.len() > max {
        details.push(format!("… and {} more", invalid.len() - max));
    }
    details.push("invalid entries are dropped: the UI never renders them".into());
    Check::new(
        "entries",
        "entries",
        Status::Fail,
        format!("{} of {total} returned entries are invalid", invalid.len()),
    )
    .with_details(details)
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

fn show_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Entries(e) => preview(&serde_json::to_string(e).unwrap_or_default(), 240),
        Outcome::Failed(f) => format!("failed ({f})"),
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
