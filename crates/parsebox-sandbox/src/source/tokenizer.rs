//! A small JavaScript tokenizer: just enough to find keywords, punctuation nesting and regex
//! literals. It never decides whether a file is valid (boa's parser does), so a mistake here can
//! only make a file fail to load, never run differently.

/// What kind of token a [`Token`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A single punctuation character (`{`, `(`, `.`, …).
    Punct(u8),
    /// A string, template, number or other literal; never interesting here.
    Literal,
    /// A regular expression literal; `flags_at` is where the flags start.
    Regex { flags_at: usize },
}

/// One token: its kind, where it is, and how deeply it is nested.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    /// What the token is.
    pub(super) kind: Kind,
    /// Its first byte in the source.
    pub(super) start: usize,
    /// The byte after its last.
    pub(super) end: usize,
    /// Depth of `{`/`(`/`[` nesting (template substitutions count as braces).
    pub(super) depth: u32,
}

/// Tokenizes `src` well enough to find keywords, punctuation nesting and regex literals. Never
/// fails: malformed input (which boa's parser rejects anyway) just yields odd tokens.
pub(super) fn tokenize(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mut toks: Vec<Token> = Vec::new();
    // Stack of open brackets; b'`' marks a template substitution `${`.
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    // Scans template characters from `i` (just after "`" or "}") to the closing "`" or "${".
    let scan_template = |mut i: usize, stack: &mut Vec<u8>| -> usize {
        while i < b.len() {
            match at(i) {
                b'\\' => i += 2,
                b'`' => return i + 1,
                b'$' if at(i + 1) == b'{' => {
                    stack.push(b'`');
                    return i + 2;
                }
                _ => i += 1,
            }
        }
        b.len()
    };
    while i < b.len() {
        let c = at(i);
        let depth = u32::try_from(stack.len()).unwrap_or(u32::MAX);
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => i += 1,
            b'/' if at(i + 1) == b'/' => {
                while i < b.len() && at(i) != b'\n' && at(i) != b'\r' {
                    i += 1;
                }
            }
            b'/' if at(i + 1) == b'*' => {
                i += 2;
                while i < b.len() && !(at(i) == b'*' && at(i + 1) == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'/' if regex_allowed(src, toks.last()) => {
                let start = i;
                i += 1;
                let mut in_class = false;
                while i < b.len() {
                    match at(i) {
                        b'\\' => i += 1,
                        b'[' => in_class = true,
                        b']' => in_class = false,
                        b'/' if !in_class => break,
                        b'\n' | b'\r' => break,
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                let flags_at = i.min(b.len());
                while i < b.len() && is_ident_byte(at(i)) {
                    i += 1;
                }
                let end = i.min(b.len());
                toks.push(Token {
                    kind: Kind::Regex { flags_at },
                    start,
                    end,
                    depth,
                });
            }
            b'"' | b'\'' => {
                let start = i;
                i += 1;
                while i < b.len() && at(i) != c && at(i) != b'\n' {
                    if at(i) == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                toks.push(Token {
                    kind: Kind::Literal,
                    start,
                    end: i.min(b.len()),
                    depth,
                });
            }
            // A template literal, or the rest of one after a `${…}` substitution.
            b'`' | b'}' if c == b'`' || stack.last() == Some(&b'`') => {
                if c == b'}' {
                    stack.pop();
                }
                let start = i;
                i = scan_template(i + 1, &mut stack);
                toks.push(Token {
                    kind: Kind::Literal,
                    start,
                    end: i.min(b.len()),
                    depth,
                });
            }
            // A number, also one written `.5`.
            c if c.is_ascii_digit() || (c == b'.' && at(i + 1).is_ascii_digit()) => {
                let start = i;
                i += 1;
                while i < b.len() && (is_ident_byte(at(i)) || at(i) == b'.') {
                    i += 1;
                }
                toks.push(Token {
                    kind: Kind::Literal,
                    start,
                    end: i,
                    depth,
                });
            }
            c if is_ident_byte(c) => {
                let start = i;
                while i < b.len() && is_ident_byte(at(i)) {
                    i += 1;
                }
                toks.push(Token {
                    kind: Kind::Ident,
                    start,
                    end: i,
                    depth,
                });
            }
            // Punctuation: one byte. A closing bracket sits at the depth it closes back to;
            // an opening one at the depth it opens from.
            _ => {
                let depth = if matches!(c, b'}' | b')' | b']') {
                    stack.pop();
                    u32::try_from(stack.len()).unwrap_or(u32::MAX)
                } else {
                    depth
                };
                toks.push(Token {
                    kind: Kind::Punct(c),
                    start: i,
                    end: i + 1,
                    depth,
                });
                if matches!(c, b'{' | b'(' | b'[') {
                    stack.push(c);
                }
                i += 1;
            }
        }
    }
    toks
}

/// Whether `c` can be part of an identifier (any non-ASCII byte counts).
pub(super) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'\\' || c >= 0x80
}

/// Whether a `/` after `prev` starts a regex literal (the usual previous-token heuristic).
fn regex_allowed(src: &str, prev: Option<&Token>) -> bool {
    let Some(prev) = prev else { return true };
    match prev.kind {
        Kind::Punct(b')' | b']') => false,
        Kind::Punct(_) => true,
        Kind::Literal | Kind::Regex { .. } => false,
        Kind::Ident => matches!(
            src.get(prev.start..prev.end).unwrap_or(""),
            "return"
                | "typeof"
                | "instanceof"
                | "in"
                | "of"
                | "new"
                | "delete"
                | "void"
                | "throw"
                | "case"
                | "do"
                | "else"
                | "yield"
                | "await"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_finds_regexes_and_exports() {
        let src = "const a = x / 2 / y; const r = /a\\/b[/]/g;\nexport function f() { return `${ {a:1}.a }`; }";
        let toks = tokenize(src);
        let regexes: Vec<&str> = toks
            .iter()
            .filter(|t| matches!(t.kind, Kind::Regex { .. }))
            .map(|t| &src[t.start..t.end])
            .collect();
        assert_eq!(regexes, vec!["/a\\/b[/]/g"]);
        assert!(toks
            .iter()
            .any(|t| &src[t.start..t.end] == "export" && t.depth == 0));
    }
}
