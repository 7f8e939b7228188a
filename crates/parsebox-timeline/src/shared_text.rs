//! An item's compact wire form for a receiver that already holds the transcript: where a text
//! of the item is the text of one of the receiver's entries, the wire carries that entry's index
//! instead of repeating the text. A live viewer receives the changed entries and the changed
//! items of every push side by side; most of an item's bytes are texts its entries already
//! carry, and not sending them twice is the largest part of what the timeline adds to a push.
//!
//! The receiver puts the texts back with one rule ([`resolve`] is that rule in Rust): in an
//! item's `content`, and in the `text` of its card's pieces and its diff lines, a number `i`
//! stands for the text of the receiver's entry `i` ([`entry_text`]); in its `timestamp`, for
//! that entry's `ts`. Texts are only shared when they are equal, checked as the form is
//! written, so the resolved item is always the item.

use parsebox_transcript::{DiffChangeType, RawJson, TranscriptEntry};
use serde::Serialize;
use serde_json::Value;

use crate::item::{
    InitInfo, ResultInfo, TimelineItem, TimelineItemType, ToolCallData, ToolContent, ToolKind,
    ToolLocation, ToolStatus,
};
use crate::ItemId;

/// The text an entry shows: a tool result's `content`, the `text` of a message, a system,
/// stderr or stdout line, a run result or a diff line; `None` for a tool call and `init`.
pub fn entry_text(entry: &TranscriptEntry) -> Option<&str> {
    match entry {
        TranscriptEntry::Assistant(b) | TranscriptEntry::Thinking(b) => Some(&b.text),
        TranscriptEntry::User(b)
        | TranscriptEntry::Stderr(b)
        | TranscriptEntry::System(b)
        | TranscriptEntry::Stdout(b) => Some(&b.text),
        TranscriptEntry::ToolResult(r) => Some(&r.content),
        TranscriptEntry::Result(r) => Some(&r.text),
        TranscriptEntry::Diff(d) => Some(&d.text),
        TranscriptEntry::ToolCall(_) | TranscriptEntry::Init(_) => None,
    }
}

impl TimelineItem {
    /// This item's wire form beside `window`, the receiver's entries, whose first is the run's
    /// entry `base`: each text that is the text of an entry in the window is that entry's index
    /// in the window (entries before it, which a kept tool card may still show, keep their
    /// text). Serialises to the item's own JSON shape except for those numbers.
    pub fn sharing_texts<'a>(
        &'a self,
        window: &'a [TranscriptEntry],
        base: usize,
    ) -> impl Serialize + 'a {
        self.sharing_texts_from(window, base, 0, None)
    }

    /// [`sharing_texts`](Self::sharing_texts) for a receiver whose entries before `window` are
    /// `first` more (entries the sender keeps frozen, not as a slice): a shared text is the
    /// receiver's index, `first` past the window's. `before`: the entry just before the window
    /// (the frozen prefix's last, whose item a change of the window's first item changes), which
    /// shares its texts too.
    pub fn sharing_texts_from<'a>(
        &'a self,
        window: &'a [TranscriptEntry],
        base: usize,
        first: usize,
        before: Option<&'a TranscriptEntry>,
    ) -> impl Serialize + 'a {
        let TimelineItem {
            id,
            item_type,
            timestamp,
            content,
            tool_call,
            diff,
            init,
            result,
            is_first,
            is_last,
            entries,
        } = self;
        let source = Sources {
            window,
            base,
            first,
            before,
        };
        // The entries in the window whose texts became the card's pieces or the diff block's
        // lines, in order. They made the last pieces: a kept card's entries before the window
        // came first, and their pieces keep their texts.
        let in_window: Vec<usize> = entries
            .iter()
            .copied()
            .filter(|&e| source.is_piece(e))
            .collect();
        let total = tool_call.as_ref().map_or(0, |c| c.content.len())
            + diff.as_ref().map_or(0, |lines| lines.len());
        let mut next = 0;
        let mut piece = |text: &'a str| {
            let from = (next + in_window.len()).checked_sub(total);
            next += 1;
            source.text(from.and_then(|k| in_window.get(k).copied()), text)
        };
        WireItem {
            id,
            item_type: *item_type,
            timestamp: source.share(entries.first().copied(), timestamp, |e| Some(e.ts())),
            content: content
                .as_deref()
                .map(|text| source.text(entries.first().copied(), text)),
            tool_call: tool_call.as_ref().map(|call| {
                let ToolCallData {
                    tool_call_id,
                    kind,
                    title,
                    status,
                    raw_input,
                    content,
                    locations,
                } = &**call;
                WireCall {
                    tool_call_id: tool_call_id.as_deref(),
                    kind: *kind,
                    title,
                    status: *status,
                    raw_input: raw_input.as_ref(),
                    content: content
                        .iter()
                        .map(|c| match c {
                            ToolContent::Content(out) => WirePiece::Content {
                                text: piece(&out.text),
                                is_error: out.is_error,
                            },
                            ToolContent::Diff(line) => WirePiece::Diff {
                                change_type: line.change_type,
                                text: piece(&line.text),
                            },
                        })
                        .collect(),
                    locations: locations.as_deref(),
                }
            }),
            diff: diff.as_ref().map(|lines| {
                lines
                    .iter()
                    .map(|line| WireDiffLine {
                        change_type: line.change_type,
                        text: piece(&line.text),
                    })
                    .collect()
            }),
            init: init.as_deref(),
            result: result.as_deref(),
            is_first: *is_first,
            is_last: *is_last,
            entries,
        }
    }
}

/// Where an item's texts may come from.
struct Sources<'a> {
    window: &'a [TranscriptEntry],
    base: usize,
    /// The receiver's index of the window's first entry.
    first: usize,
    /// The entry just before the window (run index `base - 1`, the receiver's `first - 1`).
    before: Option<&'a TranscriptEntry>,
}

impl<'a> Sources<'a> {
    /// The entry with run index `index` and the receiver's index of it, when the receiver
    /// holds it and the sender has it here (the window, or the entry just before it).
    fn entry(&self, index: usize) -> Option<(usize, &'a TranscriptEntry)> {
        match index.checked_sub(self.base) {
            Some(local) => Some((self.first + local, self.window.get(local)?)),
            None if index + 1 == self.base => Some((self.first.checked_sub(1)?, self.before?)),
            None => None,
        }
    }

    /// Whether the item's entry `index` is in the window and made one of its card's pieces or
    /// diff lines: a result or a diff line.
    fn is_piece(&self, index: usize) -> bool {
        matches!(
            self.entry(index),
            Some((_, TranscriptEntry::ToolResult(_) | TranscriptEntry::Diff(_)))
        )
    }

    /// `own`, or the window index of entry `index` when `read` gives `own` from that entry.
    fn share(
        &self,
        index: Option<usize>,
        own: &'a str,
        read: impl Fn(&TranscriptEntry) -> Option<&str>,
    ) -> Text<'a> {
        match index.and_then(|i| self.entry(i)) {
            Some((at, entry)) if read(entry) == Some(own) => Text::Entry(at),
            _ => Text::Own(own),
        }
    }

    /// `text`, or the window index of entry `index` when that entry's text is `text`.
    fn text(&self, index: Option<usize>, text: &'a str) -> Text<'a> {
        self.share(index, text, entry_text)
    }
}

/// A text on the wire: the receiver's entry that holds it, or the text itself.
#[derive(Serialize)]
#[serde(untagged)]
enum Text<'a> {
    Entry(usize),
    Own(&'a str),
}

/// [`TimelineItem`]'s fields, borrowed, with texts as [`Text`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireItem<'a> {
    id: &'a ItemId,
    #[serde(rename = "type")]
    item_type: TimelineItemType,
    timestamp: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call: Option<WireCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<Vec<WireDiffLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    init: Option<&'a InitInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a ResultInfo>,
    is_first: bool,
    is_last: bool,
    entries: &'a [usize],
}

/// [`ToolCallData`]'s fields, borrowed, with texts as [`Text`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireCall<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    kind: ToolKind,
    title: &'a str,
    status: ToolStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_input: Option<&'a RawJson>,
    content: Vec<WirePiece<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<&'a [ToolLocation]>,
}

/// [`ToolContent`] with its text as [`Text`].
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WirePiece<'a> {
    Content {
        text: Text<'a>,
        #[serde(rename = "isError")]
        is_error: bool,
    },
    Diff {
        #[serde(rename = "changeType")]
        change_type: DiffChangeType,
        text: Text<'a>,
    },
}

/// [`DiffLine`](crate::DiffLine) with its text as [`Text`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireDiffLine<'a> {
    change_type: DiffChangeType,
    text: Text<'a>,
}

/// What the receiver does with an item's wire form (`value`, as JSON): every number where a
/// text belongs becomes the text of `window`'s entry at that index. `false` when a number
/// names no entry with a text (the form was not written for this window).
pub fn resolve(value: &mut Value, window: &[TranscriptEntry]) -> bool {
    // A number in `slot` becomes what `read` gives of the entry it names.
    let fill = |slot: Option<&mut Value>, read: fn(&TranscriptEntry) -> Option<&str>| match slot {
        Some(v) if v.is_number() => {
            let text = v
                .as_u64()
                .and_then(|i| window.get(usize::try_from(i).ok()?))
                .and_then(read);
            text.map(|text| *v = Value::from(text)).is_some()
        }
        _ => true,
    };
    let mut ok = fill(value.get_mut("timestamp"), |e| Some(e.ts()));
    ok &= fill(value.get_mut("content"), entry_text);
    let pieces = [("toolCall", "content"), ("diff", "")];
    for (outer, inner) in pieces {
        let list = match value.get_mut(outer) {
            Some(v) if inner.is_empty() => Some(v),
            Some(v) => v.get_mut(inner),
            None => None,
        };
        if let Some(Value::Array(list)) = list {
            for piece in list {
                ok &= fill(piece.get_mut("text"), entry_text);
            }
        }
    }
    ok
}
