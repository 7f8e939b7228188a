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
//! Built for WASI (`npm.sh`), it is only the argument reader of the npm command: `npx parsebox`
//! runs `check` and `parse` on the package's own modules in Node, and hands the arguments it
//! does not take (help, version, usage errors) to this build, which says them as clap says them
//! natively.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

// The WASI build only reads arguments: most of the command line's fields and the errors are
// the native command's.
#[cfg_attr(target_os = "wasi", allow(dead_code))]
mod cli;
#[cfg_attr(target_os = "wasi", allow(dead_code))]
mod error;

#[cfg(not(target_os = "wasi"))]
mod native;

#[cfg(not(target_os = "wasi"))]
fn main() -> std::process::ExitCode {
    native::main()
}

/// The npm command's argument reader: what clap says of arguments `cli/main.js` did not take
/// (help and version on stdout with code 0, a usage error on stderr with code 2). Arguments
/// clap takes were `check`'s or `parse`'s, which Node runs; reaching here with them is a bug.
#[cfg(target_os = "wasi")]
fn main() -> std::process::ExitCode {
    use clap::Parser;
    match cli::Cli::try_parse() {
        Err(e) => {
            let _ = e.print();
            std::process::ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(error::EXIT_USAGE))
        }
        Ok(_) => {
            eprintln!(
                "parsebox: internal error (a bug in parsebox, please report it): these arguments \
                 are for the npm command's Node side (cli/main.js), which did not take them"
            );
            std::process::ExitCode::from(error::EXIT_INTERNAL)
        }
    }
}
