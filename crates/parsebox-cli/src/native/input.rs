//! Reading a file the command was named, in a bounded amount of memory: a file (or a device
//! such as `/dev/zero`) larger than what its use can need is refused with a clear error before
//! it is read whole.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::CliError;

/// The most bytes of a parser file read: this many times `--max-source-bytes`. A file between
/// the limit and this still gets every check (its size check fails); past it, there is nothing
/// a check could tell its author that the size does not.
pub(crate) const PARSER_READ_FACTOR: usize = 16;

/// The most bytes of a `--log` sample `check` reads (`parse` streams a log of any length).
pub const MAX_SAMPLE_LOG_BYTES: usize = 64 << 20;

/// The most bytes of a `package.json` read.
pub const MAX_PACKAGE_BYTES: usize = 16 << 20;

/// The bytes of the file at `path`, if there are at most `cap` of them.
///
/// # Errors
/// [`CliError::Input`] when the file cannot be read, or holds more than `cap` bytes: `what`
/// the file is for, and `note` what else to know (empty, or a clause in parentheses).
pub fn read_capped(path: &Path, cap: usize, what: &str, note: &str) -> Result<Vec<u8>, CliError> {
    let file = File::open(path).map_err(|e| CliError::read(path, &e))?;
    let len = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::read(path, &e))?;
    if bytes.len() <= cap {
        return Ok(bytes);
    }
    let size = match len {
        Some(n) => format!(
            "is {} bytes",
            crate::native::check::thousands(usize::try_from(n).unwrap_or(usize::MAX))
        ),
        None => format!(
            "has more than {} bytes",
            crate::native::check::thousands(cap)
        ),
    };
    Err(CliError::Input(format!(
        "{} {size}; {what} may be at most {} bytes{note}",
        path.display(),
        crate::native::check::thousands(cap)
    )))
}

/// The parser file at `path` ([`read_capped`] at [`PARSER_READ_FACTOR`] times
/// `max_source_bytes`), for `check` and `parse` alike: `what` the command reads it as.
///
/// # Errors
/// As [`read_capped`].
pub fn read_parser(path: &Path, max_source_bytes: usize, what: &str) -> Result<Vec<u8>, CliError> {
    read_capped(
        path,
        max_source_bytes.saturating_mul(PARSER_READ_FACTOR),
        what,
        &format!(
            " (Paperclip refuses one over {})",
            crate::native::check::thousands(max_source_bytes)
        ),
    )
}

/// `bytes` as text, and whether they were valid UTF-8 (invalid bytes become U+FFFD).
pub fn into_text(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    }
}
