//! The engine module: one adapter's sandboxed parser ([`parsebox_engine::Engine`]) behind a
//! small raw C ABI, built for `wasm32-unknown-unknown` without wasm-bindgen (`build.sh`), so
//! the page creates one `WebAssembly.Instance` per adapter, each with its own linear memory
//! and a hard maximum. A trap or an out-of-memory ends that instance and nothing else.
//!
//! Everything crosses the boundary as bytes (JSON, and the ops frame): [`Session`] (plain Rust, tested natively)
//! decodes the page's input, drives the engine and encodes the answers; `src/abi.rs` (wasm32
//! only) holds the exports, the imports and the one `Session` of the instance. The page side
//! is `crates/parsebox-wasm/js/engine.js` (`compileEngine`, `EngineInstance`).
//!
//! # The ABI
//! Exports (pointers and lengths are `u32`; JS reads them with `>>> 0`):
//! - `parsebox_alloc(len) -> ptr`: a buffer of `len` bytes for the page to fill (0 when the
//!   instance's memory cannot hold it).
//! - `parsebox_free(ptr, len)`: frees a buffer from `parsebox_alloc` the page did not pass on.
//! - `parsebox_start(src_ptr, src_len, cfg_ptr, cfg_len) -> len`: loads the parser source
//!   (UTF-8) with the host's `EngineConfig` (JSON); answers JSON of
//!   `Result<Started, LoadError>`: `{"Ok":{"entryPoint":"createStdoutParser","module":{"format":"esm","exports":[…],"otherExports":[…]}}}` or
//!   `{"Err":{"code":…,"message":…,"line":…,"column":…}}`. Bad config JSON or a source that
//!   is not UTF-8 is an `Err` with code `bad_options`. A second start replaces the engine.
//! - `parsebox_run(ops_ptr, ops_len, batch_start) -> len`: performs `EngineOp`s, given as the
//!   core's ops frame (`parsebox_protocol::wire`, what the page sends) or as JSON; `batch_start`
//!   is 1 when they open a batch the host sent (a page may run a batch a record at a time, so
//!   each answer leaves at once). Answers
//!   JSON `[[seq, outcome], …]`, outcome `{"Ok":value}` or `{"Err":{"code","message"}}`.
//!   Before a successful start, or for ops that do not decode, every line op of the batch is
//!   answered `{"Err":{"code":"engine_fault",…}}` (the other ops are ignored).
//! - `parsebox_alloc_failed() -> f64`: bytes of the last allocation the memory could not hold
//!   (0: none). Every failed allocation ends in a trap; read after one, a non-zero figure says
//!   the instance ran out of memory (engine.js's `EngineMemoryError`).
//! - `parsebox_result_ptr() -> ptr`: where the bytes of the last answer are; valid until the
//!   next start or run.
//! - `parsebox_queue(ops_ptr, ops_len, answer_batch_ms)`, `parsebox_has_next() -> 0 | 1`,
//!   `parsebox_run_next() -> len`: the same, an ops frame handed over whole and performed a
//!   record at a time (the first opens the batch), so a Worker can post answers between
//!   records without reading the frame's layout. A record that answered no line answers
//!   nothing (length 0), so the Worker holds real answers only.
//! - `parsebox_post_due() -> 0 | 1`: 1 when a Worker posts the answers it holds now: the
//!   engine does realm work of its own before its next line (the last line answered failed
//!   and it rebuilds its realm, or the next record opens a new run: the core then times that
//!   work as the engine's), the frame is done, `answer_batch_ms` has passed since the last
//!   post, or it holds `POST_BYTES` (256 KiB) of answers (the page reads a post in one task).
//! - `parsebox_prepare() -> len`: makes the realm the next start loads its parser into
//!   (`Session::prepare`); answers JSON `Result<(), LoadError>`. `build.sh` calls it once and
//!   ships the memory that results as the module's initial memory (`snapshot.mjs`), so a fresh
//!   instance has the realm already and a start costs the parser's own load only.
//! - `parsebox_prepared() -> u32`: 1 while such a realm waits for a start.
//! - `parsebox_warm_up(max_memory_bytes) -> len`: loads a small built-in parser and parses a
//!   few lines ([`warm_up`]), so the module's code is compiled before the first real parser
//!   loads; call it on a throwaway instance, with that instance's memory maximum. Answers JSON
//!   `[started, answers]`.
//!
//! The linker also exports `__data_end`, `__heap_base` and the getrandom hook
//! `__getrandom_v03_custom` (a `#[no_mangle]` Rust function); the page has no use for them.
//!
//! `parsebox_start` and `parsebox_run` take ownership of the buffers they are given (they free
//! them). Imports (module `env`): `memory` (the page's `WebAssembly.Memory`, as large as the
//! custom section `parsebox_initial_pages` says, with the instance's maximum), `parsebox_now_ms() -> f64` (a monotonic clock for the budgets),
//! `parsebox_began(seq: f64, report: u32)` (before every live line, after the engine's own
//! realm work; `report` 1 for one whose deadline the host arms from it: the first of a batch,
//! or one after that realm work; a Worker also times its own stop at the deadline from each),
//! `parsebox_poll()` (called by every loop every 16,384 turns, `crates/parsebox-preempt`:
//! a Worker's throws once the line runs past its deadline) and `parsebox_random(ptr, len) -> u32`
//! (fills `len` random bytes, 0 on success: the getrandom backend).

#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod session;
mod warm_up;

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod abi;

pub use session::{heap_growth_cap, Hooks, Session};
pub use warm_up::warm_up;
