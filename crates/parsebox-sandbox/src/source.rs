//! Static checks and wrapping of a parser source (SPEC §3).
//!
//! A small JavaScript tokenizer finds what the AST cannot tell us cheaply: where the top-level
//! `export` keywords are (so an ES module can be rewritten into a script with the same line and
//! column numbers), `require(` / `import(` / `import.meta`, and every regex literal (screened by
//! [`crate::regex_screen`]). boa's own parser decides syntax errors and the export table, so a
//! tokenizer mistake can only make a file fail to load, never run differently.

use std::convert::Infallible;
use std::ops::ControlFlow;

use boa_engine::ast::declaration::ExportEntry;
use boa_engine::ast::expression::RegExpLiteral;
use boa_engine::ast::operations::{contains, ContainsSymbol};
use boa_engine::ast::scope::Scope;
use boa_engine::ast::visitor::Visitor;
use boa_engine::interner::Interner;
use boa_engine::parser::{Parser, Source};

use crate::regex_screen::screen_pattern;
use crate::LoadError;

/// What kind of token a [`Token`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A single punctuation character (`{`, `(`, `.`, …).
    Punct(u8),
    /// A string, template, number or other literal; never interesting here.
    Literal,
    /// A regular expression literal; `flags_at` is where the flags start.
    Regex { flags_at: usize },
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
    /// Depth of `{`/`(`/`[` nesting (template substitutions count as braces).
    depth: u32,
}

/// Tokenizes `src` well enough to find keywords, punctuation nesting and regex literals. Never
/// fails: malformed input (which boa's parser rejects anyway) just yields odd tokens.
fn tokenize(src: &str) -> Vec<Token> {
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
            b'`' => {
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
            b'{' | b'(' | b'[' => {
                toks.push(Token {
                    kind: Kind::Punct(c),
                    start: i,
                    end: i + 1,
                    depth,
                });
                stack.push(c);
                i += 1;
            }
            b'}' if stack.last() == Some(&b'`') => {
                stack.pop();
                let start = i;
                i = scan_template(i + 1, &mut stack);
                toks.push(Token {
                    kind: Kind::Literal,
                    start,
                    end: i.min(b.len()),
                    depth,
                });
            }
            b'}' | b')' | b']' => {
                stack.pop();
                let depth = u32::try_from(stack.len()).unwrap_or(u32::MAX);
                toks.push(Token {
                    kind: Kind::Punct(c),
                    start: i,
                    end: i + 1,
                    depth,
                });
                i += 1;
            }
            _ => {
                toks.push(Token {
                    kind: Kind::Punct(c),
                    start: i,
                    end: i + 1,
                    depth,
                });
                i += 1;
            }
        }
    }
    toks
}

fn is_ident_byte(c: u8) -> bool {
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

/// 1-based line and column (in characters) of byte offset `pos`.
pub(crate) fn line_col(src: &str, pos: usize) -> (u32, u32) {
    let before = src.get(..pos).unwrap_or(src);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

/// The module shape a source was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `export …` statements.
    EsModule,
    /// `module.exports` / `exports.x`.
    CommonJs,
}

/// A source that passed the static checks, rewritten into a script whose completion value is a
/// function `(module, exports, require) => exports-object` (CommonJS) or `() => { exports }` (ESM).
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub(crate) shape: Shape,
    /// The script text to evaluate; line and column numbers match the original source.
    pub(crate) script: String,
}

const CJS_PREFIX: &str = "(function (module, exports, require) {";

fn err(code: &'static str, message: String, src: &str, pos: Option<usize>) -> LoadError {
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

/// Runs every static check of SPEC §3 and wraps the source.
pub(crate) fn prepare(src: &str, max_regex_source: usize) -> Result<Prepared, LoadError> {
    let toks = tokenize(src);
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
                return Err(err("imports", what.to_owned(), src, Some(t.start)));
            }
            (Kind::Ident, "require") if !after_dot && is_punct(next, b'(') => {
                return Err(err(
                    "imports",
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
                if let Err(why) = screen_pattern(body, flags, max_regex_source) {
                    return Err(err(
                        "unsafe_regex",
                        format!("regex literal {} refused: {why}", text(t)),
                        src,
                        Some(t.start),
                    ));
                }
            }
            _ => {}
        }
    }
    match shape {
        Shape::CommonJs => prepare_cjs(src),
        Shape::EsModule => prepare_esm(src, &toks),
    }
}

fn syntax_error(src: &str, e: &boa_engine::parser::Error, col_shift_line1: u32) -> LoadError {
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
        code: "syntax_error",
        message,
        line,
        column,
    }
}

fn prepare_cjs(src: &str) -> Result<Prepared, LoadError> {
    let script = format!("{CJS_PREFIX}{src}\n}})");
    let mut interner = Interner::default();
    let parsed = Parser::new(Source::from_bytes(script.as_bytes()))
        .parse_script(&Scope::new_global(), &mut interner);
    let ast = match parsed {
        Ok(ast) => ast,
        Err(e) => {
            let shift = u32::try_from(CJS_PREFIX.chars().count()).unwrap_or(0);
            let mut le = syntax_error(src, &e, shift);
            if e.to_string().contains("await") {
                le.message
                    .push_str(" (top-level await is not allowed in a ui-parser)");
            }
            return Err(le);
        }
    };
    let regexes = regex_literals(&ast, &interner);
    Ok(Prepared {
        shape: Shape::CommonJs,
        script: hoist_regexes(&script, &regexes).unwrap_or(script),
    })
}

fn prepare_esm(src: &str, toks: &[Token]) -> Result<Prepared, LoadError> {
    let mut interner = Interner::default();
    let module = Parser::new(Source::from_bytes(src.as_bytes()))
        .parse_module(&Scope::new_global(), &mut interner)
        .map_err(|e| syntax_error(src, &e, 0))?;
    let items = module.items();
    if contains(items, ContainsSymbol::AwaitExpression) {
        return Err(err(
            "top_level_await",
            "top-level await is not allowed in a ui-parser".to_owned(),
            src,
            None,
        ));
    }
    let mut exports: Vec<(&'static str, String)> = Vec::new();
    for entry in items.export_entries() {
        match entry {
            ExportEntry::Ordinary(e) => {
                let resolve = |sym| {
                    interner
                        .resolve(sym)
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                };
                let export = resolve(e.export_name());
                let local = resolve(e.local_name());
                for wanted in ["createStdoutParser", "parseStdoutLine"] {
                    if export == wanted && !exports.iter().any(|(w, _)| *w == wanted) {
                        exports.push((wanted, local.clone()));
                    }
                }
            }
            ExportEntry::StarReExport { .. } | ExportEntry::ReExport(_) => {
                return Err(err(
                    "imports",
                    "re-exports (`export … from`) are imports and are not allowed".to_owned(),
                    src,
                    None,
                ));
            }
        }
    }
    // Blank out the `export` keywords (and `export { … }` lists) in place.
    let mut out = src.as_bytes().to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for byte in out.iter_mut().take(to).skip(from) {
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    };
    let text = |t: &Token| src.get(t.start..t.end).unwrap_or("");
    let mut k = 0;
    while let Some(t) = toks.get(k) {
        let prev_dot = k
            .checked_sub(1)
            .and_then(|j| toks.get(j))
            .is_some_and(|p| p.kind == Kind::Punct(b'.'));
        if !(t.kind == Kind::Ident && t.depth == 0 && text(t) == "export" && !prev_dot) {
            k += 1;
            continue;
        }
        let next = toks.get(k + 1);
        match next.map(|n| (n.kind, text(n))) {
            Some((Kind::Ident, "default")) => {
                let n1 = toks.get(k + 2).map(text);
                let n2 = toks.get(k + 3).map(text);
                let n3 = toks.get(k + 4).map(text);
                let named = |name: Option<&str>| {
                    name.is_some_and(|s| {
                        s != "extends" && s.bytes().next().is_some_and(is_ident_byte)
                    })
                };
                let declaration = match (n1, n2, n3) {
                    (Some("function"), Some("*"), n) => named(n),
                    (Some("function"), n, _) => named(n),
                    (Some("async"), Some("function"), Some("*")) => {
                        named(toks.get(k + 5).map(text))
                    }
                    (Some("async"), Some("function"), n) => named(n),
                    (Some("class"), n, _) => named(n),
                    _ => false,
                };
                let end = next.map_or(t.end, |n| n.end);
                blank(&mut out, t.start, end);
                if !declaration {
                    // `export default <expression>` → `void <expression>` (evaluated, ignored).
                    if let Some(slot) = out.get_mut(t.start..t.start + 4) {
                        slot.copy_from_slice(b"void");
                    }
                }
                k += 2;
            }
            Some((Kind::Punct(b'{'), _)) => {
                let open_depth = next.map_or(0, |n| n.depth);
                let mut j = k + 2;
                while let Some(tj) = toks.get(j) {
                    if tj.kind == Kind::Punct(b'}') && tj.depth == open_depth {
                        break;
                    }
                    j += 1;
                }
                let end = toks.get(j).map_or(src.len(), |tj| tj.end);
                blank(&mut out, t.start, end);
                k = j + 1;
            }
            _ => {
                blank(&mut out, t.start, t.end);
                k += 1;
            }
        }
    }
    let body = String::from_utf8(out).map_err(|_| {
        err(
            "syntax_error",
            "source is not valid UTF-8 after rewriting".to_owned(),
            src,
            None,
        )
    })?;
    let mut ret = String::from("\n;return { __proto__: null");
    for (name, local) in &exports {
        ret.push_str(&format!(", {name}: {local}"));
    }
    ret.push_str(" };\n})");
    let script = format!("(function () {{\"use strict\";{body}{ret}");
    // The rewrite must still parse; if it does not, the tokenizer misread the file.
    let mut interner = Interner::default();
    let ast = match Parser::new(Source::from_bytes(script.as_bytes()))
        .parse_script(&Scope::new_global(), &mut interner)
    {
        Ok(ast) => ast,
        Err(e) => {
            return Err(LoadError {
                code: "unsupported_module",
                message: format!("could not turn this ES module into a sandbox script ({e})"),
                line: None,
                column: None,
            })
        }
    };
    let regexes = regex_literals(&ast, &interner);
    Ok(Prepared {
        shape: Shape::EsModule,
        script: hoist_regexes(&script, &regexes).unwrap_or(script),
    })
}

/// Every regex literal of a parsed script, as (pattern, flags) in source order.
fn regex_literals(ast: &boa_engine::ast::Script, interner: &Interner) -> Vec<(String, String)> {
    struct Collect<'i> {
        interner: &'i Interner,
        found: Vec<(String, String)>,
    }
    impl<'ast> Visitor<'ast> for Collect<'_> {
        type BreakTy = Infallible;
        fn visit_reg_exp_literal(&mut self, node: &'ast RegExpLiteral) -> ControlFlow<Infallible> {
            let text = |sym| {
                self.interner
                    .resolve(sym)
                    .map(|s| s.to_string())
                    .unwrap_or_default()
            };
            self.found.push((text(node.pattern()), text(node.flags())));
            ControlFlow::Continue(())
        }
    }
    let mut c = Collect {
        interner,
        found: Vec::new(),
    };
    let _ = c.visit_script(ast);
    c.found
}

/// Names of the hoisted regex objects; a source that mentions this prefix is left alone.
const HOIST: &str = "__parsebox_re";

/// String methods whose regex argument is consumed without escaping to guest code and without
/// observable state carried from one call to the next (without the sticky flag: `match` and
/// `replace` reset a global regex's `lastIndex` first and leave it at 0; `split` and `matchAll`
/// work on a copy; `search` restores it).
const ARG_METHODS: [&str; 6] = [
    "match",
    "matchAll",
    "replace",
    "replaceAll",
    "search",
    "split",
];

/// boa compiles a regex literal every time it is evaluated (V8 and QuickJS compile it once): a
/// literal inside a parser's `parseLine` was a fifth of the time per line. This rewrite creates
/// such literals once per realm, before the module runs, where sharing one object between
/// evaluations cannot be observed:
/// - `/re/.test(…)` and `/re/.exec(…)` without the `g` or `y` flag (exec then neither reads
///   nor writes state between calls);
/// - the first argument of `.match(`, `.matchAll(`, `.replace(`, `.replaceAll(`, `.search(`,
///   `.split(` without the `y` flag.
///
/// In both shapes the object is consumed by a built-in and never reaches guest code. The
/// tokenizer's regex tokens must agree exactly, in order, with boa's AST (`ast_regexes`), so a
/// tokenizer mistake leaves the source as it was. Returns `None` when there is nothing to do.
fn hoist_regexes(script: &str, ast_regexes: &[(String, String)]) -> Option<String> {
    if script.contains(HOIST) || ast_regexes.is_empty() {
        return None;
    }
    let toks = tokenize(script);
    let text = |t: &Token| script.get(t.start..t.end).unwrap_or("");
    let parts = |t: &Token| match t.kind {
        Kind::Regex { flags_at } => Some((
            script
                .get(t.start + 1..flags_at.saturating_sub(1))
                .unwrap_or(""),
            script.get(flags_at..t.end).unwrap_or(""),
        )),
        _ => None,
    };
    let found: Vec<(&str, &str)> = toks.iter().filter_map(parts).collect();
    if found.len() != ast_regexes.len()
        || found
            .iter()
            .zip(ast_regexes)
            .any(|((p, f), (ap, af))| p != ap || f != af)
    {
        return None;
    }
    let is_punct = |t: Option<&Token>, p: u8| t.is_some_and(|t| t.kind == Kind::Punct(p));
    let mut hoisted: Vec<&str> = Vec::new();
    let mut out = String::with_capacity(script.len() + 64);
    let mut last = 0;
    for (k, t) in toks.iter().enumerate() {
        let Some((_, flags)) = parts(t) else { continue };
        let next = |j: usize| toks.get(k + j);
        let prev = |j: usize| k.checked_sub(j).and_then(|i| toks.get(i));
        let receiver = is_punct(next(1), b'.')
            && next(2).is_some_and(|n| n.kind == Kind::Ident && matches!(text(n), "test" | "exec"))
            && is_punct(next(3), b'(')
            && !flags.contains(['g', 'y']);
        let argument = is_punct(prev(1), b'(')
            && prev(2).is_some_and(|p| p.kind == Kind::Ident && ARG_METHODS.contains(&text(p)))
            && is_punct(prev(3), b'.')
            && (is_punct(next(1), b',') || is_punct(next(1), b')'))
            && !flags.contains('y');
        if !(receiver || argument) {
            continue;
        }
        let literal = text(t);
        let index = match hoisted.iter().position(|h| *h == literal) {
            Some(i) => i,
            None => {
                hoisted.push(literal);
                hoisted.len() - 1
            }
        };
        out.push_str(script.get(last..t.start)?);
        out.push_str(&format!("{HOIST}{index}"));
        last = t.end;
    }
    if hoisted.is_empty() {
        return None;
    }
    out.push_str(script.get(last..)?);
    let decls: Vec<String> = hoisted
        .iter()
        .enumerate()
        .map(|(i, lit)| format!("{HOIST}{i} = {lit}"))
        .collect();
    Some(format!(
        "(function () {{ var {}; return {out}\n}})()",
        decls.join(", ")
    ))
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
            let e = prepare(src, 1000).unwrap_err();
            assert_eq!(e.code, code, "{src}: {e}");
        }
        assert!(prepare("obj.require('x'); module.exports = {}", 1000).is_ok());
    }

    #[test]
    fn syntax_errors_point_into_the_original() {
        let e = prepare("module.exports = {\n  a: 1,\n  b: ]\n};", 1000).unwrap_err();
        assert_eq!(e.code, "syntax_error");
        assert_eq!(e.line, Some(3), "{e}");
        let e = prepare("export function f() {\n  return )\n}", 1000).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(10)), "{e}");
        let e = prepare("var x = );", 1000).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(9)), "{e}");
    }

    #[test]
    fn regex_literals_are_hoisted_only_where_sharing_is_invisible() {
        let src = "export function parseStdoutLine(l) {\n\
            const a = /^x(\\d+)/i.exec(l); const b = /y/g.test(l); const c = l.replace(/\\s+/g, ' ');\n\
            const d = l.split(/,/); const e = /z/; const f = l.match(/w/y); const g = /^x(\\d+)/i.test(l);\n\
            return [a, b, c, d, e, f, g, /q/.exec(l) / 2, l.replace(/[/]/, \"/\")]; }";
        let p = prepare(src, 1000).unwrap();
        let s = &p.script;
        // Hoisted: exec/test receivers without g/y, and String-method arguments without y;
        // identical literals share one object.
        assert!(s.starts_with("(function () { var __parsebox_re0 = /^x(\\d+)/i, __parsebox_re1 = /\\s+/g, __parsebox_re2 = /,/, __parsebox_re3 = /q/, __parsebox_re4 = /[/]/; return "), "{s}");
        assert!(
            s.contains("__parsebox_re0.exec(l)") && s.contains("__parsebox_re0.test(l)"),
            "{s}"
        );
        // Kept: a global test receiver, a literal that escapes, a sticky argument.
        assert!(
            s.contains("/y/g.test(l)")
                && s.contains("const e = /z/;")
                && s.contains("l.match(/w/y)"),
            "{s}"
        );
        // A source that already uses the prefix is left alone.
        let p = prepare(
            "export function parseStdoutLine(l) { const __parsebox_re0 = 1; return /a/.test(l); }",
            1000,
        )
        .unwrap();
        assert!(!p.script.contains("var __parsebox_re"), "{}", p.script);
    }

    #[test]
    fn esm_rewrite_keeps_positions() {
        let p = prepare(
            "export function parseStdoutLine(l) { return [] }\nconst c = 1; export { c as createStdoutParser };\nexport default function () {}",
            1000,
        )
        .unwrap();
        assert_eq!(p.shape, Shape::EsModule);
        assert!(p.script.contains("createStdoutParser: c"), "{}", p.script);
        assert_eq!(p.script.lines().count(), 5);
    }
}
