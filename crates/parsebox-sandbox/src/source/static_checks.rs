//! The static checks of SPEC §3 that read tokens: no imports (`import`, `require(`, `import()`,
//! `import.meta`), every regex literal screened by [`crate::regex_screen`], and whether the file
//! is an ES module (a top-level `export`) or CommonJS.

use super::position::err;
use super::tokenizer::{Kind, Token};
use super::Shape;
use crate::regex_screen::screen_pattern;
use crate::{LoadError, LoadErrorCode};

/// Checks the tokens `toks` of `src` for imports and unsafe regex literals, and tells the
/// module's shape.
///
/// # Errors
/// `imports` at the first import, `unsafe_regex` at the first refused regex literal.
pub(super) fn scan(
    src: &str,
    toks: &[Token],
    max_regex_source: usize,
    screen_regexes: bool,
) -> Result<Shape, LoadError> {
    let text = |t: &Token| src.get(t.start..t.end).unwrap_or("");
    let is_punct = |t: Option<&Token>, p: u8| t.is_some_and(|t| t.kind == Kind::Punct(p));
    let mut shape = Shape::CommonJs;
    for (k, t) in toks.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|j| toks.get(j));
        let next = toks.get(k + 1);
        let after_dot = is_punct(prev, b'.');
        match (t.kind, text(t)) {
            (Kind::Ident, "import") if !after_dot => {
                let what = if is_punct(next, b'(') {
                    "dynamic import() is not allowed: a ui-parser must have zero imports"
                } else if is_punct(next, b'.') {
                    "import.meta is not available to a ui-parser"
                } else {
                    "static import is not allowed: a ui-parser must have zero imports"
                };
                return Err(err(
                    LoadErrorCode::Imports,
                    what.to_owned(),
                    src,
                    Some(t.start),
                ));
            }
            (Kind::Ident, "require") if !after_dot && is_punct(next, b'(') => {
                return Err(err(
                    LoadErrorCode::Imports,
                    "require() is not allowed: a ui-parser must have zero imports".to_owned(),
                    src,
                    Some(t.start),
                ));
            }
            (Kind::Ident, "export") if t.depth == 0 && !after_dot => shape = Shape::EsModule,
            (Kind::Regex { flags_at }, _) => {
                let body = src
                    .get(t.start + 1..flags_at.saturating_sub(1))
                    .unwrap_or("");
                let flags = src.get(flags_at..t.end).unwrap_or("");
                if let Err(why) = screen_pattern(body, flags, max_regex_source, screen_regexes) {
                    return Err(err(
                        LoadErrorCode::UnsafeRegex,
                        format!("regex literal {} refused: {why}", text(t)),
                        src,
                        Some(t.start),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use crate::source::prepare;

    #[test]
    fn imports_are_refused() {
        for (src, code) in [
            (
                "import x from 'y'; export function parseStdoutLine(){}",
                "imports",
            ),
            ("const m = import('x');", "imports"),
            ("const fs = require('fs');", "imports"),
            ("export * from 'x';", "imports"),
            ("export const x = await 1;", "top_level_await"),
        ] {
            let e = prepare(src, 1000, true).unwrap_err();
            assert_eq!(e.code, code, "{src}: {e}");
        }
        assert!(prepare("obj.require('x'); module.exports = {}", 1000, true).is_ok());
    }
}
