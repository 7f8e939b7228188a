//! The parsebox sandbox: one adapter's untrusted `ui-parser.js` in its own boa_engine realm,
//! answering `parse_line(line, ts)` under a budget.
//!
//! [`ParserModule::load`] checks a parser source statically (size, imports, top-level await,
//! syntax, catastrophic regex literals), rewrites ES modules and CommonJS files into one script
//! shape, and evaluates it once in a throwaway realm to find its entry point;
//! [`ParserModule::exports`] tells what the module exports, and a refused source gets a
//! [`LoadError`] with a stable [`LoadErrorCode`]. Most of a load is setting up the realm (the
//! context and the prelude), the same for every parser: a [`BlankRealm`] made ahead of time
//! takes that part off the load ([`ParserModule::load_with`]).
//! [`ParserModule::new_run`] gives a [`ParserRun`]: a fresh realm, fresh module state and one
//! parser instance for one run's transcript, with `Date` pinned to each line's `ts` (UTC) and
//! `Math.random` a seeded generator, so replaying a log gives the same entries. Each call runs
//! under the budget layers boa 0.22 allows in-thread: a budget of work counted by the engine
//! itself (bytecode "cycles", read every few thousand; the same on every machine, so the same
//! line always gets the same outcome), a wall-clock backstop for what the engine cannot count
//! (a line stopped by the clock alone runs once more, alone, on a fresh realm before it
//! fails), loop and recursion limits, bytecode replacements or size caps for
//! the built-ins that loop or call back natively, a screened `RegExp`, an optional heap probe,
//! and a fresh realm (state restored by replaying the run's earlier lines) after any abort.
//! Return values become plain JSON without running guest code outside the budget, then
//! [`parsebox_transcript::entries_from_return`] validates them.
//!
//! What no in-thread layer can stop with stock boa (regex backtracking the screen misses, one
//! huge native allocation, some nested callbacks) is listed in BENCHMARKS.md; the Worker host
//! takes those.

#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod charged_builtins;
mod clock;
mod convert;
mod date_constructor;
mod date_parse;
mod entry_point;
mod exports;
mod history;
mod json;
mod json_text;
mod load_error;
mod module;
mod native_method;
mod number_format;
mod options;
mod pow;
mod realm;
mod regex_limits;
mod regex_methods;
pub mod regex_screen;
mod run;
mod source;
mod string_search;
mod text;

pub use clock::{work_done, WORK_PER_MS};
pub use entry_point::EntryPoint;
pub use exports::{ModuleExports, ModuleFormat};
pub use load_error::{LoadError, LoadErrorCode};
pub use module::{BlankRealm, ParserModule};
pub use options::{
    check_budget_ms, check_range, SandboxOptions, LINE_BYTES_LIMIT, SOURCE_BYTES_LIMIT,
};
pub use run::{ParserRun, RunDiagnostics};
pub use source::MAX_SOURCE_NESTING;

#[cfg(test)]
mod test_rng;
#[cfg(test)]
mod tests;
