//! The ES-module rewrite: the `export` keywords blanked in place (so line and column numbers
//! stay those of the original), and a `return` of the contract exports appended, giving a
//! script whose value is a function returning the exports object.

use boa_engine::ast::operations::{contains, ContainsSymbol};
use boa_engine::ast::scope::Scope;
use boa_engine::interner::Interner;
use boa_engine::parser::{Parser, Source};

use super::es_exports::collect;
use super::position::{err, syntax_error};
use super::pow_rewrite::rewrite;
use super::regex_hoist::hoist;
use super::tokenizer::{is_ident_byte, Kind, Token};
use super::{Prepared, Shape};
use crate::{LoadError, LoadErrorCode};

/// Rewrites the ES module `src` (tokenized as `toks`) into a sandbox script.
///
/// # Errors
/// `syntax_error` (positioned in the original), `top_level_await`, `imports` for a re-export,
/// and `unsupported_module` when the rewrite does not parse (the tokenizer misread the file).
pub(super) fn prepare(src: &str, toks: &[Token]) -> Result<Prepared, LoadError> {
    let mut interner = Interner::default();
    let module = Parser::new(Source::from_bytes(src.as_bytes()))
        .parse_module(&Scope::new_global(), &mut interner)
        .map_err(|e| syntax_error(src, &e, 0))?;
    let items = module.items();
    if contains(items, ContainsSymbol::AwaitExpression) {
        return Err(err(
            LoadErrorCode::TopLevelAwait,
            "top-level await is not allowed in a ui-parser".to_owned(),
            src,
            None,
        ));
    }
    let exports = collect(items, &interner, src)?;
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
            LoadErrorCode::SyntaxError,
            "source is not valid UTF-8 after rewriting".to_owned(),
            src,
            None,
        )
    })?;
    let mut ret = String::from("\n;return { __proto__: null");
    for (name, local) in &exports.contract {
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
                code: LoadErrorCode::UnsupportedModule,
                message: format!("could not turn this ES module into a sandbox script ({e})"),
                line: None,
                column: None,
            })
        }
    };
    Ok(Prepared {
        shape: Shape::EsModule,
        script: hoist(rewrite(script, &ast, &interner), &ast, &interner),
        export_names: exports.names,
    })
}

#[cfg(test)]
mod tests {
    use crate::source::{prepare, Shape};

    #[test]
    fn esm_rewrite_keeps_positions() {
        let p = prepare(
            "export function parseStdoutLine(l) { return [] }\nconst c = 1; export { c as createStdoutParser };\nexport default function () {}",
            1000,
            true,
        )
        .unwrap();
        assert_eq!(p.shape, Shape::EsModule);
        assert!(p.script.contains("createStdoutParser: c"), "{}", p.script);
        assert_eq!(p.script.lines().count(), 5);
    }
}
