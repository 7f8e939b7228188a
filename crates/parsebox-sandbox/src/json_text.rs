//! A JSON string written byte for byte as `serde_json` writes it (`"` and `\` escaped, the
//! control characters as `\b \t \n \f \r` or `\u00xx`, everything else as it is), but eight
//! bytes at a time over the runs that need no escape: every string of every answer an engine
//! sends goes through here, and serde_json's writer looks each byte up in a table.

/// Eight copies of `b`.
const fn splat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

const ONES: u64 = splat(0x01);
const HIGH: u64 = splat(0x80);

/// The high bit of each zero byte of `w`, exact up to and including the lowest one (a borrow
/// only ever runs upward, so bytes above the first zero may be flagged wrongly).
const fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// The high bit of each byte of `w` that needs an escape (below 0x20, `"` or `\`), exact up to
/// and including the lowest one, as [`zero_bytes`]. A byte of 0x80 or more (UTF-8 past ASCII)
/// never does.
const fn escape_bytes(w: u64) -> u64 {
    (w.wrapping_sub(splat(0x20)) & !w & HIGH)
        | zero_bytes(w ^ splat(b'"'))
        | zero_bytes(w ^ splat(b'\\'))
}

/// A nibble as serde_json writes it in `\u00xx`: lowercase hex.
const fn hex_digit(n: u8) -> u8 {
    if n < 10 {
        b'0' + n
    } else {
        b'a' + n - 10
    }
}

/// Appends `s` to `out` as a JSON string, quotes included.
pub(crate) fn write_json_string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `start..at` is the run copied next; `at` moves on while nothing needs an escape, a word
    // at a time, and straight to the first byte that does.
    let mut start = 0;
    let mut at = 0;
    loop {
        let b = if let Some(word) = bytes.get(at..at + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            let flagged = escape_bytes(u64::from_le_bytes(w));
            if flagged == 0 {
                at += 8;
                continue;
            }
            at += (flagged.trailing_zeros() / 8) as usize;
            bytes.get(at).copied().unwrap_or_default()
        } else {
            // The last few bytes, one at a time.
            match bytes.get(at) {
                None => break,
                Some(&b) if b >= 0x20 && b != b'"' && b != b'\\' => {
                    at += 1;
                    continue;
                }
                Some(&b) => b,
            }
        };
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x09 => b"\\t",
            0x0A => b"\\n",
            0x0C => b"\\f",
            0x0D => b"\\r",
            _ => b"\\u00",
        };
        out.extend_from_slice(bytes.get(start..at).unwrap_or_default());
        out.extend_from_slice(escape);
        if escape == b"\\u00" {
            out.push(hex_digit(b >> 4));
            out.push(hex_digit(b & 0xF));
        }
        at += 1;
        start = at;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::write_json_string;

    fn written(s: &str) -> String {
        let mut out = Vec::new();
        write_json_string(&mut out, s);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn every_character_is_written_as_serde_json_writes_it() {
        // Each ASCII character and a few others, alone and at every place around the words.
        let others = ['é', '\u{7f}', '\u{80}', '\u{2028}', '🚀', '\u{fdd0}'];
        let chars = (0u8..0x80).map(char::from).chain(others);
        for c in chars {
            for before in 0..18 {
                for after in [0, 1, 7, 8, 9] {
                    let s = format!("{}{c}{}", "a".repeat(before), "b".repeat(after));
                    assert_eq!(
                        written(&s),
                        serde_json::to_string(&s).unwrap_or_default(),
                        "{s:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn generated_text_is_written_as_serde_json_writes_it() {
        // Strings of escapes, ASCII and other characters mixed.
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let pool = [
            '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', 'x', '~', 'é', '💬', '\u{fdd0}',
        ];
        for _ in 0..2000 {
            let len = rng.below(40);
            let s: String = (0..len).map(|_| rng.pick(&pool)).collect();
            assert_eq!(
                written(&s),
                serde_json::to_string(&s).unwrap_or_default(),
                "{s:?}"
            );
        }
    }
}
