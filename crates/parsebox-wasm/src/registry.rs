//! `RegistryCore`: the registry as a JS class.

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_registry::{LoadRequest, LoadResult, Registry, RegistryOptions, RunId};
use parsebox_sandbox::SandboxOptions;
use parsebox_transcript::{EntryLimits, FailureCode, LineFailure, LineOutcome};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::builtin::js_builtin;
use crate::{into_error, to_json};

/// Registry options as the JS side passes them (already checked for types by `index.js`;
/// checked again here because nothing from JS is trusted to be well-formed).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    line_budget_ms: Option<f64>,
    /// The worker host's deadline: checked here, used by the JS side.
    hard_deadline_ms: Option<f64>,
    init_budget_ms: Option<f64>,
    max_source_bytes: Option<usize>,
    max_line_bytes: Option<usize>,
    max_entries_per_line: Option<usize>,
    max_string_bytes: Option<usize>,
    load_sources: Option<bool>,
}

impl Options {
    /// The registry options, once every value is in its range.
    fn into_registry_options(self) -> Result<RegistryOptions, String> {
        if let Some(ms) = self.hard_deadline_ms {
            parsebox_sandbox::check_budget_ms("hardDeadlineMs", ms)?;
        }
        let mut sandbox = SandboxOptions::default();
        if let Some(v) = self.line_budget_ms {
            sandbox.line_budget_ms = v;
        }
        if let Some(v) = self.init_budget_ms {
            sandbox.init_budget_ms = v;
        }
        if let Some(v) = self.max_source_bytes {
            sandbox.max_source_bytes = v;
        }
        if let Some(v) = self.max_line_bytes {
            sandbox.max_line_bytes = v;
        }
        let mut limits: EntryLimits = sandbox.entry_limits.clone();
        if let Some(v) = self.max_entries_per_line {
            limits.max_entries_per_line = v;
        }
        if let Some(v) = self.max_string_bytes {
            limits.max_string_bytes = v;
        }
        sandbox.entry_limits = limits;
        sandbox.validate()?;
        Ok(RegistryOptions {
            sandbox,
            load_sources: self.load_sources.unwrap_or(true),
        })
    }
}

/// The parser registry core. Shared with the `TranscriptBuilderCore`s made from it.
#[wasm_bindgen]
pub struct RegistryCore {
    pub(crate) inner: Rc<RefCell<Registry>>,
}

#[wasm_bindgen]
impl RegistryCore {
    /// Makes a registry from a JSON options object.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types.
    #[wasm_bindgen(constructor)]
    pub fn new(options_json: &str) -> Result<RegistryCore, JsValue> {
        let options: Options = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid ParserRegistry options: {e}"),
            )
        })?;
        let options = options
            .into_registry_options()
            .map_err(|m| into_error("ParseboxOptionsError", m))?;
        Ok(Self {
            inner: Rc::new(RefCell::new(Registry::new(options))),
        })
    }

    /// Parses a line with the type's default run; returns a JSON array of entries.
    #[wasm_bindgen(js_name = parseLine)]
    pub fn parse_line(&self, adapter_type: &str, line: &str, ts: &str) -> Result<String, JsValue> {
        let entries = self.inner.borrow_mut().parse_line(adapter_type, line, ts);
        to_json(&entries)
    }

    /// Starts a run; returns its id.
    #[wasm_bindgen(js_name = createRun)]
    pub fn create_run(&self, adapter_type: &str) -> f64 {
        self.inner.borrow_mut().create_run(adapter_type).0 as f64
    }

    /// Parses a line in a run; returns a JSON array of entries.
    ///
    /// # Errors
    /// `ParseboxRunError` when the run does not exist.
    #[wasm_bindgen(js_name = runParseLine)]
    pub fn run_parse_line(&self, run: f64, line: &str, ts: &str) -> Result<String, JsValue> {
        let entries = self
            .inner
            .borrow_mut()
            .run_parse_line(RunId(run as u64), line, ts)
            .map_err(|e| into_error("ParseboxRunError", e))?;
        to_json(&entries)
    }

    /// Resets a run (rebinding it to the type's current parser).
    ///
    /// # Errors
    /// `ParseboxRunError` when the run does not exist.
    #[wasm_bindgen(js_name = resetRun)]
    pub fn reset_run(&self, run: f64) -> Result<(), JsValue> {
        self.inner
            .borrow_mut()
            .reset_run(RunId(run as u64))
            .map_err(|e| into_error("ParseboxRunError", e))
    }

    /// Forgets a run.
    #[wasm_bindgen(js_name = dropRun)]
    pub fn drop_run(&self, run: f64) {
        self.inner.borrow_mut().drop_run(RunId(run as u64));
    }

    /// Compiles a source now; returns the status JSON.
    #[wasm_bindgen(js_name = registerSource)]
    pub fn register_source(
        &self,
        adapter_type: &str,
        source: &str,
        contract_version: Option<String>,
    ) -> Result<String, JsValue> {
        let status = self.inner.borrow_mut().register_source(
            adapter_type,
            source,
            contract_version.as_deref(),
        );
        to_json(&status)
    }

    /// Registers trusted host functions as a built-in parser; returns the status JSON.
    #[wasm_bindgen(js_name = registerBuiltin)]
    pub fn register_builtin(
        &self,
        adapter_type: &str,
        parse_stdout_line: Option<js_sys::Function>,
        create_stdout_parser: Option<js_sys::Function>,
    ) -> Result<String, JsValue> {
        let factory = js_builtin(parse_stdout_line, create_stdout_parser)
            .map_err(|m| into_error("ParseboxOptionsError", m))?;
        let status = self
            .inner
            .borrow_mut()
            .register_builtin(adapter_type, factory);
        to_json(&status)
    }

    /// Answers a load request: `kind` is `source`, `none` or `failed`.
    ///
    /// # Errors
    /// `ParseboxError` for an unknown `kind`.
    #[wasm_bindgen(js_name = completeLoad)]
    pub fn complete_load(
        &self,
        adapter_type: &str,
        token: f64,
        kind: &str,
        text: Option<String>,
        contract_version: Option<String>,
    ) -> Result<Option<String>, JsValue> {
        let result = match kind {
            "source" => LoadResult::Source {
                source: text.unwrap_or_default(),
                contract_version,
            },
            "none" => LoadResult::NoParser,
            "failed" => LoadResult::Failed(text.unwrap_or_else(|| "the loader failed".into())),
            other => {
                return Err(into_error(
                    "ParseboxError",
                    format!("unknown load result kind {other:?}"),
                ))
            }
        };
        let request = LoadRequest {
            adapter_type: adapter_type.to_owned(),
            token: token as u64,
        };
        let status = self.inner.borrow_mut().complete_load(&request, result);
        status.map(|s| to_json(&s)).transpose()
    }

    /// Clears a failure and loads again; returns the status JSON.
    pub fn reload(&self, adapter_type: &str) -> Result<String, JsValue> {
        let status = self.inner.borrow_mut().reload(adapter_type);
        to_json(&status)
    }

    /// Pending load requests as JSON `[{adapterType, token}]`.
    #[wasm_bindgen(js_name = takeLoadRequests)]
    pub fn take_load_requests(&self) -> Result<String, JsValue> {
        let requests: Vec<serde_json::Value> = self
            .inner
            .borrow_mut()
            .take_load_requests()
            .into_iter()
            .map(|r| serde_json::json!({ "adapterType": r.adapter_type, "token": r.token }))
            .collect();
        to_json(&requests)
    }

    /// Adapter types whose status changed, as a JSON array of strings.
    #[wasm_bindgen(js_name = takeChanges)]
    pub fn take_changes(&self) -> Result<String, JsValue> {
        let changes = self.inner.borrow_mut().take_changes();
        to_json(&changes)
    }

    /// Moves whenever there are changes, load requests or overruns to take.
    #[wasm_bindgen(js_name = eventCount)]
    pub fn event_count(&self) -> f64 {
        self.inner.borrow().event_count() as f64
    }

    /// Runs a line in a run and returns what the parser did before the line rule, as JSON
    /// `{"Ok": value}` or `{"Err": {"code", "message"}}` (`{"Ok": null}` from a run with no
    /// parser counts as nothing). The worker host's side: the page settles and counts it.
    ///
    /// # Errors
    /// `ParseboxRunError` when the run does not exist.
    #[wasm_bindgen(js_name = runParseRaw)]
    pub fn run_parse_raw(&self, run: f64, line: &str, ts: &str) -> Result<String, JsValue> {
        let outcome = self
            .inner
            .borrow_mut()
            .run_parse_raw(RunId(run as u64), line, ts)
            .map_err(|e| into_error("ParseboxRunError", e))?;
        let outcome: LineOutcome = match outcome {
            Some(o) => o,
            // No parser in the worker's run: the generic entry, as the page would give it.
            None => serde_json::to_value(vec![parsebox_transcript::generic_entry(line, ts)])
                .map_err(|e| LineFailure::new(FailureCode::EngineFault, e.to_string())),
        };
        to_json(&outcome)
    }

    /// Settles a line answered elsewhere (the worker host) with the one line rule and this
    /// registry's limits, counting it in `adapter_type`'s diagnostics; returns the entries JSON.
    ///
    /// # Errors
    /// `ParseboxError` when `outcome_json` is not an outcome.
    #[wasm_bindgen(js_name = settleAnswer)]
    pub fn settle_answer(
        &self,
        adapter_type: &str,
        line: &str,
        ts: &str,
        outcome_json: &str,
    ) -> Result<String, JsValue> {
        let outcome = parse_outcome(outcome_json)?;
        let settled = self
            .inner
            .borrow_mut()
            .settle(adapter_type, line, ts, outcome);
        to_json(&settled.entries)
    }

    /// Moves whenever a line fell back or an entry was dropped, whatever the adapter type.
    #[wasm_bindgen(js_name = incidentCount)]
    pub fn incident_count(&self) -> f64 {
        self.inner.borrow().incident_count() as f64
    }

    /// Adapter types that ran over budget since the last call, as a JSON array.
    #[wasm_bindgen(js_name = takeOverruns)]
    pub fn take_overruns(&self) -> Result<String, JsValue> {
        let overruns = self.inner.borrow_mut().take_overruns();
        to_json(&overruns)
    }

    /// Status JSON of a type.
    pub fn status(&self, adapter_type: &str) -> Result<String, JsValue> {
        to_json(&self.inner.borrow().status(adapter_type))
    }

    /// Diagnostics JSON of a type, or of all types.
    pub fn diagnostics(&self, adapter_type: Option<String>) -> Result<String, JsValue> {
        to_json(&self.inner.borrow().diagnostics(adapter_type.as_deref()))
    }

    /// Marks a type failed after the host saw its engine trap.
    #[wasm_bindgen(js_name = markFaulted)]
    pub fn mark_faulted(&self, adapter_type: &str, reason: &str) {
        self.inner.borrow_mut().mark_faulted(adapter_type, reason);
    }

    /// Test-only fault trigger: panics (a wasm trap) as if `adapter_type`'s engine faulted.
    #[wasm_bindgen(js_name = faultForTest)]
    pub fn fault_for_test(&self, adapter_type: &str) {
        // A deliberate engine fault, to prove the host survives one. Not reachable from guests.
        #[allow(clippy::panic)]
        {
            panic!("test-only fault trigger in the engine of {adapter_type:?}");
        }
    }
}

/// Reads a line outcome as [`RegistryCore::run_parse_raw`] writes it.
fn parse_outcome(json: &str) -> Result<LineOutcome, JsValue> {
    serde_json::from_str(json)
        .map_err(|e| into_error("ParseboxError", format!("invalid line outcome: {e}")))
}
