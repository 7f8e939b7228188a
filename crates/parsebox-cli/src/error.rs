//! The CLI's one error type: a message for stderr and the exit code it maps to.

use std::fmt;
use std::io;
use std::path::Path;

/// Exit code when everything passed.
pub const EXIT_OK: u8 = 0;
/// Exit code when a check failed or the parser did not load.
pub const EXIT_FAILED: u8 = 1;
/// Exit code for bad usage or an input that cannot be read (clap also uses 2).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for a bug in parsebox (a panic caught at the top).
pub const EXIT_INTERNAL: u8 = 70;

/// Why a command stopped.
#[derive(Debug)]
pub enum CliError {
    /// A file or stdin could not be read, or a flag value is unusable.
    Input(String),
    /// The parser did not load (`parse` has nothing to run).
    Parser(String),
    /// stdout was closed by the reader (`parsebox parse … | head`): not an error.
    BrokenPipe,
    /// Writing the output failed for another reason.
    Output(String),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) => EXIT_USAGE,
            Self::Parser(_) | Self::Output(_) => EXIT_FAILED,
            Self::BrokenPipe => EXIT_OK,
        }
    }

    /// A read error on `path`, phrased for a person.
    pub fn read(path: &Path, e: &io::Error) -> Self {
        let what = match e.kind() {
            io::ErrorKind::NotFound => "no such file".to_owned(),
            io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            io::ErrorKind::IsADirectory => "is a directory, not a file".to_owned(),
            _ if path.is_dir() => "is a directory, not a file".to_owned(),
            _ => e.to_string(),
        };
        Self::Input(format!("cannot read {}: {what}", path.display()))
    }

    /// A write error on stdout.
    pub fn write(e: &io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Self::BrokenPipe
        } else {
            Self::Output(format!("cannot write the output: {e}"))
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Input(m) | Self::Parser(m) | Self::Output(m) => f.write_str(m),
            Self::BrokenPipe => f.write_str("output closed"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        Self::write(&e)
    }
}
