//! Counters a viewer shows so people can see what a parser did.

use std::collections::BTreeMap;

use serde::Serialize;

/// Counters for one adapter type (or, summed, for the whole registry).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "RegistryDiagnostics"))]
pub struct Diagnostics {
    /// Lines answered (by any parser, fallbacks included).
    pub lines_parsed: u64,
    /// Lines answered by the adapter's own parser.
    pub lines_by_parser: u64,
    /// Lines that fell back to the generic parser, by reason (`threw`, `budget_exceeded`,
    /// `bad_return`, `all_entries_invalid`, `engine_fault`, …).
    #[cfg_attr(feature = "ts", ts(type = "Partial<Record<FailureCode, number>>"))]
    pub fallbacks: BTreeMap<String, u64>,
    /// Entries dropped by validation, by reason (`unknown_kind`, `missing_field`, …).
    pub dropped_entries: BTreeMap<String, u64>,
    /// Entries delivered.
    pub entries: u64,
    /// Time the last successful load took (compile, trial evaluation), in milliseconds.
    pub load_ms: Option<f64>,
    /// The last failure, load or line, as a sentence.
    pub last_error: Option<String>,
    /// Runs created (`createStdoutParser()` calls, transcript builders, the default run).
    pub runs_created: u64,
}

impl Diagnostics {
    pub(crate) fn fallback(&mut self, code: parsebox_transcript::FailureCode, message: &str) {
        *self.fallbacks.entry(code.as_str().to_owned()).or_default() += 1;
        self.last_error = Some(message.to_owned());
    }

    /// Adds another type's counters into these (for a registry-wide total).
    pub fn add(&mut self, other: &Diagnostics) {
        self.lines_parsed += other.lines_parsed;
        self.lines_by_parser += other.lines_by_parser;
        self.entries += other.entries;
        self.runs_created += other.runs_created;
        for (k, v) in &other.fallbacks {
            *self.fallbacks.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.dropped_entries {
            *self.dropped_entries.entry(k.clone()).or_default() += v;
        }
        if other.last_error.is_some() {
            self.last_error.clone_from(&other.last_error);
        }
    }
}
