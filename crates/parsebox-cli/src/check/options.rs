//! The sandbox options a `check` or `parse` command line asks for.

use parsebox_sandbox::{check_budget_ms, SandboxOptions};

use crate::error::CliError;

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
