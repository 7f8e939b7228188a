//! Why a parser source could not be loaded, or a run could not be started: a stable
//! [`LoadErrorCode`] and a [`LoadError`] carrying it with a message and a source position.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a parser source could not be loaded. The snake_case names are stable: hosts and reports
/// show them, and the TypeScript types list them as a string-literal union. Declared in
/// alphabetical order, so counts keyed by code list the way string-keyed ones do.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadErrorCode {
    /// `createStdoutParser()` did not return an object with a `parseLine` function.
    BadFactory,
    /// The engine itself faulted, or could not set up the realm (a bug).
    EngineFault,
    /// The source imports something: `import`, `require(`, `import()`, `import.meta` or a
    /// re-export (`export … from`).
    Imports,
    /// Module evaluation plus `createStdoutParser()` ran past the init budget, or hit an engine
    /// loop/recursion limit.
    InitBudgetExceeded,
    /// Module evaluation plus `createStdoutParser()` allocated more than the sandbox allows.
    InitMemoryExceeded,
    /// Module evaluation or `createStdoutParser()` threw.
    InitThrew,
    /// Neither `createStdoutParser` nor `parseStdoutLine` is an exported function.
    NoExport,
    /// The source does not parse (the position is in the original source).
    SyntaxError,
    /// The source is larger than `max_source_bytes`, or nests deeper than
    /// [`MAX_SOURCE_NESTING`](crate::MAX_SOURCE_NESTING) levels (no host could parse it on its
    /// stack).
    TooLarge,
    /// An ES module awaits at its top level.
    TopLevelAwait,
    /// A regex literal has a catastrophic shape (nested or overlapping quantifiers), or is
    /// longer than `max_regex_source`.
    UnsafeRegex,
    /// The ES module could not be rewritten into a sandbox script.
    UnsupportedModule,
}

impl LoadErrorCode {
    /// Every code, in alphabetical order (for tables and generated types).
    pub const ALL: [LoadErrorCode; 12] = [
        Self::BadFactory,
        Self::EngineFault,
        Self::Imports,
        Self::InitBudgetExceeded,
        Self::InitMemoryExceeded,
        Self::InitThrew,
        Self::NoExport,
        Self::SyntaxError,
        Self::TooLarge,
        Self::TopLevelAwait,
        Self::UnsafeRegex,
        Self::UnsupportedModule,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::BadFactory => "bad_factory",
            Self::EngineFault => "engine_fault",
            Self::Imports => "imports",
            Self::InitBudgetExceeded => "init_budget_exceeded",
            Self::InitMemoryExceeded => "init_memory_exceeded",
            Self::InitThrew => "init_threw",
            Self::NoExport => "no_export",
            Self::SyntaxError => "syntax_error",
            Self::TooLarge => "too_large",
            Self::TopLevelAwait => "top_level_await",
            Self::UnsafeRegex => "unsafe_regex",
            Self::UnsupportedModule => "unsupported_module",
        }
    }
}

impl fmt::Display for LoadErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for LoadErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Why a parser source could not be loaded (or a run could not be started). Serialises as
/// `{ code, message, line, column }`, with `line` and `column` numbers or `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadError {
    /// The stable reason.
    pub code: LoadErrorCode,
    /// Human-readable explanation.
    pub message: String,
    /// 1-based line in the original source, where relevant.
    pub line: Option<u32>,
    /// 1-based column in the original source, where relevant.
    pub column: Option<u32>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// An error without a source position.
    pub(crate) fn new(code: LoadErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_alphabetical_and_round_trip_through_serde() {
        let names: Vec<&str> = LoadErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        let mut ordered = LoadErrorCode::ALL;
        ordered.sort_unstable();
        assert_eq!(ordered, LoadErrorCode::ALL);
        for code in LoadErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{code}\""));
            assert_eq!(serde_json::from_str::<LoadErrorCode>(&json).unwrap(), code);
            assert_eq!(code, code.as_str());
        }
    }

    #[test]
    fn a_load_error_serialises_with_null_positions() {
        let e = LoadError::new(LoadErrorCode::TooLarge, "big");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({ "code": "too_large", "message": "big", "line": null, "column": null })
        );
        let e = LoadError {
            line: Some(3),
            column: Some(9),
            ..LoadError::new(LoadErrorCode::SyntaxError, "syntax error")
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({ "code": "syntax_error", "message": "syntax error", "line": 3, "column": 9 })
        );
    }
}
