//! Trusted first-party parsers given as host JS functions (`registerBuiltin`): an engine that
//! calls them directly, through the same op loop as every engine
//! ([`parsebox_host::EngineRuns`]).

use parsebox_host::{InstanceFactory, ParserInstance};
use parsebox_live::Builtin;
use parsebox_transcript::{FailureCode, LineFailure, LineOutcome};
use wasm_bindgen::prelude::*;

use crate::boundary::{describe, error_text};

/// A built-in's functions. `createStdoutParser` wins when both are given.
#[derive(Clone)]
pub(crate) struct BuiltinParser {
    parse_stdout_line: Option<js_sys::Function>,
    create_stdout_parser: Option<js_sys::Function>,
}

impl BuiltinParser {
    /// The functions, when at least one is given.
    ///
    /// # Errors
    /// A sentence when neither is.
    pub(crate) fn new(
        parse_stdout_line: Option<js_sys::Function>,
        create_stdout_parser: Option<js_sys::Function>,
    ) -> Result<Self, String> {
        if parse_stdout_line.is_none() && create_stdout_parser.is_none() {
            return Err("registerBuiltin needs parseStdoutLine or createStdoutParser".to_owned());
        }
        Ok(Self {
            parse_stdout_line,
            create_stdout_parser,
        })
    }
}

impl Builtin for BuiltinParser {
    fn entry_point(&self) -> &'static str {
        if self.create_stdout_parser.is_some() {
            "createStdoutParser"
        } else {
            "parseStdoutLine"
        }
    }
}

/// One run of a built-in: a `createStdoutParser()` instance or the stateless function.
pub(crate) struct BuiltinRun {
    this: JsValue,
    parse_line: js_sys::Function,
    reset: Option<js_sys::Function>,
}

impl InstanceFactory for BuiltinParser {
    type Instance = BuiltinRun;

    fn new_instance(&mut self, stateless: bool) -> Result<BuiltinRun, LineFailure> {
        // A type's default run calls the stateless function when there is one, as Paperclip's
        // adapter.parseStdoutLine does; other runs get a createStdoutParser() instance.
        let create = if stateless && self.parse_stdout_line.is_some() {
            None
        } else {
            self.create_stdout_parser.as_ref()
        };
        let Some(create) = create else {
            return match &self.parse_stdout_line {
                Some(parse) => Ok(BuiltinRun {
                    this: JsValue::NULL,
                    parse_line: parse.clone(),
                    reset: None,
                }),
                None => Err(LineFailure::new(
                    FailureCode::BadReturn,
                    "the built-in has no parser function",
                )),
            };
        };
        let instance = create.call0(&JsValue::NULL).map_err(|e| threw(&e))?;
        let get = |name: &str| {
            js_sys::Reflect::get(&instance, &JsValue::from_str(name))
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        };
        let parse_line = get("parseLine").ok_or_else(|| {
            LineFailure::new(
                FailureCode::BadReturn,
                "createStdoutParser() returned no parseLine function",
            )
        })?;
        Ok(BuiltinRun {
            reset: get("reset"),
            this: instance,
            parse_line,
        })
    }
}

impl ParserInstance for BuiltinRun {
    type Value = serde_json::Value;
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome {
        let out = self
            .parse_line
            .call2(&self.this, &JsValue::from_str(line), &JsValue::from_str(ts))
            .map_err(|e| threw(&e))?;
        plain_json(&out)
    }

    fn reset(&mut self) -> Result<(), LineFailure> {
        if let Some(reset) = &self.reset {
            reset.call0(&self.this).map_err(|e| threw(&e))?;
        }
        Ok(())
    }
}

/// A built-in's return value as `JSON.parse(JSON.stringify(value))` gives it: the rule a
/// sandboxed parser's value follows (`parsebox_sandbox`'s conversion), here by the page's own
/// `JSON.stringify`. The walk over the value (getters, Proxies, `toJSON`) runs in JS, which
/// refuses a cycle or a nesting too deep for its stack with an exception caught here, so
/// nothing the value does can unwind through the core or exhaust its stack; the text is read
/// under serde_json's nesting limit (128). `undefined` (or a function) is no entries.
fn plain_json(value: &JsValue) -> LineOutcome {
    let bad = |why: String| {
        LineFailure::new(
            FailureCode::BadReturn,
            format!("the parser returned a value that is not plain JSON: {why}"),
        )
    };
    let text = js_sys::JSON::stringify(value).map_err(|e| bad(describe(&e)))?;
    match text.as_string() {
        Some(text) => serde_json::from_str(&text).map_err(|e| bad(e.to_string())),
        None => Ok(serde_json::Value::Null),
    }
}

/// A built-in's exception as a `threw` failure: described for diagnostics, and worded as
/// Paperclip's transcript words it (an `Error`'s message, a non-empty string, else the value as
/// JSON; nothing for `undefined`). Built-ins are trusted page code, so `JSON.stringify` may run.
fn threw(e: &JsValue) -> LineFailure {
    let message = e
        .dyn_ref::<js_sys::Error>()
        .and_then(|_| error_text(e, "message"))
        .filter(|m| !m.is_empty());
    let thrown = message
        .or_else(|| e.as_string().filter(|s| !s.is_empty()))
        .or_else(|| js_sys::JSON::stringify(e).ok().and_then(|s| s.as_string()));
    LineFailure::threw(describe(e), thrown)
}
