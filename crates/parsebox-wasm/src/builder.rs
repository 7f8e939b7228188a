//! `TranscriptBuilderCore`: the incremental transcript builder bound to a registry run.

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_registry::{Registry, RunId};
use parsebox_transcript::{
    Chunk, LineFailure, LineOutcome, LineParser, TranscriptBuilder, TranscriptEntry,
    TranscriptOptions,
};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::registry::RegistryCore;
use crate::{into_error, to_json};

/// A registry run as the builder's line parser.
struct RegistryRun {
    registry: Rc<RefCell<Registry>>,
    run: RunId,
    /// The adapter's parser runs elsewhere (a Worker): every line is answered later.
    deferred: bool,
}

impl LineParser for RegistryRun {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        // The registry already falls back per line; a dropped run answers generically.
        Ok(self
            .registry
            .borrow_mut()
            .run_parse_line(self.run, line, ts)
            .unwrap_or_else(|_| vec![parsebox_transcript::generic_entry(line, ts)]))
    }
    fn reset(&mut self) {
        let _ = self.registry.borrow_mut().reset_run(self.run);
    }
    fn answers_later(&self) -> bool {
        self.deferred
    }
}

impl Drop for RegistryRun {
    fn drop(&mut self) {
        if let Ok(mut r) = self.registry.try_borrow_mut() {
            r.drop_run(self.run);
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BuilderOptions {
    redact_home_paths: Option<bool>,
}

/// One transcript of one adapter type, built chunk by chunk.
#[wasm_bindgen]
pub struct TranscriptBuilderCore {
    inner: TranscriptBuilder<RegistryRun>,
    adapter_type: String,
}

#[wasm_bindgen]
impl TranscriptBuilderCore {
    /// A builder with its own run of `adapter_type` in `registry`.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types.
    #[wasm_bindgen(constructor)]
    pub fn new(
        registry: &RegistryCore,
        adapter_type: &str,
        options_json: &str,
    ) -> Result<TranscriptBuilderCore, JsValue> {
        let options: BuilderOptions = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid TranscriptBuilder options: {e}"),
            )
        })?;
        let run = registry.inner.borrow_mut().create_run(adapter_type);
        let parser = RegistryRun {
            registry: Rc::clone(&registry.inner),
            run,
            deferred: false,
        };
        let options = TranscriptOptions {
            redact_home_paths: options.redact_home_paths.unwrap_or(false),
            retain_chunks: true,
            track_lines: true,
        };
        Ok(Self {
            inner: TranscriptBuilder::new(parser, options),
            adapter_type: adapter_type.to_owned(),
        })
    }

    /// Appends a chunk (`{ts, stream, chunk, seq?}` as JSON); returns `[firstChanged, end]`
    /// followed by the changed entries: `{"from":n,"entries":[…]}`.
    ///
    /// # Errors
    /// `ParseboxChunkError` for a malformed chunk.
    pub fn push(&mut self, chunk_json: &str) -> Result<String, JsValue> {
        let chunk: Chunk = serde_json::from_str(chunk_json)
            .map_err(|e| into_error("ParseboxChunkError", format!("invalid chunk: {e} (expected {{ts, stream: \"stdout\"|\"stderr\"|\"system\", chunk}})")))?;
        let range = self.inner.push(&chunk);
        self.changed(range)
    }

    /// Flushes the pending partial line; same result shape as `push`.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let range = self.inner.finish();
        self.changed(range)
    }

    /// Re-parses every chunk from scratch (after the adapter's parser became ready).
    pub fn rebuild(&mut self) -> Result<String, JsValue> {
        self.inner.rebuild();
        self.changed(0..self.inner.entries().len())
    }

    /// Answer every later line through `takeDeferred`/`replaceLine` (the adapter runs in a
    /// Worker) instead of the registry run.
    #[wasm_bindgen(js_name = setDeferred)]
    pub fn set_deferred(&mut self, deferred: bool) {
        self.inner.parser_mut().deferred = deferred;
    }

    /// Lines waiting for a late answer, as JSON `[{item, line, ts}]`.
    #[wasm_bindgen(js_name = takeDeferred)]
    pub fn take_deferred(&mut self) -> Result<String, JsValue> {
        let lines: Vec<serde_json::Value> = self
            .inner
            .take_deferred()
            .into_iter()
            .map(|d| serde_json::json!({ "item": d.item, "line": d.line, "ts": d.ts }))
            .collect();
        to_json(&lines)
    }

    /// Every stdout line parsed since the last rebuild as JSON `[[line, ts], …]`, to bring a
    /// parser moved to the worker host to this run's state.
    #[wasm_bindgen(js_name = lineHistory)]
    pub fn line_history(&self) -> Result<String, JsValue> {
        let lines: Vec<(&str, &str)> = self.inner.line_history().collect();
        to_json(&lines)
    }

    /// The builder's rebuild count: deferred items belong to one generation.
    pub fn generation(&self) -> f64 {
        self.inner.generation() as f64
    }

    /// Replaces deferred lines (of `generation`) with their answers, given as JSON
    /// `[[item, line, ts, outcome], …]` (outcomes as `runParseRaw` writes them), folding once;
    /// same result shape as `push`. Each answer goes through the registry's one line rule with
    /// its configured limits and is counted there. A stale generation changes nothing.
    ///
    /// # Errors
    /// `ParseboxError` when the answers are not in that shape.
    #[wasm_bindgen(js_name = replaceLines)]
    pub fn replace_lines(
        &mut self,
        generation: f64,
        answers_json: &str,
    ) -> Result<String, JsValue> {
        if generation as u64 != self.inner.generation() {
            let end = self.inner.entries().len();
            return self.changed(end..end);
        }
        let answers: Vec<(usize, String, String, LineOutcome)> = serde_json::from_str(answers_json)
            .map_err(|e| into_error("ParseboxError", format!("invalid late answers: {e}")))?;
        let registry = Rc::clone(&self.inner.parser().registry);
        let adapter_type = self.adapter_type.clone();
        let mut settled = Vec::with_capacity(answers.len());
        for (item, line, ts, outcome) in answers {
            let s = registry
                .borrow_mut()
                .settle(&adapter_type, &line, &ts, outcome);
            settled.push((item, s.entries));
        }
        let range = self.inner.replace_lines(settled);
        self.changed(range)
    }

    /// The whole transcript as a JSON array.
    pub fn entries(&self) -> Result<String, JsValue> {
        to_json(&self.inner.entries())
    }

    fn changed(&self, range: std::ops::Range<usize>) -> Result<String, JsValue> {
        let from = range.start;
        let entries = self.inner.entries().get(range).unwrap_or(&[]);
        to_json(
            &serde_json::json!({ "from": from, "length": self.inner.entries().len(), "entries": entries }),
        )
    }
}
