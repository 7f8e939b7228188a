//! The render-ready timeline of a transcript (SPEC §9): what a run-log viewer draws instead of
//! the flat list of entries. A `tool_call` and its `tool_result`s become one tool card whose
//! status moves from `pending` to `completed` or `failed` (or `unanswered` when the run ends
//! without a result), diff lines join the card of the edit that produced them, each item knows
//! whether it starts or ends a sequence between two user messages (`isFirst` / `isLast`), and
//! every item has an id that does not change as more of the run arrives. The shape follows
//! qwen-code's web UI adapter layer (seed `004_…`).
//!
//! It sits beside the transcript builder of `parsebox-transcript` and is fed by its change
//! ranges: [`Timeline::update`] costs work proportional to the changed entries and says which
//! items changed, were added or were removed, so a renderer touches only those; a
//! [`LiveTimeline`] follows a builder whose lines may be answered late, and places each such line
//! once, when its answer comes (or after a frame). Like the transcript crate it has no I/O; the
//! wasm binding and the CLI only convert.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod fold;
pub mod item;
pub mod item_entries;
pub mod item_id;
pub mod kinds;
pub mod live;
mod pairing;
mod positions;
pub mod shared_text;
pub mod timeline;

pub use item::{
    DiffLine, InitInfo, ResultInfo, TimelineItem, TimelineItemType, ToolCallData, ToolContent,
    ToolKind, ToolLocation, ToolOutput, ToolStatus,
};
pub use item_entries::ItemEntries;
pub use item_id::ItemId;
pub use kinds::tool_kind;
pub use live::LiveTimeline;
pub use shared_text::entry_text;
pub use timeline::{EntriesMoved, FrozenLast, Origins, Timeline, TimelineUpdate};
