//! Trusted first-party parsers given as host JS functions (`registerBuiltin`).

use std::rc::Rc;

use parsebox_registry::run::RunParser;
use parsebox_registry::BuiltinFactory;
use parsebox_transcript::{FailureCode, LineFailure, LineOutcome};
use wasm_bindgen::prelude::*;

/// One run of a built-in: either a `createStdoutParser()` instance or the stateless function.
struct JsRun {
    this: JsValue,
    parse_line: js_sys::Function,
    reset: Option<js_sys::Function>,
}

impl RunParser for JsRun {
    fn parse(&mut self, line: &str, ts: &str) -> LineOutcome {
        let out = self
            .parse_line
            .call2(&self.this, &JsValue::from_str(line), &JsValue::from_str(ts))
            .map_err(|e| LineFailure::new(FailureCode::Threw, describe(&e)))?;
        if out.is_undefined() {
            return Ok(serde_json::Value::Null);
        }
        serde_wasm_bindgen::from_value(out)
            .map_err(|e| LineFailure::new(FailureCode::BadReturn, e.to_string()))
    }

    fn reset(&mut self) -> Result<(), LineFailure> {
        if let Some(reset) = &self.reset {
            reset
                .call0(&self.this)
                .map_err(|e| LineFailure::new(FailureCode::Threw, describe(&e)))?;
        }
        Ok(())
    }
}

fn describe(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.to_string()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the built-in parser threw".to_owned())
}

/// A factory for built-in runs. `createStdoutParser` wins when both are given.
///
/// # Errors
/// A message when neither function is given.
pub(crate) fn js_builtin(
    parse_stdout_line: Option<js_sys::Function>,
    create_stdout_parser: Option<js_sys::Function>,
) -> Result<BuiltinFactory, String> {
    match (create_stdout_parser, parse_stdout_line) {
        (Some(create), _) => Ok(Rc::new(move || -> Box<dyn RunParser> {
            let instance = create.call0(&JsValue::NULL).unwrap_or(JsValue::NULL);
            let get = |name: &str| {
                js_sys::Reflect::get(&instance, &JsValue::from_str(name))
                    .ok()
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            };
            match get("parseLine") {
                Some(parse_line) => Box::new(JsRun {
                    reset: get("reset"),
                    this: instance.clone(),
                    parse_line,
                }),
                None => Box::new(Broken(
                    "createStdoutParser() returned no parseLine function",
                )),
            }
        })),
        (None, Some(parse)) => Ok(Rc::new(move || -> Box<dyn RunParser> {
            Box::new(JsRun {
                this: JsValue::NULL,
                parse_line: parse.clone(),
                reset: None,
            })
        })),
        (None, None) => {
            Err("registerBuiltin needs parseStdoutLine or createStdoutParser".to_owned())
        }
    }
}

/// A run whose parser could not be made: every line falls back, with the reason.
struct Broken(&'static str);

impl RunParser for Broken {
    fn parse(&mut self, _line: &str, _ts: &str) -> LineOutcome {
        Err(LineFailure::new(FailureCode::BadReturn, self.0))
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        Ok(())
    }
}
