//! Which export a parser is driven through.

/// Which export a parser is driven through (SPEC §3: `createStdoutParser` wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryPoint {
    /// One instance per run from the factory; `reset()` is available.
    CreateStdoutParser,
    /// The stateless function, called directly.
    ParseStdoutLine,
}

impl EntryPoint {
    /// The export's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CreateStdoutParser => "createStdoutParser",
            Self::ParseStdoutLine => "parseStdoutLine",
        }
    }
}
