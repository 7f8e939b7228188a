//! The text of a `stdout`, `stderr`, `system` or `user` entry, kept once: an [`EntryText`] is
//! either a string of its own or a slice of a chunk the [`TranscriptBuilder`] retains anyway.
//! A plain run's entries are its lines as they came, and the builder keeps every chunk to parse
//! the run again (when the adapter's parser becomes ready); holding each line a second time in
//! its entry would double what the run costs the core.
//!
//! It reads as a `str` (`Deref`), compares, serialises and deserialises as one; only the builder
//! makes slices.
//!
//! [`TranscriptBuilder`]: crate::TranscriptBuilder

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An entry's text: a string of its own, or a slice of a retained chunk's text.
#[derive(Clone)]
pub struct EntryText(Repr);

#[derive(Clone)]
enum Repr {
    Owned(String),
    /// `chunk[start..end]`, both on character boundaries (checked where it is made). `u32`
    /// keeps an entry small: a text past 4 GiB of its chunk is simply owned.
    Slice {
        chunk: Arc<str>,
        start: u32,
        end: u32,
    },
}

impl EntryText {
    /// `text`, a slice of `chunk` (the same bytes in memory, not only equal ones), as a slice
    /// of it; `None` when it is not one.
    pub(crate) fn slice_of(chunk: &Arc<str>, text: &str) -> Option<Self> {
        let start = (text.as_ptr() as usize).checked_sub(chunk.as_ptr() as usize)?;
        let end = start.checked_add(text.len())?;
        let inside = chunk.get(start..end)?;
        if inside.as_ptr() != text.as_ptr() {
            return None;
        }
        Some(Self(Repr::Slice {
            chunk: Arc::clone(chunk),
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
        }))
    }

    /// Whether the text is a slice of a retained chunk (it then costs the entry no bytes of
    /// its own).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Slice { .. })
    }

    /// The retained chunk the text is a slice of, and where in it (`None` for a text of its
    /// own): what the builder's frozen prefix keeps of a plain line.
    pub(crate) fn chunk_slice(&self) -> Option<(&Arc<str>, u32, u32)> {
        match &self.0 {
            Repr::Slice { chunk, start, end } => Some((chunk, *start, *end)),
            Repr::Owned(_) => None,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            Repr::Slice { chunk, start, end } => {
                // In range and on boundaries since `slice_of`; the fallback never shows.
                chunk
                    .get(*start as usize..*end as usize)
                    .unwrap_or_default()
            }
        }
    }

    /// The text as a string of its own.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(s) => s,
            Repr::Slice { .. } => self.as_str().to_owned(),
        }
    }
}

impl Default for EntryText {
    fn default() -> Self {
        Self(Repr::Owned(String::new()))
    }
}

impl Deref for EntryText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for EntryText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for EntryText {
    fn from(s: String) -> Self {
        Self(Repr::Owned(s))
    }
}

impl From<&str> for EntryText {
    fn from(s: &str) -> Self {
        Self(Repr::Owned(s.to_owned()))
    }
}

impl From<EntryText> for String {
    fn from(t: EntryText) -> Self {
        t.into_string()
    }
}

impl PartialEq for EntryText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for EntryText {}

impl PartialEq<str> for EntryText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EntryText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for EntryText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Debug for EntryText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for EntryText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EntryText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EntryText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_is_only_made_of_the_chunk_itself() {
        let chunk: Arc<str> = Arc::from("one\ntwo\n");
        let two = chunk.get(4..7).unwrap_or_default();
        let shared = EntryText::slice_of(&chunk, two).expect("a slice of the chunk");
        assert!(shared.is_shared());
        assert_eq!(shared, "two");
        // Equal text elsewhere is not a slice of the chunk.
        let elsewhere = String::from("two");
        assert!(EntryText::slice_of(&chunk, &elsewhere).is_none());
    }

    #[test]
    fn it_is_a_string_on_the_wire() {
        let chunk: Arc<str> = Arc::from("a \"quoted\" line\n");
        let line = chunk.get(..15).unwrap_or_default();
        let text = EntryText::slice_of(&chunk, line).expect("a slice of the chunk");
        let json = serde_json::to_string(&text).unwrap_or_default();
        assert_eq!(json, r#""a \"quoted\" line""#);
        let back: EntryText = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, text);
        assert!(!back.is_shared());
    }
}
