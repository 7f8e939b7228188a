//! The data shapes of the package's TypeScript declarations (`js/types.d.ts`, which the binding
//! embeds in `parsebox_wasm.d.ts`) are generated from the Rust types with ts-rs, so the types a
//! Paperclip engineer compiles against are the shapes the core serialises. This test renders
//! them and fails when the committed file differs; `PARSEBOX_UPDATE_TYPES=1 cargo test -p
//! parsebox-wasm --test typescript` rewrites it.
#![cfg(not(target_arch = "wasm32"))]
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use parsebox_host::{AdapterState, AdapterStatus, Diagnostics, LineHost, LoadError, Placement};
use parsebox_timeline::{
    DiffLine, EntriesMoved, InitInfo, ResultInfo, TimelineItem, TimelineItemType, ToolCallData,
    ToolContent, ToolKind, ToolLocation, ToolOutput, ToolStatus,
};
use parsebox_transcript::entry::{
    DeltaText, Diff, DiffChangeType, Init, RunResult, Text, ToolCall, ToolResult,
};
use parsebox_transcript::{Chunk, FailureCode, Stream, TranscriptEntry};
use ts_rs::{Config, TS};

const HEADER: &str = "\
// Generated from the Rust types by crates/parsebox-wasm/tests/typescript.rs (ts-rs): do not edit.
// Regenerate with `PARSEBOX_UPDATE_TYPES=1 cargo test -p parsebox-wasm --test typescript`.
";

fn declarations() -> String {
    let cfg = Config::default().with_large_int("number");
    let decls = [
        <serde_json::Value as TS>::decl(&cfg),
        TranscriptEntry::decl(&cfg),
        DeltaText::decl(&cfg),
        Text::decl(&cfg),
        ToolCall::decl(&cfg),
        ToolResult::decl(&cfg),
        Init::decl(&cfg),
        RunResult::decl(&cfg),
        Diff::decl(&cfg),
        DiffChangeType::decl(&cfg),
        FailureCode::decl(&cfg),
        parsebox_transcript::LineFailure::decl(&cfg),
        parsebox_transcript::DroppedEntry::decl(&cfg),
        parsebox_transcript::FailedLineEntry::decl(&cfg),
        Chunk::decl(&cfg),
        parsebox_transcript::BuilderCounts::decl(&cfg),
        Stream::decl(&cfg),
        AdapterState::decl(&cfg),
        AdapterStatus::decl(&cfg),
        parsebox_host::ModuleShape::decl(&cfg),
        Placement::decl(&cfg),
        LineHost::decl(&cfg),
        LoadError::decl(&cfg),
        parsebox_sandbox::LoadErrorCode::decl(&cfg),
        Diagnostics::decl(&cfg),
        parsebox_host::FallbackLine::decl(&cfg),
        parsebox_host::HostCounters::decl(&cfg),
        TimelineItem::decl(&cfg),
        EntriesMoved::decl(&cfg),
        TimelineItemType::decl(&cfg),
        ToolCallData::decl(&cfg),
        ToolKind::decl(&cfg),
        ToolStatus::decl(&cfg),
        ToolContent::decl(&cfg),
        ToolOutput::decl(&cfg),
        DiffLine::decl(&cfg),
        ToolLocation::decl(&cfg),
        InitInfo::decl(&cfg),
        ResultInfo::decl(&cfg),
    ];
    let mut out = String::from(HEADER);
    for d in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(d.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn the_committed_declarations_are_the_generated_ones() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("js/types.d.ts");
    let generated = declarations();
    if std::env::var_os("PARSEBOX_UPDATE_TYPES").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "js/types.d.ts is not what the Rust types generate: run \
         `PARSEBOX_UPDATE_TYPES=1 cargo test -p parsebox-wasm --test typescript`"
    );
    // Declarations only: doc comments may say "any".
    let any = generated
        .lines()
        .filter(|l| !l.trim_start().starts_with(['*', '/']))
        .find(|l| l.split(|c: char| !c.is_alphanumeric()).any(|w| w == "any"));
    assert_eq!(any, None, "no `any` in the published types");
}
