//! What a parser module looks like from outside, for the report: ES module or CommonJS, which
//! of the two contract exports it has, and the export the sandbox drives. The engine says it
//! as it says it to the core ([`parsebox_engine::module_shape`], what a page's `status().module`
//! shows); the report adds the entry point beside it.

use parsebox_sandbox::{ModuleFormat, ParserModule};
use serde::Serialize;

/// A module's shape and exports, and the export the sandbox drives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleShape {
    /// Format, contract exports in contract order, other exports (ignored by Paperclip).
    #[serde(flatten)]
    pub shape: parsebox_host::ModuleShape,
    /// The export the sandbox drives (`createStdoutParser` wins).
    pub entry_point: String,
}

impl ModuleShape {
    /// Whether the module is an ES module.
    pub fn is_esm(&self) -> bool {
        self.shape.format == ModuleFormat::EsModule.as_str()
    }
}

/// The shape of a module [`ParserModule::load`] accepted.
pub fn inspect(module: &ParserModule) -> ModuleShape {
    ModuleShape {
        shape: parsebox_engine::module_shape(module),
        entry_point: module.entry_point().as_str().to_owned(),
    }
}
