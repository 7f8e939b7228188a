//! What the sandbox's benchmark examples read: a parser file and a log, named by the first two
//! arguments, and the log's non-empty lines trimmed as the transcript builder trims them.

// Each example is its own crate and reads only what it needs of `Input`.
#![allow(dead_code)]

/// What an example was asked to run.
pub struct Input {
    /// The parser's source.
    pub src: String,
    /// The log's path.
    pub log: String,
    /// The log's text.
    pub text: String,
    /// The arguments after the first two.
    pub rest: std::iter::Skip<std::env::Args>,
}

/// Reads the parser (argument 1, else `default_parser`) and the log (argument 2, else
/// `/tmp/run.log`).
pub fn parser_and_log(default_parser: &str) -> Input {
    let mut rest = std::env::args().skip(1);
    let parser = rest.next().unwrap_or_else(|| default_parser.to_owned());
    let log = rest.next().unwrap_or_else(|| "/tmp/run.log".to_owned());
    Input {
        src: std::fs::read_to_string(&parser).unwrap(),
        text: std::fs::read_to_string(&log).unwrap(),
        log,
        rest,
    }
}

/// The log's non-empty lines, trimmed.
pub fn lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}
