//! What one call changed in a transcript, in the shape the page reads ([`Update`]): the
//! entries that changed and, with a timeline, the timeline's items that did. Each part
//! serialises on its own (the binding hands them to JS as two strings).

use std::borrow::Cow;

use parsebox_timeline::{EntriesMoved, LiveTimeline, TimelineItem, TimelineUpdate};
use parsebox_transcript::{LineParser, TranscriptBuilder, TranscriptEntry};
use serde::Serialize;

/// See the module's doc.
#[derive(Debug)]
pub struct Update<'a> {
    /// The entries' change.
    pub changes: Changes<'a>,
    /// The timeline's change (absent when the transcript keeps no timeline).
    pub timeline: Option<TimelineChanges<'a>>,
}

/// What one call changed in the entries: those that changed, from `from` on, and the
/// transcript's new length. Entries after the changed ones (`length - from - entries.len()`:
/// late answers leave the lines still waiting after them as they were) are the last ones the
/// page holds already.
#[derive(Serialize, Debug, PartialEq)]
pub struct Changes<'a> {
    /// Entries that left the front of the window first (`from` counts after them).
    pub dropped: usize,
    /// The first entry that changed.
    pub from: usize,
    /// The transcript's length now.
    pub length: usize,
    /// The entries from `from` on that changed (borrowed from the live window, or a copy of
    /// frozen ones when every entry changed).
    pub entries: Cow<'a, [TranscriptEntry]>,
}

/// A [`TimelineUpdate`] with the items themselves instead of their ids (only those items are
/// serialised: the cost follows the change, not the run), each in its wire form beside the
/// entries the page holds: a text an entry of the window holds is that entry's index
/// ([`TimelineItem::sharing_texts`]), which `builder.js` turns back into the text.
#[derive(Serialize, Debug)]
pub struct TimelineChanges<'a> {
    changed: SharedItems<'a>,
    added: SharedItems<'a>,
    removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    moved: Vec<EntriesMoved>,
}

impl<'a> TimelineChanges<'a> {
    pub(crate) fn of<P: LineParser>(
        timeline: &'a LiveTimeline,
        builder: &'a TranscriptBuilder<P>,
        update: TimelineUpdate,
        window: &'a [TranscriptEntry],
        base: usize,
    ) -> Self {
        // The frozen prefix's last item changes with the window's first one: its texts are
        // shared with its entry, which the page holds, as a window item's are.
        let before = timeline
            .timeline()
            .frozen_last()
            .and_then(|_| builder.last_frozen())
            .map(|(_, entry)| entry);
        let items = |ids: &[String]| SharedItems {
            items: timeline.items_named(builder, ids),
            window,
            base: base + builder.frozen_len(),
            first: builder.frozen_len(),
            before: before.clone(),
        };
        Self {
            changed: items(&update.changed),
            added: items(&update.added),
            removed: update.removed,
            moved: update.moved,
        }
    }
}

/// Items, serialised as [`TimelineItem::sharing_texts`] beside `window` (the run's entries from
/// `base` on: what the page holds after the update).
#[derive(Debug)]
struct SharedItems<'a> {
    items: Vec<Cow<'a, TimelineItem>>,
    /// The builder's live entries, the run's from `base` on, the page's from `first` on.
    window: &'a [TranscriptEntry],
    base: usize,
    first: usize,
    /// The frozen prefix's last entry (the page's `first - 1`).
    before: Option<TranscriptEntry>,
}

impl Serialize for SharedItems<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items.iter().map(|item| {
            item.sharing_texts_from(self.window, self.base, self.first, self.before.as_ref())
        }))
    }
}
