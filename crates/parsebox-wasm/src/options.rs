//! The registry's options as the JS side passes them, onto the host core's options.

use parsebox_host::{HostOptions, HostPlacement};
use serde::Deserialize;

/// A rebuild's slice on the page's thread where there are frames, in milliseconds: half of
/// a 60 Hz frame, so the page still draws in the same frame.
const DEFAULT_REBUILD_SLICE_MS: f64 = 8.0;

/// `ParserRegistry` options ([`crate::option_kinds`] checked their keys and kinds; serde
/// checks them again, since nothing from JS is trusted to be well-formed). Ranges are the
/// host core's to check.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RegistryOptions {
    line_budget_ms: Option<f64>,
    hard_deadline_ms: Option<f64>,
    call_budget_ms: Option<f64>,
    rebuild_slice_ms: Option<f64>,
    init_budget_ms: Option<f64>,
    max_source_bytes: Option<usize>,
    max_line_bytes: Option<usize>,
    max_entries_per_line: Option<usize>,
    max_string_bytes: Option<usize>,
    max_memory_bytes: Option<f64>,
    max_transcript_bytes_total: Option<usize>,
    max_live_engines: Option<usize>,
    max_workers: Option<usize>,
    dropped_preview_chars: Option<usize>,
    host: Option<HostPlacement>,
    load_sources: Option<bool>,
    /// Set by the package: whether this environment has Web Workers.
    workers_available: Option<bool>,
    /// Set by the package: the machine's logical cores (`navigator.hardwareConcurrency`),
    /// where known.
    hardware_concurrency: Option<f64>,
    /// Set by the package: whether the engine module is compiled yet (absent: it is).
    pub(crate) engine_ready: Option<bool>,
}

impl RegistryOptions {
    /// `hardwareConcurrency` as a count of cores, when it is one (a page may see any value).
    fn cores(&self) -> Option<u32> {
        self.hardware_concurrency
            .filter(|n| n.is_finite() && *n >= 1.0)
            .map(|n| n.min(f64::from(u32::MAX)) as u32)
    }

    /// The host options: defaults, with every given option laid over them. The hard deadline
    /// defaults by [`HostOptions::hard_deadline_for`] the line budget.
    ///
    /// # Errors
    /// A sentence when `maxMemoryBytes` is not a whole number of bytes.
    pub(crate) fn into_host_options(self) -> Result<HostOptions, String> {
        let mut o = HostOptions::default();
        if let Some(v) = self.line_budget_ms {
            o.line_budget_ms = v;
        }
        o.hard_deadline_ms = self
            .hard_deadline_ms
            .unwrap_or_else(|| HostOptions::hard_deadline_for(o.line_budget_ms));
        if let Some(v) = self.call_budget_ms {
            o.call_budget_ms = v;
        }
        if let Some(v) = self.init_budget_ms {
            o.init_budget_ms = v;
        }
        if let Some(v) = self.max_source_bytes {
            o.max_source_bytes = v;
        }
        if let Some(v) = self.max_line_bytes {
            o.max_line_bytes = v;
        }
        if let Some(v) = self.max_entries_per_line {
            o.entry_limits.max_entries_per_line = v;
        }
        if let Some(v) = self.max_string_bytes {
            o.entry_limits.max_string_bytes = v;
        }
        if let Some(v) = self.max_memory_bytes {
            // The range is the host's to check; a number that is no byte count is refused here.
            if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(53)) {
                return Err(format!(
                    "option \"maxMemoryBytes\" must be a whole number of bytes, got {}",
                    parsebox_host::shown_number(v)
                ));
            }
            o.max_memory_bytes = v as u64;
        }
        if let Some(v) = self.max_transcript_bytes_total {
            o.max_transcript_bytes = v;
        }
        if let Some(v) = self.max_live_engines {
            o.max_live_engines = v;
        }
        o.max_workers = self
            .max_workers
            .unwrap_or_else(|| HostOptions::default_max_workers(self.cores()));
        if let Some(v) = self.dropped_preview_chars {
            o.dropped_preview_chars = v;
        }
        let workers = self.workers_available.unwrap_or(false);
        // Where there are Workers there are frames: a rebuild goes in slices of a few ms.
        o.rebuild_slice_ms = self
            .rebuild_slice_ms
            .or(workers.then_some(DEFAULT_REBUILD_SLICE_MS));
        o.host = HostPlacement::choose(self.host, workers).map_err(|e| e.to_string())?;
        o.load_sources = self.load_sources.unwrap_or(true);
        Ok(o)
    }
}

/// The defaults of the limits a command line reads itself, as JSON (`registryDefaults`): the
/// host core's.
pub(crate) fn defaults_json() -> String {
    let o = HostOptions::default();
    serde_json::json!({
        "lineBudgetMs": o.line_budget_ms,
        "initBudgetMs": o.init_budget_ms,
        "maxSourceBytes": o.max_source_bytes,
        "maxLineBytes": o.max_line_bytes,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn the_command_line_s_defaults_are_the_core_s() {
        let d: serde_json::Value = serde_json::from_str(&defaults_json()).unwrap();
        let o = HostOptions::default();
        assert_eq!(d["lineBudgetMs"], o.line_budget_ms);
        assert_eq!(d["initBudgetMs"], o.init_budget_ms);
        assert_eq!(d["maxSourceBytes"], o.max_source_bytes);
        assert_eq!(d["maxLineBytes"], o.max_line_bytes);
        // And a registry given them decides as one given nothing.
        let given: RegistryOptions = serde_json::from_value(d).unwrap();
        let given = given.into_host_options().unwrap();
        let none = RegistryOptions::default().into_host_options().unwrap();
        assert_eq!(
            (
                given.line_budget_ms,
                given.hard_deadline_ms,
                given.max_source_bytes
            ),
            (
                none.line_budget_ms,
                none.hard_deadline_ms,
                none.max_source_bytes
            )
        );
    }

    #[test]
    fn max_workers_defaults_from_the_cores_the_page_reports() {
        let workers = |json: serde_json::Value| {
            let given: RegistryOptions = serde_json::from_value(json).unwrap();
            given.into_host_options().unwrap().max_workers
        };
        assert_eq!(workers(serde_json::json!({})), 1);
        assert_eq!(workers(serde_json::json!({ "hardwareConcurrency": 2 })), 2);
        assert_eq!(
            workers(serde_json::json!({ "hardwareConcurrency": 1e300 })),
            4
        );
        assert_eq!(workers(serde_json::json!({ "hardwareConcurrency": -3 })), 1);
        assert_eq!(
            workers(serde_json::json!({ "hardwareConcurrency": 16, "maxWorkers": 7 })),
            7
        );
    }
}
