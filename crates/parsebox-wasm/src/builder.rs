//! `TranscriptBuilderCore`: the incremental transcript builder over one run of the host core.

use std::rc::Rc;

use parsebox_host::RunId;
use parsebox_transcript::{
    generic_entry, Chunk, FailedLineEntry, LineAnswer, LineFailure, LineParser, Stream,
    TranscriptBuilder, TranscriptEntry, TranscriptOptions,
};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::entry::Core;
use crate::host_core::HostCore;
use crate::{into_error, to_json};

/// A host run as the builder's line parser: a line a Worker answers later is shown with the
/// generic entry and replaced in place by [`TranscriptBuilderCore::apply_late`].
struct HostLine {
    core: Rc<Core>,
    run: RunId,
}

impl LineParser for HostLine {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        match self.answer_line(line, ts) {
            LineAnswer::Now(answer) => answer,
            LineAnswer::Later { provisional, .. } => Ok(provisional),
        }
    }

    fn answer_line(&mut self, line: &str, ts: &str) -> LineAnswer {
        // Refused (re-entered from a built-in) or gone (disposed): the generic entry.
        let answer = self
            .core
            .enter()
            .ok()
            .and_then(|mut s| s.parse_line(self.run, line, ts).ok());
        match answer {
            Some((provisional, Some(token))) => LineAnswer::Later { token, provisional },
            Some((entries, None)) => LineAnswer::Now(Ok(entries)),
            None => LineAnswer::Now(Ok(vec![generic_entry(line, ts)])),
        }
    }

    fn reset(&mut self) {
        if let Ok(mut s) = self.core.enter() {
            let _ = s.host.reset_run(self.run);
            s.pump();
        }
    }
}

impl Drop for HostLine {
    fn drop(&mut self) {
        if let Ok(mut s) = self.core.enter() {
            let _ = s.host.drop_run(self.run);
            s.builder_runs.remove(&self.run);
            s.builder_late.remove(&self.run);
            s.pump();
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BuilderOptions {
    redact_home_paths: Option<bool>,
    /// What a line whose parser failed shows; Paperclip's parse-error entry unless given.
    failed_line_entry: Option<FailedLineEntry>,
}

/// One transcript of one adapter type, built chunk by chunk.
#[wasm_bindgen]
pub struct TranscriptBuilderCore {
    inner: TranscriptBuilder<HostLine>,
}

#[wasm_bindgen]
impl TranscriptBuilderCore {
    /// A builder with its own run of `adapter_type` in `host`.
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options or wrong types; `ParseboxDisposedError`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: &HostCore,
        adapter_type: &str,
        options_json: &str,
    ) -> Result<TranscriptBuilderCore, JsValue> {
        let options: BuilderOptions = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid TranscriptBuilder options: {e}"),
            )
        })?;
        let run = {
            let mut s = host.core.enter()?;
            let style = options
                .failed_line_entry
                .unwrap_or(FailedLineEntry::ParseError);
            let run = s
                .host
                .create_run_showing(adapter_type, style)
                .map_err(|_| {
                    into_error(
                        "ParseboxDisposedError",
                        "ParserRegistry used after dispose()",
                    )
                })?;
            s.builder_runs.insert(run);
            s.pump();
            run
        };
        let parser = HostLine {
            core: Rc::clone(&host.core),
            run,
        };
        let options = TranscriptOptions {
            redact_home_paths: options.redact_home_paths.unwrap_or(false),
            retain_chunks: true,
            track_lines: true,
            // Unused: the host core settles every line (with the run's style) before the
            // builder sees it, so no line reaches the builder as a failure.
            failed_line_entry: FailedLineEntry::Generic,
        };
        Ok(Self {
            inner: TranscriptBuilder::new(parser, options),
        })
    }

    /// The run's id in the host core (late answers name it).
    pub fn run(&self) -> f64 {
        self.inner.parser().run.0 as f64
    }

    /// Appends a chunk (`{ts, stream, chunk, seq?}` as JSON); returns
    /// `{"from":n,"length":n,"entries":[…]}`: the entries from `from` on changed.
    ///
    /// # Errors
    /// `ParseboxChunkError` for a malformed chunk.
    pub fn push(&mut self, chunk_json: &str) -> Result<String, JsValue> {
        let chunk: Chunk = serde_json::from_str(chunk_json).map_err(|e| {
            into_error(
                "ParseboxChunkError",
                format!("invalid chunk: {e} (expected {{ts, stream: \"stdout\"|\"stderr\"|\"system\", chunk}})"),
            )
        })?;
        let range = self.inner.push(&chunk);
        self.changed(range)
    }

    /// Appends a chunk whose text is not well-formed UTF-16 (it holds half a surrogate pair),
    /// given as its code units: a pair split between two stdout chunks is joined, a lone half
    /// becomes U+FFFD, the chunk is never refused. Same result shape as `push`.
    ///
    /// # Errors
    /// `ParseboxChunkError` for a stream that is not `stdout`, `stderr` or `system`.
    #[wasm_bindgen(js_name = pushUtf16)]
    pub fn push_utf16(
        &mut self,
        ts: &str,
        stream: &str,
        units: &[u16],
        seq: Option<f64>,
    ) -> Result<String, JsValue> {
        let stream: Stream = serde_json::from_value(serde_json::Value::from(stream))
            .map_err(|e| into_error("ParseboxChunkError", format!("invalid chunk stream: {e}")))?;
        let seq = seq.filter(|s| s.is_finite() && *s >= 0.0).map(|s| s as u64);
        let range = self.inner.push_utf16(ts, stream, units, seq);
        self.changed(range)
    }

    /// Flushes the pending partial line; same result shape as `push`.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let range = self.inner.finish();
        self.changed(range)
    }

    /// Re-parses every chunk from scratch (after the adapter's parser changed).
    pub fn rebuild(&mut self) -> Result<String, JsValue> {
        self.inner.rebuild();
        self.changed(0..self.inner.entries().len())
    }

    /// Folds in the late answers the core holds for this builder's run (one fold for all of
    /// them); same result shape as `push`.
    #[wasm_bindgen(js_name = applyLate)]
    pub fn apply_late(&mut self) -> Result<String, JsValue> {
        let answers = {
            let run = self.inner.parser().run;
            let mut s = self.inner.parser().core.enter()?;
            s.builder_late.remove(&run).unwrap_or_default()
        };
        let range = self.inner.replace_answers(answers);
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
