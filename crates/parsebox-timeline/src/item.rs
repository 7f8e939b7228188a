//! The shapes a viewer renders: [`TimelineItem`] and the tool card it may carry,
//! [`ToolCallData`]. They follow the unified message of qwen-code's web UI adapter layer
//! (SPEC §9): `{ id, type, timestamp, content?, toolCall?, isFirst, isLast }`, with camelCase
//! keys on the wire, plus what a transcript has and that shape lacks (diff items, the `init` and
//! `result` summaries, and the transcript entries each item shows).

pub use parsebox_transcript::entry::ResultInfo;
use parsebox_transcript::{DiffChangeType, EntryText, RawJson, Ts};
use serde::{Deserialize, Serialize};

use crate::{ItemEntries, ItemId};

/// One thing a run-log viewer draws: a message, a tool card (a call with its results and diff
/// lines), a block of diff lines, or a session/turn marker.
///
/// Its `id` (`"e<unit>"` or `"e<unit>.<nth>"`: where the item's first entry came from, see
/// `EntryOrigin`) never changes as more of the run arrives or as late answers change earlier
/// lines' entries, so a React list keeps its keys.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineItem {
    /// Stable id: where the item's first entry came from, `e` and the run's line (or
    /// stderr/system chunk) number that made it, e.g. `"e12"`, with `.<nth>` for that line's
    /// second and later entries, e.g. `"e12.1"`.
    // Kept as its numbers (`ItemId`), written as that text.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub id: ItemId,
    /// What the item is; decides which of the optional fields are present.
    #[serde(rename = "type")]
    pub item_type: TimelineItemType,
    /// ISO timestamp of the item's first entry (the entry's own string, shared).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub timestamp: Ts,
    /// The text of `user`, `assistant`, `thinking`, `system`, `stderr`, `stdout` and `result`
    /// items. A line shown as it came shares its text with its entry (and the chunk it came in):
    /// a plain run's timeline holds no copy of its lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub content: Option<EntryText>,
    /// The tool card of `tool_call` and `tool_result` items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_call: Option<Box<ToolCallData>>,
    /// The lines of a `diff` item (diff lines that follow no tool call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    // Boxed: most items have none, and a plain run has an item a line.
    pub diff: Option<Box<Vec<DiffLine>>>,
    /// Model and session of an `init` item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub init: Option<Box<InitInfo>>,
    /// Usage, cost and errors of a `result` item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result: Option<Box<ResultInfo>>,
    /// The item starts a sequence: it is the first item, or a `user` item comes before it.
    /// `user` items themselves have `isFirst` and `isLast` both `true` (no connector).
    pub is_first: bool,
    /// The item ends a sequence: it is the last item, or a `user` item comes after it.
    pub is_last: bool,
    /// The transcript indices of the entries this item shows, ascending. Every entry of the
    /// transcript is in exactly one item; a tool card's entries need not be adjacent (its result
    /// may come after other items).
    #[cfg_attr(feature = "ts", ts(type = "Array<number>"))]
    pub entries: ItemEntries,
}

/// The `type` of a [`TimelineItem`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineItemType {
    /// A user message. It breaks the assistant's sequence: no connector.
    User,
    /// Assistant text.
    Assistant,
    /// Thinking / reasoning text.
    Thinking,
    /// A tool call, with its results and diff lines once they arrive (`toolCall`).
    ToolCall,
    /// A tool result that answers no call seen before it (`toolCall`, status `completed` or
    /// `failed`). A later call with the same `toolUseId` joins it, and it becomes `tool_call`.
    ToolResult,
    /// Diff lines that follow no tool call (`diff`).
    Diff,
    /// Session start (`init`).
    Init,
    /// End of a turn (`content` and `result`).
    Result,
    /// A system or adapter message.
    System,
    /// A stderr chunk.
    Stderr,
    /// Raw stdout (the generic parser's output and fallbacks).
    Stdout,
}

/// The tool card of a `tool_call` (or orphan `tool_result`) item.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallData {
    /// The call's `toolUseId` (for an orphan result, the result's), when it has a non-empty one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_call_id: Option<String>,
    /// What sort of tool it is, from its name ([`tool_kind`](crate::tool_kind)).
    pub kind: ToolKind,
    /// The tool's name as the parser gave it (an orphan result's `toolName`, or `""`).
    pub title: String,
    /// Where the call stands.
    pub status: ToolStatus,
    /// The call's `input`, when it had one.
    // The entry's own JSON text, shared ([`RawJson`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "JsonValue"))]
    pub raw_input: Option<RawJson>,
    /// Results and diff lines, in transcript order.
    pub content: Vec<ToolContent>,
    /// File paths named by the input (`file_path`, `path`, `paths`, …), when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub locations: Option<Vec<ToolLocation>>,
}

/// What sort of tool a call is: picks the card's icon and layout. See
/// [`tool_kind`](crate::tool_kind) for the table of names.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads a file.
    Read,
    /// Creates or overwrites a file.
    Write,
    /// Changes a file in place (edit, patch, replace, delete).
    Edit,
    /// Runs a command.
    Shell,
    /// Searches or lists the workspace (grep, glob, list a directory).
    Search,
    /// Reaches the web (fetch a URL, web search).
    Fetch,
    /// Plans or thinks: todo lists, plans, `think` tools.
    Think,
    /// Anything else, including every name the table does not know.
    Other,
}

/// Where a tool call stands.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Called, no result yet, and the run is still going.
    Pending,
    /// The latest result says it succeeded.
    Completed,
    /// The latest result has `isError: true`.
    Failed,
    /// The run finished and no result ever came: the call was never answered.
    Unanswered,
}

/// One piece of a tool card's body: a result, or a diff line.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    /// A `tool_result`'s text: `{ type: "content", text, isError }`.
    Content(ToolOutput),
    /// A diff line: `{ type: "diff", changeType, text }`.
    Diff(DiffLine),
}

/// The text of one `tool_result`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The result's `content`.
    pub text: String,
    /// The result's `isError`.
    pub is_error: bool,
}

/// One line of a diff.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// What the line is (added, removed, context, hunk header, …).
    pub change_type: DiffChangeType,
    /// The line's text.
    pub text: String,
}

/// A file a tool call names in its input.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolLocation {
    /// The path as the input gave it.
    pub path: String,
}

/// Model and session of an `init` item.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitInfo {
    /// The model the agent runs.
    pub model: String,
    /// The agent's session id.
    pub session_id: String,
}
