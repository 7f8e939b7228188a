//! `parsebox`: the command-line binding of parsebox for adapter authors. `parsebox check` runs a
//! `ui-parser.js` through the conformance checks of the Paperclip UI parser contract (module
//! shape, imports, size, package.json, determinism, robustness, entry validity); `parsebox
//! parse` runs it over a log and prints the transcript. Natively both run the parser's lines on
//! the package's own live core (`parsebox-live`), each engine a process of this command where
//! the page has a Worker (`hosted`), so a line gets what the package gives it; `check`'s static
//! checks use the very sandbox (`parsebox-sandbox`) and transcript rules (`parsebox-transcript`)
//! the package uses.
//!
//! This crate decodes arguments, calls the core crates, and encodes the results for a terminal or
//! a script; it holds no parsing rules of its own.
//!
//! The npm command (`npx parsebox`) runs `check` and `parse` on the package's own modules in
//! Node, and reads its arguments as this command's clap does, from a description of the command
//! line this crate renders (`npm_command_line`, a test that keeps the two equal).

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod cli;
mod error;
mod native;
#[cfg(test)]
mod npm_command_line;

fn main() -> std::process::ExitCode {
    native::main()
}
