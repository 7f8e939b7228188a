//! Regex literals created once per realm instead of at every evaluation, where sharing one
//! object cannot be observed.

use std::convert::Infallible;
use std::ops::ControlFlow;

use boa_engine::ast::expression::RegExpLiteral;
use boa_engine::ast::visitor::Visitor;
use boa_engine::interner::Interner;

use super::tokenizer::{tokenize, Kind, Token};

/// `script` (parsed as `ast`) with its hoistable regex literals hoisted, or as it was.
pub(super) fn hoist(script: String, ast: &boa_engine::ast::Script, interner: &Interner) -> String {
    let regexes = regex_literals(ast, interner);
    hoist_regexes(&script, &regexes).unwrap_or(script)
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
    use crate::source::prepare;

    #[test]
    fn regex_literals_are_hoisted_only_where_sharing_is_invisible() {
        let src = "export function parseStdoutLine(l) {\n\
            const a = /^x(\\d+)/i.exec(l); const b = /y/g.test(l); const c = l.replace(/\\s+/g, ' ');\n\
            const d = l.split(/,/); const e = /z/; const f = l.match(/w/y); const g = /^x(\\d+)/i.test(l);\n\
            return [a, b, c, d, e, f, g, /q/.exec(l) / 2, l.replace(/[/]/, \"/\")]; }";
        let p = prepare(src, 1000, true).unwrap();
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
            true,
        )
        .unwrap();
        assert!(!p.script.contains("var __parsebox_re"), "{}", p.script);
    }
}
