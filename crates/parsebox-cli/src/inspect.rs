//! What a parser module looks like from outside: ES module or CommonJS, and which of the two
//! contract exports it has. The sandbox reports only the export it drives, so an ES module's
//! export list is read with boa's parser, and a CommonJS module is probed by loading it a
//! second time with its `createStdoutParser` hidden.
//
// This belongs in parsebox-sandbox (`ParserModule::exports()`); it lives here until the sandbox
// exposes it.

use boa_engine::ast::declaration::ExportEntry;
use boa_engine::ast::scope::Scope;
use boa_engine::interner::Interner;
use boa_engine::parser::{Parser, Source};
use parsebox_sandbox::{EntryPoint, ParserModule, SandboxOptions};
use serde::Serialize;

/// The two names of the contract.
pub const CONTRACT_EXPORTS: [&str; 2] = ["createStdoutParser", "parseStdoutLine"];

/// A module's shape and exports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleShape {
    /// `"esm"` or `"commonjs"`.
    pub format: &'static str,
    /// Contract exports found, in contract order.
    pub exports: Vec<&'static str>,
    /// Other named exports of an ES module (ignored by Paperclip).
    pub other_exports: Vec<String>,
    /// The export the sandbox drives (`createStdoutParser` wins).
    pub entry_point: &'static str,
}

/// Inspects a source that [`ParserModule::load`] accepted as `module`.
pub fn inspect(source: &str, module: &ParserModule, options: &SandboxOptions) -> ModuleShape {
    let entry = module.entry_point();
    if let Some(names) = esm_exports(source) {
        let exports = CONTRACT_EXPORTS
            .iter()
            .copied()
            .filter(|n| names.iter().any(|m| m == n))
            .collect();
        let other_exports = names
            .into_iter()
            .filter(|n| !CONTRACT_EXPORTS.contains(&n.as_str()))
            .collect();
        return ModuleShape {
            format: "esm",
            exports,
            other_exports,
            entry_point: entry.as_str(),
        };
    }
    let mut exports = vec![entry.as_str()];
    if entry == EntryPoint::CreateStdoutParser && commonjs_also_has_stateless(source, options) {
        exports.push("parseStdoutLine");
    }
    ModuleShape {
        format: "commonjs",
        exports,
        other_exports: Vec::new(),
        entry_point: entry.as_str(),
    }
}

/// The export names of `source` when it parses as an ES module with at least one `export`;
/// `None` for a CommonJS file (no exports, or not valid module code).
fn esm_exports(source: &str) -> Option<Vec<String>> {
    let mut interner = Interner::default();
    let module = Parser::new(Source::from_bytes(source.as_bytes()))
        .parse_module(&Scope::new_global(), &mut interner)
        .ok()?;
    let mut names = Vec::new();
    let mut any = false;
    for entry in module.items().export_entries() {
        any = true;
        if let ExportEntry::Ordinary(e) = entry {
            let name = interner
                .resolve(e.export_name())
                .map(|s| s.to_string())
                .unwrap_or_default();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    any.then_some(names)
}

/// Loads the CommonJS source again with `module.exports` narrowed to `parseStdoutLine`: if it
/// still loads, the stateless export exists too.
fn commonjs_also_has_stateless(source: &str, options: &SandboxOptions) -> bool {
    let probe = format!(
        "{source}\n;module.exports = {{ parseStdoutLine: (module.exports || {{}}).parseStdoutLine }};\n"
    );
    let options = SandboxOptions {
        max_source_bytes: usize::MAX,
        ..options.clone()
    };
    ParserModule::load(&probe, options)
        .is_ok_and(|m| m.entry_point() == EntryPoint::ParseStdoutLine)
}
