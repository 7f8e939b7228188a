//! Text between Rust (UTF-8) and boa's strings (Latin1 or UTF-16), fast for what run logs
//! hold: long runs of ASCII with a few other characters (`┊`, `→`, emoji).
//!
//! boa's own conversions go one `char` at a time (`encode_utf16().collect()`,
//! `String::from_utf16_lossy`); on a Claude stream-json line with one arrow in it that was a
//! fifth of the engine's instructions. Here ASCII runs are copied as a block and only the
//! other characters are decoded one by one. Unpaired surrogates become U+FFFD, as
//! `to_std_string_lossy` gives, except in what a parser returns ([`with_text_keeping`]), where
//! they are kept (`parsebox_transcript::lone_surrogates`).

use boa_engine::string::{JsStr, JsStrVariant};
use boa_engine::JsString;

/// `s` as a JS string: Latin1 when it is ASCII (no copy into UTF-16), UTF-16 otherwise.
pub(crate) fn to_js(s: &str) -> JsString {
    if s.is_ascii() {
        return JsString::from(JsStr::latin1(s.as_bytes()));
    }
    let mut units: Vec<u16> = Vec::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        // `ascii` is a char boundary: every byte before it is ASCII.
        let (run, tail) = rest.split_at_checked(ascii).unwrap_or((rest, ""));
        units.extend(run.bytes().map(u16::from));
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            let mut pair = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut pair));
        }
        rest = chars.as_str();
    }
    JsString::from(&units[..])
}

/// Calls `f` with a JS string as Rust text, unpaired surrogates → U+FFFD, borrowing it when it
/// is ASCII (nearly every string of a log): no copy at all.
pub(crate) fn with_text<T>(s: &JsString, f: impl FnOnce(&str) -> T) -> T {
    match s.as_str().variant() {
        JsStrVariant::Latin1(b) if b.is_ascii() => match std::str::from_utf8(b) {
            Ok(t) => f(t),
            Err(_) => f(&String::from_utf8_lossy(b)),
        },
        JsStrVariant::Latin1(b) => f(&latin1_to_string(b)),
        JsStrVariant::Utf16(u) => f(&utf16_to_string(u)),
    }
}

/// [`with_text`] for a string of a parser's return value: its lone surrogates are kept, as
/// marked pairs the page's JSON turns back into them
/// ([`parsebox_transcript::lone_surrogates`]), so what reaches the page is what
/// `JSON.parse(JSON.stringify(value))` gives.
pub(crate) fn with_text_keeping<T>(s: &JsString, f: impl FnOnce(&str) -> T) -> T {
    match s.as_str().variant() {
        JsStrVariant::Utf16(u)
            if u.iter()
                .any(|&c| (0xD800..=0xDFFF).contains(&c) || c == 0xFDD0) =>
        {
            let mut text = String::with_capacity(u.len() + u.len() / 2);
            parsebox_transcript::lone_surrogates::push_utf16_keeping(u, &mut text);
            f(&text)
        }
        _ => with_text(s, f),
    }
}

/// Latin1 bytes as UTF-8 (each byte is the code point of the same value).
fn latin1_to_string(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + b.len() / 4);
    for run in b.split_inclusive(|c| !c.is_ascii()) {
        match run.split_last() {
            Some((&last, head)) if !last.is_ascii() => {
                out.extend(head.iter().map(|&c| char::from(c)));
                out.push(char::from(last));
            }
            _ => out.extend(run.iter().map(|&c| char::from(c))),
        }
    }
    out
}

/// UTF-16 units as UTF-8, unpaired surrogates → U+FFFD.
fn utf16_to_string(units: &[u16]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(units.len() + units.len() / 2);
    let mut rest = units;
    while !rest.is_empty() {
        let ascii = rest.iter().position(|&u| u >= 0x80).unwrap_or(rest.len());
        let (run, tail) = rest.split_at_checked(ascii).unwrap_or((rest, &[]));
        // Every unit of `run` is below 0x80.
        #[allow(clippy::cast_possible_truncation)]
        out.extend(run.iter().map(|&u| u as u8));
        let mut decoded = char::decode_utf16(tail.iter().copied());
        let (c, used) = match decoded.next() {
            Some(Ok(c)) => (c, c.len_utf16()),
            Some(Err(_)) => (char::REPLACEMENT_CHARACTER, 1),
            None => break,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        rest = tail.get(used..).unwrap_or(&[]);
    }
    // Only whole UTF-8 sequences were written.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::{to_js, with_text};
    use boa_engine::JsString;

    const SAMPLES: &[&str] = &[
        "",
        "plain ascii",
        "┊ $ ls → done",
        "café, naïve, ÿ",
        "emoji 🚀 and 🧪 between ascii",
        "→",
        "🚀",
        "mixed é → 🚀 end",
    ];

    #[test]
    fn rust_text_becomes_the_js_string_boa_would_make() {
        for s in SAMPLES {
            assert_eq!(to_js(s), JsString::from(*s), "{s:?}");
            assert_eq!(to_js(s).len(), s.encode_utf16().count(), "{s:?}");
        }
    }

    #[test]
    fn js_strings_read_back_as_the_same_text() {
        for s in SAMPLES {
            assert_eq!(with_text(&to_js(s), str::to_owned), *s);
            assert_eq!(with_text(&JsString::from(*s), str::to_owned), *s);
        }
    }

    #[test]
    fn latin1_strings_read_as_their_code_points() {
        let latin1 = JsString::from(boa_engine::string::JsStr::latin1(&[b'a', 0xe9, b'b', 0xff]));
        assert_eq!(with_text(&latin1, str::to_owned), "aébÿ");
    }

    #[test]
    fn unpaired_surrogates_read_as_replacement_characters() {
        let units = [0x61, 0xd83d, 0x62, 0xdc00, 0xd83d, 0xde80, 0xd800];
        let js = JsString::from(&units[..]);
        assert_eq!(
            with_text(&js, str::to_owned),
            "a\u{fffd}b\u{fffd}🚀\u{fffd}"
        );
        assert_eq!(with_text(&js, str::to_owned), js.to_std_string_lossy());
    }
}
