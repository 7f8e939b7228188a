//! What a page's loader answered for a [`Command::Load`](crate::Command::Load), and what it
//! means ([`LoadResult::from_loaded`]): the source text, `{ source, contractVersion? }`, or
//! `null`/`undefined` for "this type has no parser"; anything else fails the type with a
//! sentence saying what came back. The binding only says what the value is ([`Loaded`]).

use crate::LoadResult;

/// A loader's answer as the binding reads it: no JavaScript value crosses into the core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// `null` or `undefined`.
    Nothing,
    /// A string: the source text.
    Text(String),
    /// An object, with its `source` and `contractVersion` fields.
    Object {
        /// Its `source` field.
        source: Field,
        /// Its `contractVersion` field.
        contract_version: Field,
    },
    /// Any other value, named by `typeof`.
    Other(String),
}

/// A field of the object a loader answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// A string.
    Text(String),
    /// `null` or `undefined` (or not there).
    Nothing {
        /// `"null"` or `"undefined"`, as a message says it.
        shown: &'static str,
    },
    /// Any other value, named by `typeof`.
    Other(String),
}

impl Field {
    /// What the field is, as a message says it.
    fn kind(&self) -> &str {
        match self {
            Self::Text(_) => "string",
            Self::Nothing { shown } => shown,
            Self::Other(kind) => kind,
        }
    }
}

impl LoadResult {
    /// What `loaded`, the loader's answer for `adapter_type`, means.
    pub fn from_loaded(adapter_type: &str, loaded: Loaded) -> Self {
        let expected = "expected source text, { source, contractVersion? } or null";
        match loaded {
            Loaded::Nothing => Self::NoParser,
            Loaded::Text(source) => Self::Source {
                source,
                contract_version: None,
            },
            Loaded::Object {
                source: Field::Text(source),
                contract_version,
            } => match contract_version {
                Field::Text(version) => Self::Source {
                    source,
                    contract_version: Some(version),
                },
                Field::Nothing { .. } => Self::Source {
                    source,
                    contract_version: None,
                },
                Field::Other(_) => Self::Failed(format!(
                    "loadSource({adapter_type:?}) returned a contractVersion that is {}, expected a string such as \"1.0.0\"",
                    contract_version.kind()
                )),
            },
            Loaded::Object { source, .. } => Self::Failed(format!(
                "loadSource({adapter_type:?}) returned an object whose source is {}, {expected}",
                source.kind()
            )),
            Loaded::Other(kind) => Self::Failed(format!(
                "loadSource({adapter_type:?}) returned {kind}, {expected}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Field, Loaded};
    use crate::LoadResult;

    fn source(text: &str, version: Option<&str>) -> LoadResult {
        LoadResult::Source {
            source: text.to_owned(),
            contract_version: version.map(str::to_owned),
        }
    }

    #[test]
    fn what_a_loaders_answer_means() {
        let text = |s: &str| Field::Text(s.to_owned());
        let undefined = Field::Nothing { shown: "undefined" };
        let null = Field::Nothing { shown: "null" };
        let failed = |m: &str| LoadResult::Failed(format!("loadSource(\"t\") returned {m}"));
        let table = [
            (Loaded::Nothing, LoadResult::NoParser),
            (Loaded::Text("src".into()), source("src", None)),
            (
                Loaded::Object {
                    source: text("src"),
                    contract_version: text("1.0.0"),
                },
                source("src", Some("1.0.0")),
            ),
            (
                Loaded::Object {
                    source: text("src"),
                    contract_version: undefined.clone(),
                },
                source("src", None),
            ),
            (
                Loaded::Object {
                    source: text("src"),
                    contract_version: null.clone(),
                },
                source("src", None),
            ),
            (
                Loaded::Object {
                    source: text("src"),
                    contract_version: Field::Other("number".into()),
                },
                failed("a contractVersion that is number, expected a string such as \"1.0.0\""),
            ),
            (
                Loaded::Object {
                    source: undefined,
                    contract_version: text("1.0.0"),
                },
                failed("an object whose source is undefined, expected source text, { source, contractVersion? } or null"),
            ),
            (
                Loaded::Object {
                    source: null,
                    contract_version: Field::Nothing { shown: "undefined" },
                },
                failed("an object whose source is null, expected source text, { source, contractVersion? } or null"),
            ),
            (
                Loaded::Other("number".into()),
                failed("number, expected source text, { source, contractVersion? } or null"),
            ),
        ];
        for (loaded, result) in table {
            assert_eq!(
                LoadResult::from_loaded("t", loaded.clone()),
                result,
                "{loaded:?}"
            );
        }
    }
}
