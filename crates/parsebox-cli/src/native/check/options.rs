//! The sandbox options a `check` or `parse` command line asks for.

use parsebox_sandbox::{
    check_budget_ms, check_range, SandboxOptions, LINE_BYTES_LIMIT, SOURCE_BYTES_LIMIT,
};

use parsebox_host::{HostOptions, Placement};

use crate::error::CliError;

/// The options the user asked for, laid out as the package lays out an engine's: the page's
/// defaults, and its one load rule ([`HostOptions::engine_config_at`]: no regex pattern is
/// refused for its shape; a line one hangs is given up at `--hang-timeout-ms`, as the page's
/// engine stops it at its deadline).
pub fn sandbox_options(args: &crate::cli::SandboxArgs) -> Result<SandboxOptions, CliError> {
    let defaults = HostOptions::default();
    let mut o = parsebox_engine::sandbox_options(&defaults.engine_config_at(Placement::Inline))
        .map_err(|e| CliError::Input(e.message))?;
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
    if let Some(b) = args.max_line_bytes {
        o.max_line_bytes = b;
    }
    check_range(
        "--max-source-bytes",
        o.max_source_bytes,
        1,
        SOURCE_BYTES_LIMIT,
    )
    .and_then(|()| check_range("--max-line-bytes", o.max_line_bytes, 1, LINE_BYTES_LIMIT))
    .map_err(CliError::Input)?;
    Ok(o)
}
