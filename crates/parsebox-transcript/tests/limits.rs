//! The one range check of entry limits: the registry's options and the CLI's flags both call
//! `EntryLimits::validate`, so they accept exactly the same values.
#![allow(clippy::unwrap_used, missing_docs)]

use parsebox_transcript::validate::{MAX_ENTRIES_PER_LINE, MAX_STRING_BYTES};
use parsebox_transcript::EntryLimits;

#[test]
fn each_limit_is_checked_at_both_ends() {
    type Edit = fn(&mut EntryLimits, usize);
    let rows: [(&str, Edit, usize); 2] = [
        (
            "maxEntriesPerLine",
            |l, v| l.max_entries_per_line = v,
            MAX_ENTRIES_PER_LINE,
        ),
        (
            "maxStringBytes",
            |l, v| l.max_string_bytes = v,
            MAX_STRING_BYTES,
        ),
    ];
    for (option, edit, max) in rows {
        for (value, ok) in [(0, false), (1, true), (max, true), (max + 1, false)] {
            let mut limits = EntryLimits::default();
            edit(&mut limits, value);
            let got = limits.validate().map_err(|e| e.option);
            assert_eq!(
                got,
                if ok { Ok(()) } else { Err(option) },
                "{option} = {value}"
            );
        }
    }
    assert_eq!(EntryLimits::default().validate(), Ok(()));
}
