//! How one transcript entry starts a timeline item, or joins one: the per-entry rules, with no
//! bookkeeping. Which item an entry joins is [`crate::timeline`]'s decision; an item is always
//! what [`new_item`] of its first entry followed by [`join`] of each later entry makes it, which
//! is what lets the timeline rebuild an item from its entries when a tail is replaced.

use parsebox_transcript::entry::{Diff, ToolCall, ToolResult};
use parsebox_transcript::{read_fields, read_value, EntryText, RawJson, TranscriptEntry};
use serde_json::Value;

use crate::item::{
    DiffLine, InitInfo, TimelineItem, TimelineItemType, ToolCallData, ToolContent, ToolLocation,
    ToolOutput, ToolStatus,
};
use crate::kinds::tool_kind;
use crate::{ItemEntries, ItemId};

/// The status of a call no result has answered yet.
pub(crate) fn waiting(finished: bool) -> ToolStatus {
    if finished {
        ToolStatus::Unanswered
    } else {
        ToolStatus::Pending
    }
}

/// The item with id `id` that entry `index` starts. Positions are left `false`; the timeline
/// sets them.
pub(crate) fn new_item(
    id: ItemId,
    index: usize,
    entry: &TranscriptEntry,
    finished: bool,
) -> TimelineItem {
    let mut item = TimelineItem {
        id,
        item_type: TimelineItemType::Stdout,
        timestamp: entry.ts_shared().clone(),
        content: None,
        tool_call: None,
        diff: None,
        init: None,
        result: None,
        is_first: false,
        is_last: false,
        entries: ItemEntries::one(index),
    };
    match entry {
        TranscriptEntry::Assistant(b) => text(&mut item, TimelineItemType::Assistant, &b.text),
        TranscriptEntry::Thinking(b) => text(&mut item, TimelineItemType::Thinking, &b.text),
        TranscriptEntry::User(b) => shared(&mut item, TimelineItemType::User, &b.text),
        TranscriptEntry::Stderr(b) => shared(&mut item, TimelineItemType::Stderr, &b.text),
        TranscriptEntry::System(b) => shared(&mut item, TimelineItemType::System, &b.text),
        TranscriptEntry::Stdout(b) => shared(&mut item, TimelineItemType::Stdout, &b.text),
        TranscriptEntry::ToolCall(c) => {
            item.item_type = TimelineItemType::ToolCall;
            item.tool_call = Some(Box::new(ToolCallData {
                tool_call_id: non_empty(c.tool_use_id.as_deref()),
                kind: tool_kind(&c.name),
                title: c.name.clone(),
                status: waiting(finished),
                raw_input: c.input.clone(),
                content: Vec::new(),
                locations: locations(c.input.as_ref()),
            }));
        }
        TranscriptEntry::ToolResult(r) => {
            let title = r.tool_name.clone().unwrap_or_default();
            item.item_type = TimelineItemType::ToolResult;
            item.tool_call = Some(Box::new(ToolCallData {
                tool_call_id: non_empty(Some(&r.tool_use_id)),
                kind: tool_kind(&title),
                title,
                status: status_of(r),
                raw_input: None,
                content: vec![output(r)],
                locations: None,
            }));
        }
        TranscriptEntry::Diff(d) => {
            item.item_type = TimelineItemType::Diff;
            item.diff = Some(Box::new(vec![diff_line(d)]));
        }
        TranscriptEntry::Init(b) => {
            item.item_type = TimelineItemType::Init;
            item.init = Some(Box::new(InitInfo {
                model: b.model.clone(),
                session_id: b.session_id.clone(),
            }));
        }
        TranscriptEntry::Result(b) => {
            text(&mut item, TimelineItemType::Result, &b.text);
            item.result = Some(Box::new(b.info.clone()));
        }
    }
    item
}

/// Adds entry `index` to `item`: a result or a diff line to a tool card, a diff line to a diff
/// block, or the call an orphan result was waiting for. The entry is listed in `entries` in
/// every case, so no entry is ever lost.
pub(crate) fn join(item: &mut TimelineItem, index: usize, entry: &TranscriptEntry) {
    item.entries.push(index);
    match entry {
        TranscriptEntry::ToolResult(r) => {
            if let Some(call) = item.tool_call.as_mut() {
                call.content.push(output(r));
                call.status = status_of(r);
                if item.item_type == TimelineItemType::ToolResult && call.title.is_empty() {
                    if let Some(name) = r.tool_name.as_deref().filter(|n| !n.is_empty()) {
                        call.title = name.to_owned();
                        call.kind = tool_kind(name);
                    }
                }
            }
        }
        TranscriptEntry::Diff(d) => {
            if let Some(call) = item.tool_call.as_mut() {
                call.content.push(ToolContent::Diff(diff_line(d)));
            } else if let Some(lines) = item.diff.as_mut() {
                lines.push(diff_line(d));
            }
        }
        TranscriptEntry::ToolCall(c) => claim(item, c),
        _ => {}
    }
}

/// The call that an orphan result item was waiting for arrives: the item becomes that call's
/// card and keeps the results it already has (and so their status).
fn claim(item: &mut TimelineItem, c: &ToolCall) {
    if let Some(call) = item.tool_call.as_mut() {
        item.item_type = TimelineItemType::ToolCall;
        call.tool_call_id = non_empty(c.tool_use_id.as_deref()).or(call.tool_call_id.take());
        call.kind = tool_kind(&c.name);
        call.title = c.name.clone();
        call.raw_input = c.input.clone();
        call.locations = locations(c.input.as_ref());
    }
}

fn text(item: &mut TimelineItem, item_type: TimelineItemType, text: &str) {
    item.item_type = item_type;
    item.content = Some(EntryText::from(text));
}

/// [`text`] for an entry whose text may be a slice of its chunk: the item shares it.
fn shared(item: &mut TimelineItem, item_type: TimelineItemType, text: &EntryText) {
    item.item_type = item_type;
    item.content = Some(text.clone());
}

/// `Some` for a non-empty id: an empty `toolUseId` is as good as none.
pub(crate) fn non_empty(id: Option<&str>) -> Option<String> {
    id.filter(|s| !s.is_empty()).map(str::to_owned)
}

fn status_of(r: &ToolResult) -> ToolStatus {
    if r.is_error {
        ToolStatus::Failed
    } else {
        ToolStatus::Completed
    }
}

fn output(r: &ToolResult) -> ToolContent {
    ToolContent::Content(ToolOutput {
        text: r.content.clone(),
        is_error: r.is_error,
    })
}

fn diff_line(d: &Diff) -> DiffLine {
    DiffLine {
        change_type: d.change_type,
        text: d.text.clone(),
    }
}

/// Input keys that name one file, as the agents spell them.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "filePath",
    "path",
    "file",
    "filename",
    "fileName",
    "notebook_path",
    "notebookPath",
    "absolute_path",
    "absolutePath",
    "target_file",
    "targetFile",
    "dir_path",
    "dirPath",
];

/// Input keys that name several files.
const PATHS_KEYS: &[&str] = &["paths", "file_paths", "filePaths", "files"];

/// The files a call's input names at its top level, in key order of the tables above, without
/// repeats; `None` when it names none.
fn locations(input: Option<&RawJson>) -> Option<Vec<ToolLocation>> {
    // Only the top level is read: a large input's fields stay unparsed text.
    let obj = read_fields(input?.get())?;
    let field = |key: &str| -> Option<Value> { read_value(obj.get(key)?.get()) };
    let mut out: Vec<ToolLocation> = Vec::new();
    let mut add = |path: &str| {
        if !path.is_empty() && !out.iter().any(|l| l.path == path) {
            out.push(ToolLocation {
                path: path.to_owned(),
            });
        }
    };
    for key in PATH_KEYS {
        if let Some(Value::String(path)) = field(key) {
            add(&path);
        }
    }
    for key in PATHS_KEYS {
        if let Some(Value::Array(paths)) = field(key) {
            paths.iter().filter_map(Value::as_str).for_each(&mut add);
        }
    }
    (!out.is_empty()).then_some(out)
}
