//! [`ItemId`]: a timeline item's id kept as its numbers. Written out it is the text a viewer
//! keys its list with (`"e12"`, `"e12.1"`); kept as text it cost every item a heap block of its
//! own, and a plain run has an item a line (issue 54).

use std::fmt;

use parsebox_transcript::EntryOrigin;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The id of a [`TimelineItem`](crate::TimelineItem): the [`EntryOrigin`] of its first entry,
/// in 12 bytes, ordered as the origins are. Its text form (`Display`, serde) is the origin's:
/// `e<unit>`, or `e<unit>.<nth>` for a unit's second and later entries.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemId {
    // The unit's high and low halves, then nth: the derived order is the origin's order. Three
    // `u32`s align to 4 bytes, where a `u64` would make the id 16.
    unit_high: u32,
    unit_low: u32,
    nth: u32,
}

impl ItemId {
    /// The id of an item whose first entry came from `origin`. A unit's entries past
    /// `u32::MAX` (more than a transcript's budget can hold) share the last number.
    pub fn of(origin: EntryOrigin) -> Self {
        Self {
            unit_high: (origin.unit >> 32) as u32,
            unit_low: origin.unit as u32,
            nth: u32::try_from(origin.nth).unwrap_or(u32::MAX),
        }
    }

    /// The origin of the item's first entry.
    pub fn origin(self) -> EntryOrigin {
        EntryOrigin {
            unit: (u64::from(self.unit_high) << 32) | u64::from(self.unit_low),
            nth: self.nth as usize,
        }
    }

    /// Reads the text form back (`e<unit>` or `e<unit>.<nth>`); `None` for an `nth` no id
    /// holds (past `u32::MAX`), which names no item.
    pub fn parse(text: &str) -> Option<Self> {
        EntryOrigin::parse(text)
            .filter(|o| u32::try_from(o.nth).is_ok())
            .map(Self::of)
    }
}

impl From<EntryOrigin> for ItemId {
    fn from(origin: EntryOrigin) -> Self {
        Self::of(origin)
    }
}

impl fmt::Display for ItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.origin().fmt(f)
    }
}

impl fmt::Debug for ItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

impl PartialEq<str> for ItemId {
    fn eq(&self, text: &str) -> bool {
        Self::parse(text) == Some(*self)
    }
}

impl PartialEq<&str> for ItemId {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl PartialEq<String> for ItemId {
    fn eq(&self, text: &String) -> bool {
        *self == **text
    }
}

impl Serialize for ItemId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ItemId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "a timeline item id is e<unit> or e<unit>.<nth>, got {text:?}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_writes_and_reads_the_origins_text() {
        for (unit, nth, text) in [
            (0, 0, "e0"),
            (12, 0, "e12"),
            (12, 2, "e12.2"),
            (1 << 40, 1, "e1099511627776.1"),
        ] {
            let id = ItemId::of(EntryOrigin { unit, nth });
            assert_eq!(id.to_string(), text);
            assert_eq!(id.origin(), EntryOrigin { unit, nth });
            assert_eq!(ItemId::parse(text), Some(id));
            let owned: String = text.into();
            assert!(id == text && id == owned);
            assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<ItemId>(&format!("\"{text}\"")).unwrap(),
                id
            );
        }
        assert!(serde_json::from_str::<ItemId>("\"x1\"").is_err());
        assert_eq!(
            ItemId::parse("e1.4294967296"),
            None,
            "an nth past u32::MAX names no item"
        );
        assert!(ItemId::parse("e1") != Some(ItemId::of(EntryOrigin { unit: 1, nth: 1 })));
    }

    #[test]
    fn ids_order_as_the_origins() {
        let ids = [
            (0, 0),
            (0, 1),
            (1, 0),
            (u64::from(u32::MAX), 5),
            (1 << 32, 0),
        ]
        .map(|(unit, nth)| ItemId::of(EntryOrigin { unit, nth }));
        assert!(ids.iter().zip(ids.iter().skip(1)).all(|(a, b)| a < b));
        assert_eq!(std::mem::size_of::<ItemId>(), 12);
    }
}
