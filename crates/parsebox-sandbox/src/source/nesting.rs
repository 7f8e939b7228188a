//! How deeply a source nests, read from its tokens, and the bound every host can parse.
//!
//! boa's parser and bytecode compiler descend one native call chain per level of nesting, and
//! a host's stack is not the sandbox's to choose: a page's thread (V8 gives it ~1 MB) failed
//! at 120–400 levels depending on the shape, a browser kills the engine for it, and the
//! native command aborted at ~24,000 parentheses. So a source is refused before it is parsed
//! when it nests deeper than [`MAX_SOURCE_NESTING`] levels, with the same verdict in every
//! host. Real parsers nest at most 11 levels (the compatibility corpus and the samples).
//!
//! A level is counted in thirds of the stack a bracket level takes, as measured in Node:
//! brackets (`(`, `[`, `{`, a template's `${`) and arrow functions three each, prefix
//! operators and `?` of a conditional one each (they cost about a third as much). Arrows and
//! conditionals count for the expression they are in (`;`, `,` and statement keywords end
//! it); prefix operators for the run of them in a row.

use super::position::err;
use super::tokenizer::{Kind, Token};
use crate::{LoadError, LoadErrorCode};

/// The deepest nesting a source may have, in bracket levels (see the module's doc).
pub const MAX_SOURCE_NESTING: u32 = 64;

/// What one level of brackets weighs, in the units [`check`] counts.
const BRACKET: u32 = 3;

/// Refuses `src` (tokenized as `toks`) when it nests deeper than [`MAX_SOURCE_NESTING`].
///
/// # Errors
/// `too_large`, at the first token past the bound.
pub(super) fn check(src: &str, toks: &[Token]) -> Result<(), LoadError> {
    let bound = MAX_SOURCE_NESTING * BRACKET;
    let text = |t: &Token| src.get(t.start..t.end).unwrap_or("");
    let punct = |t: Option<&Token>| match t.map(|t| t.kind) {
        Some(Kind::Punct(p)) => Some(p),
        _ => None,
    };
    // The operators and arrows of the expression open at each bracket level, in units; `open`
    // is their sum over the levels, which all nest inside each other.
    let mut levels: Vec<u32> = vec![0];
    let mut open: u32 = 0;
    // Prefix operators in a row (`!!x`, `- -x`, `typeof new X`): they nest inside each other
    // but not inside the operand after them.
    let mut prefixes: u32 = 0;
    for (k, t) in toks.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|j| toks.get(j));
        let next = toks.get(k + 1);
        let adjacent = |other: Option<&Token>| other.is_some_and(|o| o.start == t.end);
        let mut prefix = false;
        if prev.is_some_and(|p| statement_ends_between(src, p, t)) {
            end_expression(&mut levels, &mut open);
        }
        let units = match (t.kind, text(t)) {
            (Kind::Punct(b'(' | b'[' | b'{'), _) => {
                levels.push(0);
                0
            }
            (Kind::Punct(b')' | b']' | b'}'), _) => {
                close_level(&mut levels, &mut open);
                0
            }
            (Kind::Punct(b';' | b','), _) => {
                end_expression(&mut levels, &mut open);
                0
            }
            (Kind::Punct(b'='), _) if punct(next) == Some(b'>') && adjacent(next) => BRACKET,
            (Kind::Punct(b'?'), _) => {
                let optional_or_nullish = (adjacent(next)
                    && matches!(punct(next), Some(b'.' | b'?')))
                    || (punct(prev) == Some(b'?') && prev.is_some_and(|p| p.end == t.start));
                u32::from(!optional_or_nullish)
            }
            (Kind::Punct(b'!' | b'~'), _) => {
                prefix = true;
                0
            }
            (Kind::Punct(b'-' | b'+'), _) => {
                prefix = !matches!(
                    prev.map(|p| p.kind),
                    Some(
                        Kind::Ident
                            | Kind::Literal
                            | Kind::Regex { .. }
                            | Kind::Punct(b')' | b']' | b'}')
                    )
                );
                0
            }
            (Kind::Ident, word) if is_prefix_keyword(word) => {
                prefix = true;
                0
            }
            // A template's `}` closes a substitution and its `${` opens one, as brackets do.
            (Kind::Literal, part) if is_template_part(part) => {
                if part.starts_with('}') {
                    close_level(&mut levels, &mut open);
                }
                if opens_substitution(part) {
                    levels.push(0);
                }
                0
            }
            (Kind::Ident, keyword) if starts_statement(keyword) && punct(prev) != Some(b'.') => {
                end_expression(&mut levels, &mut open);
                0
            }
            _ => 0,
        };
        prefixes = if prefix {
            prefixes.saturating_add(1)
        } else {
            0
        };
        if let Some(level) = levels.last_mut() {
            *level = level.saturating_add(units);
        }
        open = open.saturating_add(units);
        // A template's `${` is a level the tokenizer counts in `depth` but shows as a literal.
        let opens = matches!(t.kind, Kind::Punct(b'(' | b'[' | b'{'));
        let depth = t.depth.saturating_add(u32::from(opens));
        let nesting = depth
            .saturating_mul(BRACKET)
            .saturating_add(open)
            .saturating_add(prefixes);
        if nesting > bound {
            return Err(err(
                LoadErrorCode::TooLarge,
                format!(
                    "the source nests deeper than {MAX_SOURCE_NESTING} levels (brackets, arrow \
                     functions, conditionals and prefix operators inside each other): no host \
                     could parse it on its stack"
                ),
                src,
                Some(t.start),
            ));
        }
    }
    Ok(())
}

/// Ends the expression open at the innermost level: its units leave `open`.
fn end_expression(levels: &mut [u32], open: &mut u32) {
    let units = levels.last_mut().map_or(0, std::mem::take);
    *open = open.saturating_sub(units);
}

/// Closes the innermost level (a bracket or a template's substitution): its expression's units
/// leave `open`. The outermost level (the file's) is never closed.
fn close_level(levels: &mut Vec<u32>, open: &mut u32) {
    if levels.len() > 1 {
        *open = open.saturating_sub(levels.pop().unwrap_or(0));
    }
}

/// Prefix operators written as words.
fn is_prefix_keyword(word: &str) -> bool {
    matches!(
        word,
        "typeof" | "void" | "delete" | "await" | "new" | "yield"
    )
}

/// Binary operators written as words: an expression goes on after them, and with them.
fn is_binary_keyword(word: &str) -> bool {
    matches!(word, "in" | "instanceof" | "of")
}

/// Whether a literal token is a template, or the rest of one after a substitution's `}`.
fn is_template_part(literal: &str) -> bool {
    literal.starts_with(['`', '}'])
}

/// Whether a template part ends by opening a substitution (`${`).
fn opens_substitution(part: &str) -> bool {
    part.ends_with("${")
}

/// Whether `word` begins a statement, which ends the expression before it (a file without
/// semicolons). Not `function` or `class`, which may be expressions inside one, nor a keyword
/// after a `.`, which is a property's name, nor `let`, an identifier in a script: each would
/// let a chain of conditionals go uncounted.
fn starts_statement(word: &str) -> bool {
    matches!(
        word,
        "const"
            | "var"
            | "return"
            | "if"
            | "else"
            | "for"
            | "while"
            | "do"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "throw"
            | "try"
            | "catch"
            | "finally"
            | "export"
    )
}

/// Whether a line break between `prev` and `next` ends the statement before it, as JavaScript
/// inserts a semicolon there: `prev` can end an expression and `next` cannot go on with it (a
/// name or a string or number literal). What can go on with it (an operator, a bracket, a
/// template that tags, `in`, `instanceof`, `of`) never ends the count, so the parser cannot
/// still be inside the expression whose units were let go.
fn statement_ends_between(src: &str, prev: &Token, next: &Token) -> bool {
    let text = |t: &Token| src.get(t.start..t.end).unwrap_or("");
    let gap = src.get(prev.end..next.start).unwrap_or("");
    let line_break = gap.contains(['\n', '\r', '\u{2028}', '\u{2029}']);
    let ends = match prev.kind {
        Kind::Ident => !is_prefix_keyword(text(prev)) && !is_binary_keyword(text(prev)),
        Kind::Literal => !opens_substitution(text(prev)),
        Kind::Regex { .. } | Kind::Punct(b')' | b']' | b'}') => true,
        Kind::Punct(_) => false,
    };
    let starts = match next.kind {
        Kind::Ident => !is_binary_keyword(text(next)),
        Kind::Literal => !is_template_part(text(next)),
        Kind::Regex { .. } | Kind::Punct(_) => false,
    };
    line_break && ends && starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::tokenizer::tokenize;

    fn nests(src: &str) -> Result<(), LoadError> {
        check(src, &tokenize(src))
    }

    /// A source of one nesting shape, `levels` deep.
    type Shape = fn(usize) -> String;

    /// Each shape, at the bound and one level past it.
    #[test]
    fn every_shape_is_refused_one_level_past_the_bound() {
        let n = MAX_SOURCE_NESTING as usize;
        let shapes: [(&str, Shape); 9] = [
            ("parens", |d| {
                format!("x = {}1{};", "(".repeat(d), ")".repeat(d))
            }),
            ("arrays", |d| {
                format!("x = {}1{};", "[".repeat(d), "]".repeat(d))
            }),
            ("objects", |d| {
                format!("x = {}1{};", "{a:".repeat(d), "}".repeat(d))
            }),
            ("calls", |d| {
                format!("x = {}1{};", "f(".repeat(d), ")".repeat(d))
            }),
            ("templates", |d| {
                format!("x = {}1{};", "`${".repeat(d), "}`".repeat(d))
            }),
            ("functions", |d| {
                format!("{}{}", "function f() {".repeat(d), "}".repeat(d))
            }),
            ("arrows", |d| format!("x = {}1;", "() => ".repeat(d))),
            ("unary", |d| format!("x = {}1;", "!".repeat(3 * d))),
            ("conditionals", |d| {
                format!("x = {}1;", "a ? 1 : ".repeat(3 * d))
            }),
        ];
        for (name, make) in shapes {
            // A top-level statement's own level: the shapes sit one level in at most.
            assert!(nests(&make(n - 1)).is_ok(), "{name} at the bound");
            let e = nests(&make(n + 1)).unwrap_err();
            assert_eq!(e.code, LoadErrorCode::TooLarge, "{name}");
            assert!(
                e.message.contains("nests deeper than 64 levels"),
                "{name}: {e}"
            );
            assert_eq!(e.line, Some(1), "{name}");
        }
    }

    /// Each piece (a conditional, a third of a level) repeated past the bound in one
    /// expression is refused: nothing in it ends the expression's count.
    fn assert_refused_in_one_expression(pieces: &[&str]) {
        let n = 3 * MAX_SOURCE_NESTING as usize + 3;
        for piece in pieces {
            let src = format!("x = {}1;", piece.repeat(n));
            let e = nests(&src).unwrap_err();
            assert_eq!(e.code, LoadErrorCode::TooLarge, "{piece:?}");
        }
    }

    /// Each source loads: long, but not nested.
    fn assert_loads(sources: &[String]) {
        for src in sources {
            let e = nests(src).err();
            assert!(e.is_none(), "{}: {e:?}", &src[..40]);
        }
    }

    /// What would end an expression's count in the middle of one does not.
    #[test]
    fn keywords_inside_an_expression_do_not_end_its_count() {
        assert_refused_in_one_expression(&[
            "a.return ? 1 : ",
            "function () {} ? 1 : ",
            "class {} ? 1 : ",
            "a?.if ? 1 : ",
        ]);
    }

    /// A sloppy script's `let` is a name, and a line break inside an expression ends nothing:
    /// neither lets a chain of conditionals or arrows go uncounted.
    #[test]
    fn names_and_line_breaks_inside_an_expression_do_not_end_its_count() {
        assert_refused_in_one_expression(&[
            "let ? 1 : ",
            "let[0] ? 1 : ",
            "a\n? 1\n: ",
            "a ?\n1 :\n",
            "a ? b\n: ",
            "a ? `x`\n: ",
            "a ? b\nin c : ",
            "a ? b\n`t` : ",
            "a ? /r/\n.test(b) : ",
            "a ? b /* \n */ : ",
        ]);
        let arrows = format!(
            "x = {}1;",
            "(a) =>\n".repeat(MAX_SOURCE_NESTING as usize + 1)
        );
        assert_eq!(nests(&arrows).unwrap_err().code, LoadErrorCode::TooLarge);
    }

    /// Honest code that was counted as nesting: a template's substitutions each end their
    /// expression, and a line break between statements ends the one before it.
    #[test]
    fn templates_and_semicolon_less_statements_do_not_add_up() {
        let many = |piece: &str, n: usize| piece.repeat(n);
        assert_loads(&[
            format!("x = {}'';", many("`${a ? 1 : 2}` + ", 1000)),
            format!("x = `{}`;", many("${a ? (b) => b : c} ", 1000)),
            many("x = a ? 1 : 2\n", 1000),
            many("exports.f = (a) => a\n", 1000),
            many("y = a ? `t` : b\n", 1000),
            many("z = a ? 'q' : /r/g\nw = c ? d : e // note\n", 500),
            format!(
                "function f() {{\n{}}}",
                many("  x = a ? [1] : {b: 2}\n", 1000)
            ),
        ]);
    }

    #[test]
    fn long_flat_code_is_not_nesting() {
        let many = |piece: &str, n: usize| piece.repeat(n);
        assert_loads(&[
            many("x = !a && !b ? -1 : +2;\n", 1000),
            format!("x = [{}];", many("!a, ", 1000)),
            many("const y = !a\n", 1000),
            format!("x = {};", many("a + -b - ", 1000)),
            format!("x = a{}.c;", many("?.b ?? c", 1000)),
            format!("x = {};", many("!a && ", 1000)),
            many("if (!a) { f(() => -1) }\n", 1000),
        ]);
    }

    #[test]
    fn the_corpus_nesting_is_far_below_the_bound() {
        let real = include_str!("../../../../tests/corpus/compat/codex-items/ui-parser.js");
        assert!(nests(real).is_ok());
    }
}
