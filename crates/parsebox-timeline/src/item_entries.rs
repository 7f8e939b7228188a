//! The transcript indices a timeline item shows, kept inline when there is one: most items
//! (every line of a plain run) show a single entry, and a vector of one index cost the item a
//! heap block of its own, more than the index itself (issue 54).

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The transcript indices of a [`TimelineItem`](crate::TimelineItem)'s entries, ascending. Reads
/// as a slice (`Deref`); serialises as an array.
#[derive(Clone, PartialEq, Eq)]
pub struct ItemEntries(Repr);

#[derive(Clone, PartialEq, Eq)]
enum Repr {
    One(usize),
    Many(Vec<usize>),
}

impl ItemEntries {
    /// The one entry `index`.
    pub fn one(index: usize) -> Self {
        Self(Repr::One(index))
    }

    /// Adds `index` after the others.
    pub fn push(&mut self, index: usize) {
        match &mut self.0 {
            Repr::One(first) => self.0 = Repr::Many(vec![*first, index]),
            Repr::Many(all) => all.push(index),
        }
    }
}

impl Default for ItemEntries {
    fn default() -> Self {
        Self(Repr::Many(Vec::new()))
    }
}

impl Deref for ItemEntries {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        match &self.0 {
            Repr::One(index) => std::slice::from_ref(index),
            Repr::Many(all) => all,
        }
    }
}

impl DerefMut for ItemEntries {
    fn deref_mut(&mut self) -> &mut [usize] {
        match &mut self.0 {
            Repr::One(index) => std::slice::from_mut(index),
            Repr::Many(all) => all,
        }
    }
}

impl<'a> IntoIterator for &'a ItemEntries {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut ItemEntries {
    type Item = &'a mut usize;
    type IntoIter = std::slice::IterMut<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl From<Vec<usize>> for ItemEntries {
    fn from(all: Vec<usize>) -> Self {
        match *all.as_slice() {
            [index] => Self::one(index),
            _ => Self(Repr::Many(all)),
        }
    }
}

impl From<&[usize]> for ItemEntries {
    fn from(all: &[usize]) -> Self {
        match *all {
            [index] => Self::one(index),
            _ => Self(Repr::Many(all.to_vec())),
        }
    }
}

impl<const N: usize> PartialEq<[usize; N]> for ItemEntries {
    fn eq(&self, other: &[usize; N]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<usize>> for ItemEntries {
    fn eq(&self, other: &Vec<usize>) -> bool {
        **self == **other
    }
}

impl fmt::Debug for ItemEntries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for ItemEntries {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ItemEntries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<usize>::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_index_is_inline_and_more_make_a_vector() {
        let mut e = ItemEntries::one(7);
        assert_eq!(e, [7]);
        e.push(9);
        assert_eq!(e, [7, 9]);
        if let Some(first) = e.first_mut() {
            *first = 6;
        }
        assert_eq!(&*e, &[6, 9]);
        assert_eq!(serde_json::to_string(&e).unwrap_or_default(), "[6,9]");
        let back: ItemEntries = serde_json::from_str("[3]").unwrap_or_default();
        assert_eq!(back, ItemEntries::one(3));
        assert!(std::mem::size_of::<ItemEntries>() <= std::mem::size_of::<Vec<usize>>() + 8);
    }
}
