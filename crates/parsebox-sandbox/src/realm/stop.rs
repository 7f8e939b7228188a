//! How a budgeted evaluation ended when it returned no value, and how a thrown value is
//! worded (bounded by the entry limits' string size: a parser controls this text); why a realm
//! could not be made.

use boa_engine::error::EngineError;
use boa_engine::object::JsObject;
use boa_engine::property::PropertyKey;
use boa_engine::value::JsVariant;
use boa_engine::{Context, JsError, JsString, JsValue};
use parsebox_transcript::cut_text;

use crate::clock::Deadline;
use crate::convert::{Caps, Walk};

/// How a budgeted evaluation ended when it did not return a value.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The guest threw (a catchable error): the realm is still clean. `message` describes the
    /// thrown value for diagnostics (`TypeError: x is not a function`); `thrown` words it as
    /// Paperclip's transcript does ([`thrown_text`]).
    Threw {
        message: String,
        thrown: Option<String>,
    },
    /// The call ran its budget of work (the engine's own count, the same on every machine):
    /// the evaluation was dropped mid-flight.
    Work,
    /// The wall-clock backstop passed (one long native step, or a stalled machine): the
    /// evaluation was dropped mid-flight. Not the parser's fault until it happens again when
    /// the line runs alone on a fresh realm.
    Clock,
    /// The heap grew more than allowed.
    Memory(usize),
    /// boa's loop-iteration, recursion or stack-size limit.
    Limit(String),
    /// The engine panicked or failed internally.
    Fault(String),
}

impl Stop {
    /// Whether boa's VM stack may hold abandoned frames: the realm must be rebuilt.
    pub(crate) fn dirties(&self) -> bool {
        !matches!(self, Stop::Threw { .. })
    }
}

/// Why a realm could not be created.
#[derive(Debug)]
pub(crate) enum InitError {
    /// The module or the factory threw, ran over budget, …
    Stopped(Stop),
    /// No usable export (`no_export`) or a factory result without `parseLine` (`bad_factory`).
    Exports(&'static str),
    /// The engine could not set up the realm (a bug).
    Setup(String),
}

/// A property key from a static name.
pub(super) fn key(s: &'static str) -> PropertyKey {
    PropertyKey::from(JsString::from(s))
}

/// At most `max_bytes` of a guest string as Rust text, cut and marked beyond that
/// ([`cut_text`]): only a prefix is converted, so a thrown 4M-character text costs nothing.
fn bounded_text(s: &JsString, max_bytes: usize) -> String {
    let len = s.len();
    // One UTF-16 unit is at least one UTF-8 byte: one unit more than fits shows it was cut.
    let take = len.min(max_bytes.saturating_add(1));
    let text = if take == len {
        s.to_std_string_lossy()
    } else {
        let units: Vec<u16> = s.iter().take(take).collect();
        String::from_utf16_lossy(&units)
    };
    cut_text(&text, max_bytes).into_owned()
}

/// A BigInt as decimal text, within `max_bytes`: one too large for a double (over 308
/// digits) is not converted at all (its decimal text is the costly part).
fn bigint_text(b: &boa_engine::JsBigInt, max_bytes: usize) -> String {
    if b.to_f64().is_finite() {
        cut_text(&b.to_string(), max_bytes).into_owned()
    } else {
        cut_text("a BigInt of more than 308 digits", max_bytes).into_owned()
    }
}

/// A string data property of `o` or its first prototypes, read without running guest code (an
/// accessor, or anything not a string, reads as `None`), at most `max_bytes` of it.
fn data_string(o: &JsObject, k: &'static str, max_bytes: usize) -> Option<String> {
    let mut p = Some(o.clone());
    for _ in 0..8 {
        let obj = p?;
        if let Some(d) = obj.borrow().properties().get(&key(k)) {
            return d
                .value()
                .and_then(JsValue::as_string)
                .map(|s| bounded_text(&s, max_bytes));
        }
        p = obj.prototype();
    }
    None
}

/// A short description of a thrown value, read without running guest code, within
/// `max_bytes`.
fn describe(err: &JsError, max_bytes: usize) -> String {
    if let Some(native) = err.as_native() {
        return cut_text(&native.to_string(), max_bytes).into_owned();
    }
    let Some(v) = err.as_opaque() else {
        return "engine error".to_owned();
    };
    let text = match v.variant() {
        JsVariant::Object(o) => {
            let read = |k: &'static str| data_string(&o, k, max_bytes);
            match (read("name"), read("message")) {
                (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
                (Some(n), _) => n,
                (None, Some(m)) => m,
                (None, None) => "a non-Error object".to_owned(),
            }
        }
        JsVariant::String(s) => return bounded_text(&s, max_bytes),
        JsVariant::BigInt(b) => return bigint_text(&b, max_bytes),
        JsVariant::Symbol(sym) => {
            let description = sym
                .description()
                .map(|d| bounded_text(&d, max_bytes))
                .unwrap_or_default();
            format!("Symbol({description})")
        }
        _ => v.display().to_string(),
    };
    cut_text(&text, max_bytes).into_owned()
}

pub(super) fn classify(
    err: &JsError,
    ctx: &mut Context,
    deadline: Deadline,
    max_bytes: usize,
) -> Stop {
    match err.as_engine() {
        Some(EngineError::RuntimeLimit(l)) => Stop::Limit(l.to_string()),
        Some(other) => Stop::Fault(other.to_string()),
        None => Stop::Threw {
            message: describe(err, max_bytes),
            thrown: thrown_text(err, ctx, deadline, max_bytes),
        },
    }
}

/// What was thrown, as Paperclip's transcript words it: an `Error`'s message when it has one,
/// a thrown string when it is not empty, else the value as JSON (`42`, `{"code":1}`, `{}` for
/// an `Error("")`); `None` when that is nothing (`undefined`, a function, a symbol). Read
/// natively, running no guest code: a value whose JSON would need guest code (a getter,
/// `toJSON`, a Proxy) is worded by [`describe`] instead. At most `max_bytes` (the entry
/// limits' string bound), cut and marked beyond: a parser controls this text.
fn thrown_text(
    err: &JsError,
    ctx: &mut Context,
    deadline: Deadline,
    max_bytes: usize,
) -> Option<String> {
    if let Some(native) = err.as_native() {
        let message = native.message();
        return Some(if message.is_empty() {
            "{}".to_owned()
        } else {
            cut_text(message, max_bytes).into_owned()
        });
    }
    let v = err.as_opaque()?;
    match v.variant() {
        JsVariant::Undefined | JsVariant::Symbol(_) => None,
        JsVariant::String(s) if s.is_empty() => Some("\"\"".to_owned()),
        JsVariant::String(s) => Some(bounded_text(&s, max_bytes)),
        JsVariant::BigInt(b) => Some(bigint_text(&b, max_bytes)),
        JsVariant::Object(o) if o.is_callable() => None,
        JsVariant::Object(o) if o.is::<boa_engine::builtins::error::Error>() => {
            let message = data_string(&o, "message", max_bytes).filter(|m| !m.is_empty());
            Some(message.unwrap_or_else(|| "{}".to_owned()))
        }
        _ => {
            let caps = Caps {
                max_depth: 16,
                max_values: 1_000,
                max_string_bytes: max_bytes.min(64 << 10),
                deadline,
            };
            match Walk::new(ctx, caps, crate::convert::JsonSink::default()).convert(v) {
                Ok(json) => Some(cut_text(&json, max_bytes).into_owned()),
                Err(_) => Some(describe(err, max_bytes)),
            }
        }
    }
}
