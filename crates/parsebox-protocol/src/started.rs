//! What an engine reports when its parser started: the export it drives and the module's shape.

use serde::{Deserialize, Serialize};

/// A started parser: the export the engine drives and, for a `ui-parser.js` module, its shape.
/// A built-in parser has no module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    /// `createStdoutParser` (it wins when both are exported) or `parseStdoutLine`.
    pub entry_point: String,
    /// The module's format and exports; `None` for a built-in parser.
    #[serde(default)]
    pub module: Option<ModuleShape>,
}

impl From<&str> for Started {
    /// A parser with no module (a built-in one) that drives `entry_point`.
    fn from(entry_point: &str) -> Self {
        Self {
            entry_point: entry_point.to_owned(),
            module: None,
        }
    }
}

/// How a `ui-parser.js` module is written and what it exports, as its engine loaded it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleShape {
    /// `esm` (`export` statements) or `commonjs` (`module.exports`, `exports.x`).
    #[cfg_attr(feature = "ts", ts(type = "\"esm\" | \"commonjs\""))]
    pub format: String,
    /// The contract exports found, in contract order (`createStdoutParser`, then
    /// `parseStdoutLine`); never empty.
    #[cfg_attr(
        feature = "ts",
        ts(type = "Array<\"createStdoutParser\" | \"parseStdoutLine\">")
    )]
    pub exports: Vec<String>,
    /// An ES module's other export names, in source order (`default` for `export default`):
    /// Paperclip ignores them. Empty for CommonJS.
    pub other_exports: Vec<String>,
}
