//! The command line, as `clap` derive structs: every flag, its default and its help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Check a Paperclip `ui-parser.js` before you publish it, and run it over a log, in the same
/// sandbox the Paperclip UI uses.
///
/// Exit codes: 0 success; 1 a check failed or the parser did not load; 2 bad usage or an
/// unreadable input file; 70 an internal error (a bug in parsebox).
#[derive(Debug, Parser)]
#[command(name = "parsebox", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Conformance report: module shape, imports, size, package.json contract, determinism,
    /// robustness on a sample log and on built-in awkward lines, validity of every entry.
    Check(CheckArgs),
    /// Parse a log with the parser and print the transcript (coloured, or JSON lines), or its
    /// render-ready timeline (JSON lines).
    Parse(ParseArgs),
}

/// `parsebox check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The parser file (`ui-parser.js`).
    pub parser: PathBuf,
    /// The adapter's package.json: checks `paperclip.adapterUiParser` and that
    /// `exports["./ui-parser"]` points at the parser file.
    #[arg(long, value_name = "PACKAGE_JSON")]
    pub package: Option<PathBuf>,
    /// A sample of the agent's stdout (one event per line) to run the parser over.
    #[arg(long, value_name = "LOG")]
    pub log: Option<PathBuf>,
    /// Print the report as one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Treat warnings as failures (exit code 1).
    #[arg(long)]
    pub strict: bool,
    /// How many invalid entries, failing lines or differences to show per check.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_examples: usize,
    /// The call limit, sandbox limits and colour.
    #[command(flatten)]
    pub shared: SharedArgs,
}

/// `parsebox parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The parser file (`ui-parser.js`).
    #[arg(long, value_name = "UI_PARSER_JS")]
    pub parser: PathBuf,
    /// The log to parse; `-` or nothing reads standard input.
    #[arg(value_name = "LOG")]
    pub log: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
    /// The input is a stored Paperclip run log: NDJSON rows `{ts, stream, chunk, seq?}`.
    /// Without it, every input line is one stdout line, with line i at
    /// 2026-01-01T00:00:00Z + i seconds.
    #[arg(long)]
    pub ndjson: bool,
    /// Mask user names in home paths (`/Users/name` → `/Users/n***`).
    #[arg(long)]
    pub redact_home_paths: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// The call limit, sandbox limits and colour.
    #[command(flatten)]
    pub shared: SharedArgs,
}

/// What `check` and `parse` both take.
#[derive(Debug, Args)]
pub struct SharedArgs {
    /// Give up a parser call that has not returned after this many milliseconds (one native
    /// operation the sandbox cannot interrupt). `check` reports it and exits 1; `parse` shows
    /// the line's generic entry, says so on stderr, and starts the parser again for the lines
    /// after it.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub hang_timeout_ms: u64,
    /// Sandbox limits.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// Colour.
    #[command(flatten)]
    pub color: ColorArgs,
}

/// The sandbox limits a user may want to change; everything else keeps the UI's defaults.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Budget of one parser call, in reference milliseconds: work the engine counts, not the
    /// clock, so a line gets the same outcome on any machine (the UI's default: 50).
    #[arg(long, value_name = "MS")]
    pub line_budget_ms: Option<f64>,
    /// Budget of module evaluation plus `createStdoutParser()`, in milliseconds (default 200).
    #[arg(long, value_name = "MS")]
    pub init_budget_ms: Option<f64>,
    /// Largest accepted parser source, in bytes (default 51200: 50 KB).
    #[arg(long, value_name = "BYTES")]
    pub max_source_bytes: Option<usize>,
    /// Longest line handed to the parser, in bytes (the UI's default: 4194304, 4 MiB). A longer
    /// line shows the generic entry instead; `parse` keeps at most this many bytes of it (an
    /// endless line costs no more memory) and says so on stderr.
    #[arg(long, value_name = "BYTES")]
    pub max_line_bytes: Option<usize>,
}

/// `--color`.
#[derive(Debug, Args)]
pub struct ColorArgs {
    /// When to colour the output. `auto`: when stdout is a terminal and NO_COLOR is not set.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `--format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Coloured, human-readable, like Paperclip's `run --watch`.
    Pretty,
    /// One TranscriptEntry JSON object per line.
    Jsonl,
    /// The render-ready timeline: one item JSON object per line (tool calls paired with their
    /// results and diff lines, statuses, timeline positions), printed once the log has ended.
    Timeline,
}
