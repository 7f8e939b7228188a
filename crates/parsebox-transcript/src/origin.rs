//! [`EntryOrigin`]: where in the run an entry came from, a name for it that holds while the
//! entries before it change.

use std::fmt;

/// Where a transcript entry came from: the `nth` entry (from 0) that the run's `unit`-th
/// unit started, a unit being a stdout line or a stderr/system chunk, counted from the run's
/// first (units that left a window's front included).
///
/// Unlike the entry's index, it stays the same when an earlier line's entries change (a late
/// answer that gives a line three entries where its generic answer gave one) and when the
/// transcript is rebuilt from the same chunks, so it names the entry across those changes. An
/// entry that later lines merged deltas into keeps the origin of the line that started it.
///
/// Its text form ([`Display`](fmt::Display), [`EntryOrigin::parse`]) is `e<unit>` for a unit's
/// first entry and `e<unit>.<nth>` for the others: the timeline's item ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntryOrigin {
    /// The unit, counted from the run's first.
    pub unit: u64,
    /// Which of the entries the unit started, from 0.
    pub nth: usize,
}

impl EntryOrigin {
    /// The origin a builder that keeps no units gives the run's entry `index`: each entry
    /// its own unit.
    pub fn of_index(index: usize) -> Self {
        Self {
            unit: index as u64,
            nth: 0,
        }
    }

    /// Reads the text form back: `e<unit>` or `e<unit>.<nth>`, digits only. One pass over
    /// the bytes: timelines compare ids this way while they search.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.as_bytes().strip_prefix(b"e")?;
        let (unit, rest) = leading_number(digits)?;
        let nth = match rest {
            [] => 0,
            [b'.', more @ ..] => match leading_number(more)? {
                (nth, []) => usize::try_from(nth).ok()?,
                _ => return None,
            },
            _ => return None,
        };
        Some(Self { unit, nth })
    }
}

/// The number that `bytes` start with (at least one ASCII digit, no overflow) and the rest.
fn leading_number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let end = bytes
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len());
    let (number, rest) = bytes.split_at(end);
    if number.is_empty() {
        return None;
    }
    let value = number.iter().try_fold(0u64, |n, &b| {
        n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })?;
    Some((value, rest))
}

impl fmt::Display for EntryOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.nth {
            0 => write!(f, "e{}", self.unit),
            nth => write!(f, "e{}.{nth}", self.unit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::EntryOrigin;

    #[test]
    fn the_text_form_reads_back() {
        for (unit, nth, text) in [(0, 0, "e0"), (12, 0, "e12"), (12, 2, "e12.2")] {
            let origin = EntryOrigin { unit, nth };
            assert_eq!(origin.to_string(), text);
            assert_eq!(EntryOrigin::parse(text), Some(origin));
        }
        for bad in ["", "e", "12", "e1.", "e.1", "e+1", "e1.+2", "e1.2.3", "x1"] {
            assert_eq!(EntryOrigin::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn origins_order_as_their_entries() {
        let a = EntryOrigin { unit: 3, nth: 1 };
        assert!(EntryOrigin::of_index(3) < a && a < EntryOrigin::of_index(4));
    }
}
