//! What a parser module looks like from outside, for the report: ES module or CommonJS, which
//! of the two contract exports it has, and the export the sandbox drives. The engine says it
//! as it says it to the core ([`parsebox_engine::module_shape`], what a page's `status().module`
//! shows); this module only shapes it for the report.

use parsebox_sandbox::{ModuleFormat, ParserModule};
use serde::Serialize;

/// A module's shape and exports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleShape {
    /// `"esm"` or `"commonjs"`.
    pub format: String,
    /// Contract exports found, in contract order.
    pub exports: Vec<String>,
    /// Other named exports of an ES module (ignored by Paperclip).
    pub other_exports: Vec<String>,
    /// The export the sandbox drives (`createStdoutParser` wins).
    pub entry_point: String,
}

impl ModuleShape {
    /// Whether the module is an ES module.
    pub fn is_esm(&self) -> bool {
        self.format == ModuleFormat::EsModule.as_str()
    }
}

/// The shape of a module [`ParserModule::load`] accepted.
pub fn inspect(module: &ParserModule) -> ModuleShape {
    let shape = parsebox_engine::module_shape(module);
    ModuleShape {
        format: shape.format,
        exports: shape.exports,
        other_exports: shape.other_exports,
        entry_point: module.entry_point().as_str().to_owned(),
    }
}
