//! An entry's timestamp, kept once: a [`Ts`] is a shared string, so the entries a chunk's lines
//! make, and the timeline items that show them, hold one copy of the chunk's timestamp between
//! them instead of one each (a 1-character line's entry cost more in its own timestamp than in
//! everything else it holds).
//!
//! It reads as a `str` (`Deref`), compares, serialises and deserialises as one.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An ISO timestamp shared by the entries (and timeline items) that carry it.
// A thin pointer to the shared string (one word, where an `Arc<str>` is two): every entry and
// timeline item has one, and a plain run has one of each a line.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ts(Arc<Box<str>>);

impl Ts {
    /// The timestamp.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Makes this timestamp share `other`'s string when the two are equal (no bytes of its
    /// own then); returns whether they were equal.
    pub fn share(&mut self, other: &Ts) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        if *self.0 != *other.0 {
            return false;
        }
        self.0 = Arc::clone(&other.0);
        true
    }

    /// Whether `self` and `other` are one string in memory (not only equal ones).
    pub fn is_shared_with(&self, other: &Ts) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for Ts {
    fn default() -> Self {
        Self::from("")
    }
}

impl Deref for Ts {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Ts {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<String> for Ts {
    fn from(s: String) -> Self {
        Self(Arc::new(s.into_boxed_str()))
    }
}

impl From<&str> for Ts {
    fn from(s: &str) -> Self {
        Self(Arc::new(Box::from(s)))
    }
}

impl From<&String> for Ts {
    fn from(s: &String) -> Self {
        Self::from(s.as_str())
    }
}

impl From<Ts> for String {
    fn from(t: Ts) -> Self {
        t.as_str().to_owned()
    }
}

impl PartialEq<str> for Ts {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Ts {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Ts {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for Ts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Ts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Ts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Ts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_timestamps_share_one_string() {
        let chunk = Ts::from("2026-01-01T00:00:00Z");
        let mut entry = Ts::from(String::from("2026-01-01T00:00:00Z"));
        assert!(!entry.is_shared_with(&chunk));
        assert!(entry.share(&chunk));
        assert!(entry.is_shared_with(&chunk));
        let mut other = Ts::from("t2");
        assert!(!other.share(&chunk));
        assert_eq!(other, "t2");
    }

    #[test]
    fn it_is_a_string_on_the_wire() {
        let ts = Ts::from("2026-01-01T00:00:00.000Z");
        let json = serde_json::to_string(&ts).unwrap_or_default();
        assert_eq!(json, r#""2026-01-01T00:00:00.000Z""#);
        let back: Ts = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, ts);
    }
}
