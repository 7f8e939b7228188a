//! The native command: reads the arguments, runs `check` or
//! `parse` on a thread with room for boa's recursion, and turns what happened into an exit
//! code; or, as a child of the command, serves as one of its engine processes.

mod awkward;
mod check;
mod hosted;
mod input;
mod inspect;
mod lines;
mod package;
mod parse;
mod progress;
mod render;
mod report;
mod runner;
mod style;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::error::{CliError, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE};
use crate::native::style::{use_color, Painter};

/// Every allocation counted where it is made (`parsebox-meter`): an engine process reads what
/// its engine holds as the page's engine reads its memory, and the live core counts what waits
/// in it in real bytes, as the page's does.
#[global_allocator]
static ALLOC: parsebox_meter::Counting<std::alloc::System> =
    parsebox_meter::Counting::new(std::alloc::System);

/// The message of the last panic, reported once at the top instead of a backtrace.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// boa interprets recursive guest code on the native stack; give it room (the sandbox's
/// recursion limit keeps it far below this).
const WORKER_STACK_BYTES: usize = 64 << 20;

/// The native command: an engine process, or the command its arguments ask for.
pub fn main() -> ExitCode {
    // An engine process of a parent `parsebox` (native/hosted/process.rs), not the command.
    if std::env::args_os().nth(1).as_deref()
        == Some(std::ffi::OsStr::new(hosted::process::ENGINE_ARG))
    {
        return ExitCode::from(engine_process());
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with code 0; usage errors to stderr with code 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE));
        }
    };
    // The sandbox turns an engine panic into an `engine_fault` for that line; anything else is a
    // bug, reported in one line below. Either way no backtrace noise reaches the user.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_owned());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(format!("{msg}{at}"));
        }
    }));
    let outcome = run_with_stack(cli);
    let code = match outcome {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            if !matches!(e, CliError::BrokenPipe) {
                eprintln!("parsebox: error: {e}");
            }
            e.exit_code()
        }
        Err(_) => {
            let msg = LAST_PANIC
                .lock()
                .ok()
                .and_then(|m| m.clone())
                .unwrap_or_default();
            eprintln!("parsebox: internal error (a bug in parsebox, please report it): {msg}");
            EXIT_INTERNAL
        }
    };
    ExitCode::from(code)
}

/// Runs the command on a thread with room for boa's recursion ([`WORKER_STACK_BYTES`]).
fn run_with_stack(cli: Cli) -> std::thread::Result<Result<u8, CliError>> {
    let worker = std::thread::Builder::new()
        .name("parsebox".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(|| run(cli));
    match worker {
        Ok(handle) => handle.join(),
        Err(e) => Ok(Err(CliError::Output(format!(
            "cannot start the worker thread: {e}"
        )))),
    }
}

/// Serves as an engine process on a thread with the command's room for boa's recursion; a
/// panic there is said on stderr, where the parent reads why its engine died.
fn engine_process() -> u8 {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("parsebox engine process: {info}")
    }));
    std::thread::Builder::new()
        .name("parsebox engine".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(hosted::process::serve)
        .map_or(EXIT_INTERNAL, |h| h.join().unwrap_or(EXIT_INTERNAL))
}

fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Check(args) => {
            let painter = Painter {
                color: !args.json && use_color(args.shared.color.color),
            };
            let report = check::run_check(&args)?;
            let text = report.render(args.json, &painter);
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(if report.passed { EXIT_OK } else { EXIT_FAILED })
        }
        Command::Parse(args) => parse::run_parse(&args),
    }
}
