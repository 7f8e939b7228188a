//! Entry builders and item accessors shared by the timeline tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use parsebox_timeline::{Timeline, TimelineItem, TimelineItemType, ToolCallData, ToolStatus};
use parsebox_transcript::TranscriptEntry;
use serde_json::{json, Value};

/// An entry from its JSON shape (what a parser returns).
pub fn entry(v: Value) -> TranscriptEntry {
    serde_json::from_value(v).unwrap()
}

pub fn user(text: &str) -> TranscriptEntry {
    entry(json!({"kind": "user", "ts": "t", "text": text}))
}

pub fn assistant(text: &str) -> TranscriptEntry {
    entry(json!({"kind": "assistant", "ts": "t", "text": text}))
}

pub fn system(text: &str) -> TranscriptEntry {
    entry(json!({"kind": "system", "ts": "t", "text": text}))
}

pub fn stdout(text: &str) -> TranscriptEntry {
    entry(json!({"kind": "stdout", "ts": "t", "text": text}))
}

pub fn stderr(text: &str) -> TranscriptEntry {
    entry(json!({"kind": "stderr", "ts": "t", "text": text}))
}

pub fn init() -> TranscriptEntry {
    entry(json!({"kind": "init", "ts": "t", "model": "m", "sessionId": "s"}))
}

pub fn result() -> TranscriptEntry {
    entry(
        json!({"kind": "result", "ts": "t", "text": "done", "inputTokens": 1,
                 "outputTokens": 2, "cachedTokens": 0, "costUsd": 0.5, "subtype": "success",
                 "isError": false, "errors": []}),
    )
}

/// A `tool_call`; `id: None` leaves `toolUseId` out.
pub fn call(name: &str, id: Option<&str>) -> TranscriptEntry {
    let mut v =
        json!({"kind": "tool_call", "ts": "t", "name": name, "input": {"file_path": "src/a.rs"}});
    if let Some(id) = id {
        v["toolUseId"] = json!(id);
    }
    entry(v)
}

/// A `tool_result` (`id` may be `""`: no id); `tool_name: None` leaves `toolName` out.
pub fn res(id: &str, text: &str, is_error: bool, tool_name: Option<&str>) -> TranscriptEntry {
    let mut v = json!({"kind": "tool_result", "ts": "t", "toolUseId": id, "content": text,
                       "isError": is_error});
    if let Some(name) = tool_name {
        v["toolName"] = json!(name);
    }
    entry(v)
}

pub fn diff(change: &str, text: &str) -> TranscriptEntry {
    entry(json!({"kind": "diff", "ts": "t", "changeType": change, "text": text}))
}

/// The timeline of `entries`, built in one go.
pub fn items(entries: &[TranscriptEntry], finished: bool) -> Vec<TimelineItem> {
    Timeline::from_entries(entries, finished).items().to_vec()
}

/// The tool card of `item`.
pub fn card(item: &TimelineItem) -> &ToolCallData {
    item.tool_call
        .as_ref()
        .unwrap_or_else(|| panic!("no tool card in {item:?}"))
}

/// `(id, type)` of every item, to read a timeline's outline at a glance.
pub fn outline(items: &[TimelineItem]) -> Vec<(String, TimelineItemType)> {
    items
        .iter()
        .map(|i| (i.id.to_string(), i.item_type))
        .collect()
}

/// The result texts of a card, in order.
pub fn results(item: &TimelineItem) -> Vec<String> {
    card(item)
        .content
        .iter()
        .filter_map(|c| match c {
            parsebox_timeline::ToolContent::Content(o) => Some(o.text.clone()),
            parsebox_timeline::ToolContent::Diff(_) => None,
        })
        .collect()
}

/// The status of `item`'s card.
pub fn status(item: &TimelineItem) -> ToolStatus {
    card(item).status
}
