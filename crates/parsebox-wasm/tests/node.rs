//! The binding inside wasm, in Node (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]
#![allow(missing_docs)]

mod common;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn lines_become_entries_and_failures_are_data() {
    common::lines_become_entries_and_failures_are_data();
}

#[wasm_bindgen_test]
fn a_hostile_log_line_cannot_crash_the_instance() {
    common::a_hostile_log_line_cannot_crash_the_instance();
}

#[wasm_bindgen_test]
fn misuse_throws_named_errors() {
    common::misuse_throws_named_errors();
}

#[wasm_bindgen_test]
fn the_builder_reports_what_changed() {
    common::the_builder_reports_what_changed();
}
