//! Differential test: every parser of the compatibility corpus (`tests/corpus/compat/<name>/`)
//! runs on its `sample.log` in Node (`tests/corpus/node-reference.mjs`, same determinism rules)
//! and in the sandbox, and every line must agree.
//!
//! The comparison is on the converted value **before** validation: Node's
//! `JSON.parse(JSON.stringify(ret ?? null))` must equal [`ParserRun::parse_line_raw`]'s
//! `serde_json::Value` exactly (key order included), and a line that throws in Node must fail
//! with `threw` in the sandbox. Each parser also runs twice in the sandbox, to check that a run
//! is deterministic. Skipped (with a message) only when `node` is not installed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use parsebox_sandbox::{ParserModule, ParserRun, SandboxOptions};
use parsebox_transcript::lone_surrogates::unmark_text;
use serde_json::Value;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

fn node_reference(parser: &Path, log: &Path) -> Result<Value, String> {
    let out = Command::new("node")
        .env("TZ", "UTC")
        .arg(corpus().join("node-reference.mjs"))
        .arg(parser)
        .arg(log)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "node-reference failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&replace_lone_surrogates(&text))
        .map_err(|e| format!("node-reference output: {e}"))
}

/// JSON.stringify writes lone surrogates as `\udXXX` escapes, which serde_json rejects; the
/// sandbox converts them to U+FFFD (Rust strings are UTF-8), so do the same here.
fn replace_lone_surrogates(json: &str) -> String {
    let b = json.as_bytes();
    let hex = |i: usize| -> Option<u16> {
        let s = json.get(i..i + 4)?;
        u16::from_str_radix(s, 16).ok()
    };
    let escape_at = |i: usize| -> Option<u16> {
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
            hex(i + 2)
        } else {
            None
        }
    };
    let mut out = String::with_capacity(json.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if let Some(u) = escape_at(i) {
                let high = (0xD800..0xDC00).contains(&u);
                let low = (0xDC00..0xE000).contains(&u);
                let paired =
                    high && escape_at(i + 6).is_some_and(|v| (0xDC00..0xE000).contains(&v));
                if paired {
                    i += 12;
                    continue;
                }
                if high || low {
                    out.push_str(&json[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    continue;
                }
                i += 6;
                continue;
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push_str(&json[last..]);
    out
}

/// Runs the sandbox over Node's lines; returns one outcome per line.
fn sandbox(run: &mut ParserRun, lines: &[Value]) -> Vec<Result<Value, String>> {
    lines
        .iter()
        .map(|l| {
            let line = l["line"].as_str().unwrap_or_default();
            let ts = l["ts"].as_str().unwrap_or_default();
            run.parse_line_raw(line, ts)
                .map_err(|f| format!("{}: {}", f.code, f.message))
        })
        .collect()
}

/// `value` as the reference reads it: a lone surrogate (kept by the sandbox as a marked pair,
/// `parsebox_transcript::lone_surrogates`) is U+FFFD.
fn read_as_reference(value: &Value) -> Value {
    let text = unmark_text(&value.to_string()).into_owned();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

#[test]
fn compat_corpus_matches_node() {
    // boa's parser is generic over the source reader, so it is compiled into this crate: at the
    // dev profile's opt-level 0 its recursion needs ~3 MiB of stack for these files (release:
    // under 512 KiB). Run on an 8 MiB thread, the stack the wasm build is linked with.
    common::on_stack(8 << 20, compare_all);
}

fn compare_all() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED: `node` is not installed; the differential test needs it");
        return;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus().join("compat"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("ui-parser.js").is_file() && p.join("sample.log").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no compat corpus found");
    let mut problems: Vec<String> = Vec::new();
    let mut compared = 0usize;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let parser = dir.join("ui-parser.js");
        let reference = match node_reference(&parser, &dir.join("sample.log")) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let src = std::fs::read_to_string(&parser).unwrap();
        let module = match ParserModule::load(&src, SandboxOptions::default()) {
            Ok(m) => m,
            Err(e) => {
                problems.push(format!("{name}: sandbox refused to load it: {e}"));
                continue;
            }
        };
        if reference["entryPoint"].as_str() != Some(module.entry_point().as_str()) {
            problems.push(format!(
                "{name}: entry point {} vs Node {}",
                module.entry_point().as_str(),
                reference["entryPoint"]
            ));
        }
        let lines = reference["lines"].as_array().cloned().unwrap_or_default();
        let first = sandbox(&mut module.new_run().unwrap(), &lines);
        let second = sandbox(&mut module.new_run().unwrap(), &lines);
        if first != second {
            problems.push(format!("{name}: two sandbox runs of the same log differ"));
        }
        for (l, ours) in lines.iter().zip(&first) {
            compared += 1;
            // The reference reads a lone surrogate as U+FFFD; the sandbox keeps it marked.
            let ours = &ours.as_ref().map(read_as_reference).map_err(Clone::clone);
            let line = l["line"].as_str().unwrap_or_default();
            let short: String = line.chars().take(80).collect();
            match (l.get("result"), ours) {
                (Some(expected), Ok(got)) if expected == got => {}
                (Some(expected), Ok(got)) => problems.push(format!(
                    "{name}: line {short:?}\n   node:    {expected}\n   sandbox: {got}"
                )),
                (Some(expected), Err(e)) => {
                    problems.push(format!(
                        "{name}: line {short:?}\n   node:    {expected}\n   sandbox failed: {e}"
                    ));
                }
                (None, Err(e)) if e.starts_with("threw:") => {}
                (None, other) => problems.push(format!(
                    "{name}: line {short:?}: node threw {}, sandbox gave {other:?}",
                    l["throws"]
                )),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {compared} lines (or parsers) differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("{} parsers, {compared} lines: sandbox == node", dirs.len());
}
