//! What a loaded parser module exports, as seen from outside: its format, which of the two
//! contract exports it has, and (for an ES module) what else it exports. Computed from what
//! [`crate::ParserModule::load`] already found, so nothing is parsed or run twice.

use crate::realm::Realm;
use crate::source::{Prepared, Shape};
use crate::EntryPoint;

/// The module format a parser source was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleFormat {
    /// `export …` statements at the top level.
    EsModule,
    /// `module.exports` / `exports.x`.
    CommonJs,
}

impl ModuleFormat {
    /// `"esm"` or `"commonjs"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EsModule => "esm",
            Self::CommonJs => "commonjs",
        }
    }
}

/// A loaded module's exports ([`crate::ParserModule::exports`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleExports {
    /// ES module or CommonJS.
    pub format: ModuleFormat,
    /// The contract exports found, in contract order (`createStdoutParser`, then
    /// `parseStdoutLine`). An ES module's are its static export names, whatever they are bound
    /// to; a CommonJS module's are the functions on its `module.exports` after the trial
    /// evaluation. Never empty for a loaded module: it holds at least the entry point.
    pub contract: Vec<EntryPoint>,
    /// An ES module's other static export names, in source order (`default` for
    /// `export default`); Paperclip ignores them. Always empty for CommonJS, whose other
    /// exports are not read.
    pub other: Vec<String>,
}

impl ModuleExports {
    /// Both contract exports, in contract order.
    const CONTRACT: [EntryPoint; 2] = [EntryPoint::CreateStdoutParser, EntryPoint::ParseStdoutLine];

    /// The exports of `prepared`, whose trial evaluation gave `realm`.
    pub(crate) fn new(prepared: &Prepared, realm: &Realm) -> Self {
        match prepared.shape {
            Shape::EsModule => {
                let names = &prepared.export_names;
                let contract = Self::CONTRACT
                    .into_iter()
                    .filter(|e| names.iter().any(|n| n == e.as_str()))
                    .collect();
                let other = names
                    .iter()
                    .filter(|n| !Self::CONTRACT.iter().any(|e| e.as_str() == n.as_str()))
                    .cloned()
                    .collect();
                ModuleExports {
                    format: ModuleFormat::EsModule,
                    contract,
                    other,
                }
            }
            Shape::CommonJs => {
                let mut contract = vec![realm.entry];
                if realm.also_stateless {
                    contract.push(EntryPoint::ParseStdoutLine);
                }
                ModuleExports {
                    format: ModuleFormat::CommonJs,
                    contract,
                    other: Vec::new(),
                }
            }
        }
    }

    /// Whether the module exports `entry`.
    pub fn has(&self, entry: EntryPoint) -> bool {
        self.contract.contains(&entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParserModule, SandboxOptions};

    use EntryPoint::{CreateStdoutParser as Factory, ParseStdoutLine as Stateless};
    use ModuleFormat::{CommonJs, EsModule};

    const FACTORY: &str = "function () { return { parseLine() { return []; } }; }";

    #[test]
    fn exports_are_read_from_what_load_found() {
        let esm_both = format!(
            "export const helper = 1;\nexport function parseStdoutLine() {{ return []; }}\n\
             const make = {FACTORY};\nexport {{ make as createStdoutParser, helper as alias }};\n\
             export default 2;"
        );
        let cjs_both = format!(
            "module.exports = {{ createStdoutParser: {FACTORY}, parseStdoutLine() {{ return []; }} }};"
        );
        let cjs_stateless_not_a_function =
            format!("exports.createStdoutParser = {FACTORY}; exports.parseStdoutLine = 1;");
        // What, source, format, contract exports, other exports.
        type Row<'a> = (
            &'a str,
            &'a str,
            ModuleFormat,
            Vec<EntryPoint>,
            Vec<&'a str>,
        );
        let table: [Row; 5] = [
            (
                "ESM, both contract exports and others",
                &esm_both,
                EsModule,
                vec![Factory, Stateless],
                vec!["helper", "alias", "default"],
            ),
            (
                "ESM, stateless only",
                "export function parseStdoutLine() { return []; }",
                EsModule,
                vec![Stateless],
                vec![],
            ),
            (
                "CommonJS, both",
                &cjs_both,
                CommonJs,
                vec![Factory, Stateless],
                vec![],
            ),
            (
                "CommonJS, a parseStdoutLine that is not a function",
                &cjs_stateless_not_a_function,
                CommonJs,
                vec![Factory],
                vec![],
            ),
            (
                "CommonJS, stateless only",
                "exports.parseStdoutLine = function () { return []; };",
                CommonJs,
                vec![Stateless],
                vec![],
            ),
        ];
        for (what, src, format, contract, other) in table {
            let module = ParserModule::load(src, SandboxOptions::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let exports = module.exports();
            assert_eq!(exports.format, format, "{what}");
            assert_eq!(exports.contract, contract, "{what}");
            assert_eq!(exports.other, other, "{what}");
            assert!(exports.has(module.entry_point()), "{what}");
        }
    }
}
