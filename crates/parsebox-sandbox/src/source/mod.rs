//! Static checks and wrapping of a parser source (SPEC §3).
//!
//! A small JavaScript tokenizer ([`tokenizer`]) finds what the AST cannot tell us cheaply: where
//! the top-level `export` keywords are (so an ES module can be rewritten into a script with the
//! same line and column numbers), `require(` / `import(` / `import.meta`, and every regex literal
//! (screened by [`crate::regex_screen`]). boa's own parser decides syntax errors and the export
//! table, so a tokenizer mistake can only make a file fail to load, never run differently.
//!
//! [`prepare`] runs the token checks ([`static_checks`]), then wraps the file by its shape:
//! [`commonjs`] or [`es_module`] (whose exports [`es_exports`] reads); both hoist regex literals
//! ([`regex_hoist`]) and turn `**` into V8's exponentiation ([`pow_rewrite`]). [`position`]
//! maps errors back to the original source.

mod commonjs;
mod es_exports;
mod es_module;
mod nesting;
mod position;
mod pow_rewrite;
mod regex_hoist;
mod static_checks;
mod tokenizer;

pub use nesting::MAX_SOURCE_NESTING;

use crate::LoadError;

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
    /// ES module or CommonJS.
    pub(crate) shape: Shape,
    /// The script text to evaluate; line and column numbers match the original source.
    pub(crate) script: String,
    /// An ES module's static export names, in source order without repeats (`default` for
    /// `export default`); empty for CommonJS, whose exports are only known by running it.
    pub(crate) export_names: Vec<String>,
}

/// Runs every static check of SPEC §3 and wraps the source.
///
/// # Errors
/// The first check that fails: `too_large` (nesting deeper than
/// [`MAX_SOURCE_NESTING`](nesting::MAX_SOURCE_NESTING)), `imports`, `unsafe_regex`,
/// `syntax_error`, `top_level_await` or `unsupported_module`.
pub(crate) fn prepare(
    src: &str,
    max_regex_source: usize,
    screen_regexes: bool,
) -> Result<Prepared, LoadError> {
    let toks = tokenizer::tokenize(src);
    nesting::check(src, &toks)?;
    match static_checks::scan(src, &toks, max_regex_source, screen_regexes)? {
        Shape::CommonJs => commonjs::prepare(src),
        Shape::EsModule => es_module::prepare(src, &toks),
    }
}
