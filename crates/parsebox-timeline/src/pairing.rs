//! The index that pairs results with calls: tool items by `toolUseId`, and unanswered calls
//! by name, oldest first. What an item is registered under is a function of the item alone
//! ([`PairKey::of`]), so taking an item out and putting it back (when a tail of the transcript is
//! replaced) leaves the index exactly as a build from scratch would.
//!
//! Item positions in the timeline are the keys of the sets: items are ordered by their first
//! entry, so the smallest position is the oldest call.

use std::borrow::Cow;
use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use crate::item::{TimelineItem, TimelineItemType, ToolStatus};

/// What a tool item is registered under (borrowed from the item).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PairKey<'a> {
    /// The call's `toolUseId` (an orphan result's own), when non-empty.
    id: Option<&'a str>,
    /// `true` for a call, `false` for an orphan result.
    is_call: bool,
    /// No result has answered it yet.
    open: bool,
    /// The tool's name as given; matched lowercased.
    name: &'a str,
}

impl<'a> PairKey<'a> {
    /// The key of `item`, or `None` for an item that takes no part in pairing.
    pub(crate) fn of(item: &'a TimelineItem) -> Option<Self> {
        let call = item.tool_call.as_ref()?;
        let is_call = item.item_type == TimelineItemType::ToolCall;
        Some(Self {
            id: call.tool_call_id.as_deref(),
            is_call,
            open: is_call && matches!(call.status, ToolStatus::Pending | ToolStatus::Unanswered),
            name: &call.title,
        })
    }
}

/// `name` lowercased (names match without regard to case), without a copy when it already is.
fn lower(name: &str) -> Cow<'_, str> {
    if name.chars().any(char::is_uppercase) {
        Cow::Owned(name.to_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// Runs `f` on the value under `key`, created if missing (the key is copied only then).
/// Values that become empty stay: a later item with the same key reuses them.
fn with_slot<V: Default>(map: &mut HashMap<String, V>, key: &str, f: impl FnOnce(&mut V)) {
    if let Some(value) = map.get_mut(key) {
        f(value);
    } else {
        let mut value = V::default();
        f(&mut value);
        map.insert(key.to_owned(), value);
    }
}

/// The items registered under one id.
#[derive(Debug, Default)]
struct IdSlots {
    /// Every call and orphan result with this id.
    all: BTreeSet<usize>,
    /// Calls with this id that no result has answered.
    open: BTreeSet<usize>,
    /// Orphan results with this id (no call has claimed them).
    orphans: BTreeSet<usize>,
}

/// Tool items indexed for pairing.
#[derive(Debug, Default)]
pub(crate) struct Pairing {
    by_id: HashMap<String, IdSlots>,
    /// Every unanswered call.
    open: BTreeSet<usize>,
    /// Unanswered calls by lowercased name.
    open_by_name: HashMap<String, BTreeSet<usize>>,
    /// Unanswered calls without an id.
    open_anon: BTreeSet<usize>,
    /// Unanswered calls without an id, by lowercased name.
    open_anon_by_name: HashMap<String, BTreeSet<usize>>,
}

impl Pairing {
    /// Registers the item at `pos` under `key`.
    pub(crate) fn insert(&mut self, pos: usize, key: &PairKey<'_>) {
        if let Some(id) = key.id {
            with_slot(&mut self.by_id, id, |slots: &mut IdSlots| {
                slots.all.insert(pos);
                if key.open {
                    slots.open.insert(pos);
                }
                if !key.is_call {
                    slots.orphans.insert(pos);
                }
            });
        }
        if key.open {
            let name = lower(key.name);
            self.open.insert(pos);
            with_slot(
                &mut self.open_by_name,
                &name,
                |set: &mut BTreeSet<usize>| {
                    set.insert(pos);
                },
            );
            if key.id.is_none() {
                self.open_anon.insert(pos);
                with_slot(
                    &mut self.open_anon_by_name,
                    &name,
                    |set: &mut BTreeSet<usize>| {
                        set.insert(pos);
                    },
                );
            }
        }
    }

    /// Takes the item at `pos`, registered under `key`, out of the index.
    pub(crate) fn remove(&mut self, pos: usize, key: &PairKey<'_>) {
        if let Some(slots) = key.id.and_then(|id| self.by_id.get_mut(id)) {
            slots.all.remove(&pos);
            slots.open.remove(&pos);
            slots.orphans.remove(&pos);
        }
        if key.open {
            let name = lower(key.name);
            self.open.remove(&pos);
            if let Some(set) = self.open_by_name.get_mut(name.as_ref()) {
                set.remove(&pos);
            }
            if key.id.is_none() {
                self.open_anon.remove(&pos);
                if let Some(set) = self.open_anon_by_name.get_mut(name.as_ref()) {
                    set.remove(&pos);
                }
            }
        }
    }

    /// The item a `tool_result` with `id` (possibly empty) and `tool_name` joins, if any:
    ///
    /// 1. a non-empty `id` that calls or orphan results are registered under: the oldest of
    ///    those calls still unanswered, else the latest item with that id (a duplicate result);
    /// 2. otherwise, with a non-empty `tool_name`: the oldest unanswered call of that name
    ///    (case-insensitive) — any such call when `id` is empty, only calls without an id when
    ///    `id` is given (a call with another id is another call);
    /// 3. otherwise: the oldest unanswered call without an id.
    pub(crate) fn result_target(&self, id: &str, tool_name: Option<&str>) -> Option<usize> {
        if !id.is_empty() {
            if let Some(slots) = self.by_id.get(id) {
                if let Some(&pos) = slots.open.first().or_else(|| slots.all.last()) {
                    return Some(pos);
                }
            }
        }
        match tool_name.filter(|n| !n.is_empty()) {
            Some(name) => {
                let by_name = if id.is_empty() {
                    &self.open_by_name
                } else {
                    &self.open_anon_by_name
                };
                by_name
                    .get(lower(name).as_ref())
                    .and_then(|set| set.first().copied())
            }
            None => self.open_anon.first().copied(),
        }
    }

    /// The orphan result a `tool_call` with `id` claims: the oldest one with that id.
    pub(crate) fn call_target(&self, id: Option<&str>) -> Option<usize> {
        self.by_id
            .get(id.filter(|s| !s.is_empty())?)
            .and_then(|slots| slots.orphans.first().copied())
    }

    /// Every unanswered call, oldest first.
    pub(crate) fn open_calls(&self) -> impl Iterator<Item = usize> + '_ {
        self.open.iter().copied()
    }
}
