//! Which checks a report shows, in which order, and which of them feed lines.

use crate::native::report::Check;

/// Report order, whatever order the checks were computed in.
const ORDER: [&str; 12] = [
    "size",
    "imports",
    "load",
    "encoding",
    "contract_version",
    "exports_entry",
    "sample_log",
    "awkward_lines",
    "entries",
    "determinism",
    "reset_replay",
    "unstoppable",
];

/// `checks` in report order.
pub(super) fn ordered(mut checks: Vec<Check>) -> Vec<Check> {
    checks.sort_by_key(|c| {
        ORDER
            .iter()
            .position(|id| *id == c.id)
            .unwrap_or(ORDER.len())
    });
    checks
}

/// The checks that feed lines, with their titles.
pub(super) const BEHAVIOUR_CHECKS: [(&str, &str); 5] = [
    ("sample_log", "sample log"),
    ("awkward_lines", "awkward lines"),
    ("entries", "entries"),
    ("determinism", "determinism"),
    ("reset_replay", "reset + replay"),
];
