//! Lone surrogates in a parser's strings, kept exactly (SPEC §2: what reaches the page equals
//! `JSON.parse(JSON.stringify(value))`, which keeps a lone surrogate). A Rust string cannot hold
//! one, so a parser's text carries each as two characters the engine writes and the page's
//! JSON rewrites back: [`MARK`] (U+FDD0, a noncharacter, which Unicode sets aside for a
//! program's internal use) and a private-use character whose offset from U+E000 is the
//! surrogate's from U+D800. A `MARK` the parser's text had of its own is written twice.
//!
//! The engine writes the marks when it reads the parser's return value
//! ([`push_utf16_keeping`]); every string the core holds carries them as ordinary characters
//! (they compare, hash and slice as any others); and what the core writes out as JSON for the
//! page goes through [`unmark_json`], which turns each marked pair into the `\uXXXX` escape
//! JavaScript's `JSON.stringify` writes, so `JSON.parse` on the page gives the lone surrogate
//! back. Text shown rather than parsed (the CLI's terminal view) goes through
//! [`unmark_text`], which shows U+FFFD for it, as a terminal would.

use std::borrow::Cow;

/// The first character of a marked pair (U+FDD0).
pub const MARK: char = '\u{FDD0}';

/// `MARK` as UTF-8.
const MARK_UTF8: [u8; 3] = [0xEF, 0xB7, 0x90];

/// Where the second characters of marked pairs start: surrogate `0xD800 + k` is `U+E000 + k`.
const FIRST: u32 = 0xE000;

/// Appends UTF-16 `units` to `out` as Rust text, each lone surrogate as a marked pair and each
/// `MARK` of the text doubled.
pub fn push_utf16_keeping(units: &[u16], out: &mut String) {
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(MARK) => {
                out.push(MARK);
                out.push(MARK);
            }
            Ok(c) => out.push(c),
            Err(e) => {
                let offset = u32::from(e.unpaired_surrogate()) - 0xD800;
                out.push(MARK);
                out.push(char::from_u32(FIRST + offset).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }
}

/// The surrogate a marked pair's second character stands for, if it is one.
fn surrogate_of(c: char) -> Option<u16> {
    let offset = u32::from(c).checked_sub(FIRST)?;
    (offset < 0x800).then(|| 0xD800 + offset as u16)
}

/// Whether `bytes` hold a mark at all (nearly no text does: then nothing is rewritten).
/// Read eight bytes at a time: a run of ASCII (nearly every byte of a log) is passed over
/// whole, and only the words with a byte of `0xEF`'s high bit in them are looked into. Every
/// line's answer goes through here on its way to the page: a window compare per byte was a
/// tenth of the core's work for a 400-character line.
fn has_mark(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        if u64::from_le_bytes(w) & HIGH != 0 {
            // A mark may start in this word and end in the next.
            if starts_mark_within(bytes, at, 8) {
                return true;
            }
        }
        at += 8;
    }
    starts_mark_within(bytes, at, 8)
}

/// Whether a mark starts at one of the `count` bytes from `from`.
fn starts_mark_within(bytes: &[u8], from: usize, count: usize) -> bool {
    (from..from + count).any(|i| bytes.get(i..i + 3) == Some(&MARK_UTF8[..]))
}

/// JSON text as the page reads it: each marked pair is JavaScript's `\uXXXX` escape of its
/// lone surrogate, and each doubled `MARK` one `MARK`. Marks only ever stand inside strings
/// (they are characters of text), so the rewrite never touches the JSON's structure.
pub fn unmark_json(json: &str) -> Cow<'_, str> {
    unmark(json, |unit, out| out.push_str(&format!("\\u{unit:04x}")))
}

/// `value` as the JSON text a page parses: serialised, then [`unmark_json`]. Written into room
/// for a line's answer from the start (serde_json's own `to_string` starts at 128 bytes and
/// doubled its way to a 400-character line's entry, copying it each time).
///
/// # Errors
/// What serialising `value` fails with (a map with keys that are not strings).
pub fn to_page_json<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(1024);
    serde_json::to_writer(&mut out, value)?;
    // serde_json writes only UTF-8.
    let json = String::from_utf8(out).map_err(serde::ser::Error::custom)?;
    Ok(match unmark_json(&json) {
        Cow::Borrowed(_) => json,
        Cow::Owned(unmarked) => unmarked,
    })
}

/// Text as a person reads it: each marked pair is U+FFFD (a lone surrogate has no glyph), and
/// each doubled `MARK` one `MARK`.
pub fn unmark_text(text: &str) -> Cow<'_, str> {
    unmark(text, |_, out| out.push(char::REPLACEMENT_CHARACTER))
}

/// `text` with each marked pair written by `surrogate` and each doubled `MARK` as one.
fn unmark(text: &str, surrogate: impl Fn(u16, &mut String)) -> Cow<'_, str> {
    if !has_mark(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != MARK {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(MARK) => out.push(MARK),
            Some(next) => match surrogate_of(next) {
                Some(high @ 0xD800..=0xDBFF) => {
                    // Two halves that met (a streamed text joined where a parser cut a
                    // character in two): one character, as JavaScript's string has it.
                    let mut rest = chars.clone();
                    let low = (rest.next() == Some(MARK))
                        .then(|| rest.next().and_then(surrogate_of))
                        .flatten()
                        .filter(|low| (0xDC00..=0xDFFF).contains(low));
                    match low.and_then(|low| char::decode_utf16([high, low]).next()?.ok()) {
                        Some(joined) => {
                            out.push(joined);
                            chars = rest;
                        }
                        None => surrogate(high, &mut out),
                    }
                }
                Some(unit) => surrogate(unit, &mut out),
                None => {
                    out.push(MARK);
                    out.push(next);
                }
            },
            None => out.push(MARK),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(units: &[u16]) -> String {
        let mut s = String::new();
        push_utf16_keeping(units, &mut s);
        s
    }

    #[test]
    fn two_halves_that_meet_are_one_character_as_in_javascript() {
        // A streamed text joined where a parser cut "🚀" (U+1F680) in two.
        let joined = keep(&[0x61, 0xD83D]) + &keep(&[0xDE80, 0x62]);
        assert_eq!(unmark_json(&format!("\"{joined}\"")), "\"a🚀b\"");
        assert_eq!(unmark_text(&joined), "a🚀b");
        // Halves that do not pair stay lone, each as JavaScript writes it.
        let apart = keep(&[0xD83D, 0x61, 0xDE80]);
        assert_eq!(unmark_json(&apart), "\\ud83da\\ude80");
        let reversed = keep(&[0xDE80]) + &keep(&[0xD83D]);
        assert_eq!(unmark_json(&reversed), "\\ude80\\ud83d");
        let high_high = keep(&[0xD83D]) + &keep(&[0xD83D]);
        assert_eq!(unmark_json(&high_high), "\\ud83d\\ud83d");
    }

    #[test]
    fn a_lone_surrogate_travels_as_a_marked_pair_and_comes_out_as_javascripts_escape() {
        // "a\ud800b", "\udfff", a whole pair, and a MARK of the text's own.
        let units = [0x61, 0xD800, 0x62, 0xDFFF, 0xD83D, 0xDE80, 0xFDD0, 0x63];
        let kept = keep(&units);
        assert_eq!(kept.chars().filter(|&c| c == MARK).count(), 4);
        let json = serde_json::to_string(&kept).unwrap_or_default();
        assert_eq!(unmark_json(&json), "\"a\\ud800b\\udfff🚀\u{fdd0}c\"");
        assert_eq!(unmark_text(&kept), "a\u{fffd}b\u{fffd}🚀\u{fdd0}c");
    }

    #[test]
    fn text_without_marks_is_not_copied() {
        assert!(matches!(unmark_json("{\"a\":\"é\"}"), Cow::Borrowed(_)));
        assert!(matches!(unmark_text("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_mark_is_found_wherever_it_stands() {
        // Every placement of a mark (and of near misses: its first byte alone, its first two)
        // in ASCII and non-ASCII text of every length around the eight-byte words.
        let fillers: [&[u8]; 3] = [b"a", "é".as_bytes(), "\u{fdd1}".as_bytes()];
        let pieces: [&[u8]; 4] = [&MARK_UTF8, &MARK_UTF8[..1], &MARK_UTF8[..2], b""];
        for filler in fillers {
            for piece in pieces {
                for before in 0..20 {
                    for after in 0..12 {
                        let mut bytes = filler.repeat(before);
                        bytes.extend_from_slice(piece);
                        bytes.extend(filler.repeat(after));
                        let slow = bytes.windows(3).any(|w| w == MARK_UTF8);
                        assert_eq!(has_mark(&bytes), slow, "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_surrogate_round_trips() {
        for unit in 0xD800u16..=0xDFFF {
            let json = serde_json::to_string(&keep(&[unit])).unwrap_or_default();
            assert_eq!(unmark_json(&json), format!("\"\\u{unit:04x}\""));
        }
    }
}
