//! The CommonJS shape: the source wrapped in a function of `(module, exports, require)`.

use boa_engine::ast::scope::Scope;
use boa_engine::interner::Interner;
use boa_engine::parser::{Parser, Source};

use super::position::syntax_error;
use super::pow_rewrite::rewrite;
use super::regex_hoist::hoist;
use super::{Prepared, Shape};
use crate::LoadError;

/// The wrapper's opening; the source follows it on the same line.
const CJS_PREFIX: &str = "(function (module, exports, require) {";

/// Wraps a CommonJS source into a script whose value is the module function.
///
/// # Errors
/// `syntax_error`, positioned in the original source.
pub(super) fn prepare(src: &str) -> Result<Prepared, LoadError> {
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
    Ok(Prepared {
        shape: Shape::CommonJs,
        script: hoist(rewrite(script, &ast, &interner), &ast, &interner),
        export_names: Vec::new(),
    })
}
