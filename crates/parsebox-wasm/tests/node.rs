//! The binding inside wasm, in Node (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]
#![allow(missing_docs)]

mod common;

common::binding_scenarios!(
    lines_become_entries_and_failures_are_data,
    a_reentrant_builtin_is_refused_not_corrupting,
    misuse_throws_named_errors,
    the_builder_reports_what_changed,
    held_bytes_are_the_cores_real_bytes,
    the_memory_grows_in_few_steps,
);
