//! An ES module's export table, read from boa's AST: every static export name, and the local
//! binding behind each contract export (the rewritten script returns those).

use boa_engine::ast::declaration::ExportEntry;
use boa_engine::ast::ModuleItemList;
use boa_engine::interner::Interner;

use super::position::err;
use crate::{LoadError, LoadErrorCode};

/// What an ES module exports.
pub(super) struct EsExports {
    /// Every static export name, in source order without repeats (`default` for
    /// `export default`).
    pub(super) names: Vec<String>,
    /// Each contract export found, with the local name it is bound to.
    pub(super) contract: Vec<(&'static str, String)>,
}

/// The exports of the module `items` of `src`, parsed with `interner`.
///
/// # Errors
/// `imports` for a re-export (`export … from`).
pub(super) fn collect(
    items: &ModuleItemList,
    interner: &Interner,
    src: &str,
) -> Result<EsExports, LoadError> {
    // Every static export name in source order, and the local binding of each contract export.
    let mut names: Vec<String> = Vec::new();
    let mut contract: Vec<(&'static str, String)> = Vec::new();
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
                    if export == wanted && !contract.iter().any(|(w, _)| *w == wanted) {
                        contract.push((wanted, local.clone()));
                    }
                }
                if !names.contains(&export) {
                    names.push(export);
                }
            }
            ExportEntry::StarReExport { .. } | ExportEntry::ReExport(_) => {
                return Err(err(
                    LoadErrorCode::Imports,
                    "re-exports (`export … from`) are imports and are not allowed".to_owned(),
                    src,
                    None,
                ));
            }
        }
    }
    Ok(EsExports { names, contract })
}
