//! Where a load error points: line and column in the original source, also for syntax errors
//! boa reports in a wrapped script.

use crate::{LoadError, LoadErrorCode};

/// 1-based line and column (in characters) of byte offset `pos`.
fn line_col(src: &str, pos: usize) -> (u32, u32) {
    let before = src.get(..pos).unwrap_or(src);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

/// A load error at byte offset `pos` of `src` (no position when `None`).
pub(super) fn err(
    code: LoadErrorCode,
    message: String,
    src: &str,
    pos: Option<usize>,
) -> LoadError {
    let (line, column) = match pos {
        Some(p) => {
            let (l, c) = line_col(src, p);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    LoadError {
        code,
        message,
        line,
        column,
    }
}

/// A `syntax_error` from boa's parser error `e`, positioned in the original `src`; on line 1,
/// columns shift left by `col_shift_line1` characters of wrapper text.
pub(super) fn syntax_error(
    src: &str,
    e: &boa_engine::parser::Error,
    col_shift_line1: u32,
) -> LoadError {
    use boa_engine::parser::Error as E;
    let pos = match e {
        E::Expected { span, .. } | E::Unexpected { span, .. } => Some(span.start()),
        E::General { position, .. } => Some(*position),
        E::Lex { err } => match err {
            boa_engine::parser::lexer::Error::Syntax(_, p) => Some(*p),
            boa_engine::parser::lexer::Error::IO(_) => None,
        },
        E::AbruptEnd | E::ScopeAnalysis { .. } => None,
    };
    let (line, column) = match pos {
        Some(p) => {
            let line = p.line_number();
            let mut col = p.column_number();
            if line == 1 {
                col = col.saturating_sub(col_shift_line1).max(1);
            }
            (Some(line), Some(col))
        }
        None if matches!(e, E::AbruptEnd) => {
            let (l, c) = line_col(src, src.len());
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    let mut message = format!("syntax error: {e}");
    // boa's message carries positions in the wrapped text; report ours instead.
    if let Some(cut) = message.find(" at line ") {
        message.truncate(cut);
    }
    if let (Some(l), Some(c)) = (line, column) {
        message.push_str(&format!(" at {l}:{c}"));
    }
    LoadError {
        code: LoadErrorCode::SyntaxError,
        message,
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use crate::source::prepare;

    #[test]
    fn syntax_errors_point_into_the_original() {
        let e = prepare("module.exports = {\n  a: 1,\n  b: ]\n};", 1000, true).unwrap_err();
        assert_eq!(e.code, "syntax_error");
        assert_eq!(e.line, Some(3), "{e}");
        let e = prepare("export function f() {\n  return )\n}", 1000, true).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(10)), "{e}");
        let e = prepare("var x = );", 1000, true).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(9)), "{e}");
    }
}
