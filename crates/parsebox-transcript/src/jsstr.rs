//! JavaScript string semantics the transcript builder must reproduce exactly (SPEC §5, §6).

/// `true` for the characters ECMAScript's `String.prototype.trim` and `\s` treat as white space:
/// WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP U+FEFF, and category Zs) plus LineTerminator
/// (LF, CR, U+2028, U+2029). Unlike Rust's `char::is_whitespace`, U+FEFF counts and U+0085
/// (NEL) does not.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `String.prototype.trim`: strips [`is_js_whitespace`] characters from both ends.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_follows_javascript_not_rust() {
        // BOM is white space to JS, not to Rust.
        assert_eq!(js_trim("\u{FEFF} hi \u{FEFF}"), "hi");
        // NEL is white space to Rust, not to JS.
        assert_eq!(js_trim("\u{0085}hi\u{0085}"), "\u{0085}hi\u{0085}");
        assert_eq!(js_trim("\u{3000}\u{2028}x\u{00A0}\t"), "x");
        // Zero-width space (U+200B) is not white space in either.
        assert_eq!(js_trim("\u{200B}x"), "\u{200B}x");
    }
}
