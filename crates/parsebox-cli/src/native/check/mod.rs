//! `parsebox check`: the conformance report of issue 8.
//!
//! Size, imports and load come from [`ParserModule::load`] ([`load`], with the size limit
//! lifted so that an oversized file still gets every other check); the package checks from
//! [`crate::native::package`]; everything else from feeding lines to fresh runs ([`behaviour`]) on the
//! package's live core, the engine a process of the command, so each line is answered, falls
//! back or is ended at its deadline as in the page ([`runs`]). Every returned entry is
//! validated by the core (its dropped entries come with the line, [`line_checks`]) and passes
//! are compared ([`determinism`]). This module reads the inputs and assembles the report. The
//! npm command's `check` (crates/parsebox-wasm/js/cli/check.js) gives the same report on the
//! package in Node; tests/js/cli-npx holds the two equal.
//!
//! [`ParserModule::load`]: parsebox_sandbox::ParserModule::load

mod behaviour;
mod core_runs;
mod determinism;
mod feed;
mod line_checks;
mod load;
mod options;
mod order;
mod runs;
mod stopped;

use std::sync::Mutex;
use std::time::Duration;

use parsebox_sandbox::EntryPoint;
use serde_json::Value;

use crate::cli::CheckArgs;
use crate::error::CliError;
use crate::native::input::{
    into_text, read_capped, read_parser, MAX_PACKAGE_BYTES, MAX_SAMPLE_LOG_BYTES,
};
use crate::native::package::package_checks;
use crate::native::report::{Check, Report, Status};

use behaviour::{behaviour, Inputs};
use feed::{awkward_lines, sample_lines};
pub use load::describe_core_load_error;
use load::module_checks;
pub use load::thousands;
pub use options::sandbox_options;
use order::{ordered, BEHAVIOUR_CHECKS};

/// Runs every check.
///
/// # Errors
/// A [`CliError::Input`] when the parser, package.json or log cannot be read.
pub fn run_check(args: &CheckArgs) -> Result<Report, CliError> {
    let options = sandbox_options(&args.shared.sandbox)?;
    let (source, utf8) = into_text(read_parser(
        &args.parser,
        options.max_source_bytes,
        "a parser to check",
    )?);
    let package = match &args.package {
        None => None,
        Some(p) => {
            let (text, _) = into_text(read_capped(p, MAX_PACKAGE_BYTES, "a package.json", "")?);
            Some((p, serde_json::from_str::<Value>(&text)))
        }
    };
    let log = match &args.log {
        None => None,
        Some(p) => Some(read_capped(
            p,
            MAX_SAMPLE_LOG_BYTES,
            "a sample log",
            " (`parsebox parse` reads a log of any length)",
        )?),
    };
    let max = args.max_examples;
    let parser_name = args.parser.display().to_string();

    let hang_limit = Duration::from_millis(args.shared.hang_timeout_ms);
    // The parser starts in its engine process first, under the core's start deadline: a module
    // whose evaluation never ends (one native step at its top level) is ended there, and not
    // loaded again in this process, where nothing could end it.
    let started = started_core(&source, &options, hang_limit);
    let ended_at_start = match &started {
        Err(Refused::Ended(m)) => Some(m.clone()),
        _ => None,
    };
    let mut checks = Vec::new();
    let loaded = module_checks(&source, utf8, &options, ended_at_start, &mut checks);
    let module_shape = loaded.shape;
    checks.extend(package_checks(
        package.as_ref().map(|(p, json)| (p.as_path(), json)),
        &args.parser,
    ));

    // Behaviour.
    let Some(module) = loaded.module else {
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
    let sample = log.as_deref().map(sample_lines);
    // A log without a single non-empty line tests nothing: say so, and use the awkward lines.
    let empty_log = sample.as_ref().is_some_and(Vec::is_empty);
    let sample = sample.filter(|s| !s.is_empty());
    let awkward = awkward_lines();

    let inputs = Inputs {
        sample: sample.as_deref(),
        awkward: &awkward,
        max,
        stateless: module.entry_point() == EntryPoint::ParseStdoutLine,
        budget: options.line_budget_ms,
        stuck_secs: hang_limit.as_secs(),
    };
    let shared = Mutex::new(checks);
    match started {
        Ok(core) => behaviour(&mut core_runs::CoreRuns::new(core), &inputs, &shared),
        Err(Refused::Ended(m) | Refused::Refused(m)) => {
            if let Ok(mut checks) = shared.lock() {
                for (id, title) in BEHAVIOUR_CHECKS {
                    checks.push(Check::new(id, title, Status::Fail, m.clone()));
                }
            }
        }
    }
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

/// Why the parser did not start in its engine process.
enum Refused {
    /// The engine ended before it said (its start ran past the deadline, or it died): the
    /// module is not loaded again in this process.
    Ended(String),
    /// The engine refused the source, as the load check will say too.
    Refused(String),
}

/// The live core with the parser started in its engine process, as the package starts it
/// (`give_up` is its hard deadline); why it did not start, for every behaviour check.
fn started_core(
    source: &str,
    options: &parsebox_sandbox::SandboxOptions,
    give_up: Duration,
) -> Result<crate::native::hosted::NativeCore, Refused> {
    // The size limit lifted, as for the load check: an oversized file gets the other checks too.
    let options = parsebox_sandbox::SandboxOptions {
        max_source_bytes: options.max_source_bytes.max(source.len()),
        ..options.clone()
    };
    let mut core =
        crate::native::hosted::NativeCore::for_command(&options, give_up, feed::PREVIEW_CHARS)
            .map_err(Refused::Ended)?;
    let status = core
        .register(source)
        .map_err(|e| Refused::Ended(e.to_string()))?;
    if status.state == parsebox_host::AdapterState::Ready {
        return Ok(core);
    }
    Err(match status.error {
        Some(e) if e.code == "engine_fault" => Refused::Ended(describe_core_load_error(&e)),
        Some(e) => Refused::Refused(format!(
            "the parser did not start: {}",
            describe_core_load_error(&e)
        )),
        None => Refused::Ended(status.reason.unwrap_or_default()),
    })
}
