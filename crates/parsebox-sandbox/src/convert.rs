//! Native conversion of a guest's return value into plain data: a [`serde_json::Value`]
//! ([`ValueSink`]), or JSON text written as the walk goes ([`JsonSink`], what an engine
//! instance sends its host: no value tree is built, hashed and encoded again).
//!
//! The walk reads own data properties of ordinary objects and arrays directly from boa's property
//! storage: it never runs guest code. Whatever it cannot read that way without changing the
//! result `JSON.parse(JSON.stringify(value))` would give (a getter, a Proxy, a `toJSON` anywhere
//! on the prototype chain, a boxed primitive, a BigInt, a `Date`, …) makes it [`Conv::Bail`]; the
//! sandbox then runs the prelude's bytecode converter under the line's remaining budget and reads
//! its output (plain data by construction) with this same walk in strict mode.

use boa_engine::object::JsObject;
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::value::JsVariant;
use boa_engine::{js_string, Context, JsString, JsValue};
use serde_json::{Map, Number, Value};

use crate::text::{with_text, with_text_keeping};

/// Why the native walk stopped.
#[derive(Debug)]
pub(crate) enum Conv {
    /// Needs guest code (getter, Proxy, `toJSON`, …): use the bytecode converter.
    Bail,
    /// The value contains a cycle.
    Cycle,
    /// Over a conversion cap (depth, values or string bytes).
    TooLarge(&'static str),
    /// The line's deadline passed during the walk.
    Deadline,
}

/// Caps on one conversion.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub(crate) max_depth: usize,
    pub(crate) max_values: usize,
    pub(crate) max_string_bytes: usize,
    /// The line's deadline, checked every 1024 values.
    pub(crate) deadline: crate::clock::Deadline,
}

/// Where a walk writes what it reads, in order: one [`Walk`] for every output, so the value
/// tree and the JSON text always agree.
pub(crate) trait Sink {
    /// What the sink gives once the walk is done.
    type Output;
    fn null(&mut self);
    fn bool(&mut self, b: bool);
    /// A JSON number (see [`number`]).
    fn number(&mut self, n: Number);
    fn string(&mut self, s: &str);
    fn begin_array(&mut self, len: usize);
    fn end_array(&mut self);
    fn begin_object(&mut self, len: usize);
    /// The key of the object member whose value comes next.
    fn key(&mut self, k: &str);
    fn end_object(&mut self);
    fn finish(self) -> Self::Output;
}

/// Builds a [`Value`].
#[derive(Default)]
pub(crate) struct ValueSink {
    open: Vec<Open>,
    done: Option<Value>,
}

enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

impl ValueSink {
    fn put(&mut self, v: Value) {
        match self.open.last_mut() {
            Some(Open::Array(items)) => items.push(v),
            Some(Open::Object(map, key)) => {
                map.insert(std::mem::take(key), v);
            }
            None => self.done = Some(v),
        }
    }
}

impl Sink for ValueSink {
    type Output = Value;
    fn null(&mut self) {
        self.put(Value::Null);
    }
    fn bool(&mut self, b: bool) {
        self.put(Value::Bool(b));
    }
    fn number(&mut self, n: Number) {
        self.put(Value::Number(n));
    }
    fn string(&mut self, s: &str) {
        self.put(Value::String(s.to_owned()));
    }
    fn begin_array(&mut self, len: usize) {
        self.open
            .push(Open::Array(Vec::with_capacity(len.min(4096))));
    }
    fn end_array(&mut self) {
        if let Some(Open::Array(items)) = self.open.pop() {
            self.put(Value::Array(items));
        }
    }
    fn begin_object(&mut self, len: usize) {
        self.open
            .push(Open::Object(Map::with_capacity(len), String::new()));
    }
    fn key(&mut self, k: &str) {
        if let Some(Open::Object(_, key)) = self.open.last_mut() {
            k.clone_into(key);
        }
    }
    fn end_object(&mut self) {
        if let Some(Open::Object(map, _)) = self.open.pop() {
            self.put(Value::Object(map));
        }
    }
    fn finish(self) -> Value {
        self.done.unwrap_or(Value::Null)
    }
}

/// Writes JSON text: what `serde_json` writes for the [`Value`] the same walk would build,
/// except numbers past 2^53 and fractions, written as JavaScript writes them (the same
/// doubles): byte for byte what `JSON.stringify` gives.
pub(crate) struct JsonSink {
    out: Vec<u8>,
    /// Whether the next value or key follows a sibling (needs a comma).
    after_item: bool,
}

impl Default for JsonSink {
    fn default() -> Self {
        Self {
            // A line's entries are a few hundred bytes: most lines never grow the buffer.
            out: Vec::with_capacity(512),
            after_item: false,
        }
    }
}

impl JsonSink {
    fn separate(&mut self) {
        if self.after_item {
            self.out.push(b',');
        }
    }
    fn text(&mut self, s: &str) {
        crate::json_text::write_json_string(&mut self.out, s);
    }
}

impl Sink for JsonSink {
    type Output = String;
    fn null(&mut self) {
        self.separate();
        self.out.extend_from_slice(b"null");
        self.after_item = true;
    }
    fn bool(&mut self, b: bool) {
        self.separate();
        self.out
            .extend_from_slice(if b { b"true" } else { b"false" });
        self.after_item = true;
    }
    fn number(&mut self, n: Number) {
        self.separate();
        match n.as_f64() {
            // Past 2^53, and for fractions, JavaScript's digits (`Number::toString`, as
            // `JSON.stringify` writes them: 9223372036854776000, 1e+21) rather than serde's
            // (9223372036854775808, 1e21): the same double either way, and the text a thrown
            // value is worded with in the parse-error entry is JavaScript's.
            Some(f) if n.is_f64() || f.abs() >= 9_007_199_254_740_992.0 => {
                let js = JsString::from(f);
                with_text(&js, |t| self.out.extend_from_slice(t.as_bytes()));
            }
            _ => {
                let _ = serde_json::to_writer(&mut self.out, &n);
            }
        }
        self.after_item = true;
    }
    fn string(&mut self, s: &str) {
        self.separate();
        self.text(s);
        self.after_item = true;
    }
    fn begin_array(&mut self, _len: usize) {
        self.separate();
        self.out.push(b'[');
        self.after_item = false;
    }
    fn end_array(&mut self) {
        self.out.push(b']');
        self.after_item = true;
    }
    fn begin_object(&mut self, _len: usize) {
        self.separate();
        self.out.push(b'{');
        self.after_item = false;
    }
    fn key(&mut self, k: &str) {
        self.separate();
        self.text(k);
        self.out.push(b':');
        self.after_item = false;
    }
    fn end_object(&mut self) {
        self.out.push(b'}');
        self.after_item = true;
    }
    fn finish(self) -> String {
        if self.out.is_empty() {
            return "null".to_owned();
        }
        // Only UTF-8 was written: serde_json's strings and ASCII punctuation.
        String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

pub(crate) struct Walk<'c, S> {
    ctx: &'c mut Context,
    /// `toJSON` and `length` as property keys, made once a walk: making one looks at whether the
    /// string is an array index, and every object of every answer looked `toJSON` up twice.
    to_json: PropertyKey,
    length: PropertyKey,
    caps: Caps,
    values: usize,
    bytes: usize,
    stack: Vec<JsObject>,
    clean_protos: Vec<JsObject>,
    sink: S,
}

/// A JS number as JSON: non-finite → `None` (null), integral values → integers (so `1200`
/// stays `1200`).
pub(crate) fn number(f: f64) -> Option<Number> {
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 {
        if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
            #[allow(clippy::cast_possible_truncation)]
            return Some(Number::from(f as i64));
        }
        if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return Some(Number::from(f as u64));
        }
    }
    Number::from_f64(f)
}

/// Whether `o`'s own `toJSON` (`key`) may make `JSON.stringify` run guest code: an accessor, or
/// a function. A data property holding anything else is plain data (SPEC §2): stringify calls
/// `toJSON` only when it is callable, and writes the key like any other.
fn calls_to_json(o: &JsObject, key: &PropertyKey) -> bool {
    match own(o, key) {
        None => false,
        Some(d) if d.is_accessor_descriptor() => true,
        Some(d) => d
            .value()
            .and_then(JsValue::as_object)
            .is_some_and(|f| f.is_callable()),
    }
}

/// Calls `f` with a property key as `JSON.stringify` names it (see [`with_text`]); `None` for
/// a symbol, which JSON leaves out.
fn with_key<T>(key: &PropertyKey, f: impl FnOnce(&str) -> T) -> Option<T> {
    match key {
        PropertyKey::String(s) => Some(with_text_keeping(s, f)),
        PropertyKey::Index(i) => Some(f(&i.get().to_string())),
        PropertyKey::Symbol(_) => None,
    }
}

/// Whether `v` is left out of JSON (as `JSON.stringify` does): `undefined`, a symbol, a
/// function. An object member with such a value is skipped; an array item becomes `null`.
fn absent(v: &JsValue) -> bool {
    match v.variant() {
        JsVariant::Undefined | JsVariant::Symbol(_) => true,
        JsVariant::Object(o) => o.is_callable(),
        _ => false,
    }
}

fn own(obj: &JsObject, key: &PropertyKey) -> Option<PropertyDescriptor> {
    obj.borrow().properties().get(key)
}

fn plain(obj: &JsObject) -> bool {
    obj.is_ordinary() || obj.is_array()
}

impl<'c, S: Sink> Walk<'c, S> {
    pub(crate) fn new(ctx: &'c mut Context, caps: Caps, sink: S) -> Self {
        Self {
            ctx,
            to_json: js_string!("toJSON").into(),
            length: js_string!("length").into(),
            caps,
            values: 0,
            bytes: 0,
            stack: Vec::new(),
            clean_protos: Vec::new(),
            sink,
        }
    }

    /// Converts `v` whole; an absent value (undefined, a function or a symbol) is `null`.
    pub(crate) fn convert(mut self, v: &JsValue) -> Result<S::Output, Conv> {
        if absent(v) {
            self.sink.null();
        } else {
            self.value(v, 0)?;
        }
        Ok(self.sink.finish())
    }

    /// Writes `v`, which is not [absent].
    fn value(&mut self, v: &JsValue, depth: usize) -> Result<(), Conv> {
        self.count()?;
        match v.variant() {
            JsVariant::Null | JsVariant::Undefined | JsVariant::Symbol(_) => self.sink.null(),
            JsVariant::Boolean(b) => self.sink.bool(b),
            JsVariant::Integer32(i) => self.sink.number(Number::from(i)),
            JsVariant::Float64(f) => match number(f) {
                Some(n) => self.sink.number(n),
                None => self.sink.null(),
            },
            JsVariant::BigInt(_) => return Err(Conv::Bail),
            JsVariant::String(s) => {
                self.bytes = self.bytes.saturating_add(s.len());
                if self.bytes > self.caps.max_string_bytes {
                    return Err(Conv::TooLarge("string bytes"));
                }
                let sink = &mut self.sink;
                with_text_keeping(&s, |t| sink.string(t));
            }
            JsVariant::Object(o) => return self.object(&o, depth),
        }
        Ok(())
    }

    /// Counts one value (absent ones too) against the cap, checking the deadline now and then.
    fn count(&mut self) -> Result<(), Conv> {
        self.values += 1;
        if self.values > self.caps.max_values {
            return Err(Conv::TooLarge("values"));
        }
        if self.values & 1023 == 0 && self.caps.deadline.passed() {
            return Err(Conv::Deadline);
        }
        Ok(())
    }

    /// Whether `[[Get]](o, key)` would find nothing guest-defined along the prototype chain
    /// below `o` itself: every prototype is a plain object without `key`. Results for `toJSON`
    /// are cached per prototype.
    fn protos_clean(&mut self, o: &JsObject) -> Result<(), Conv> {
        let mut p = o.prototype();
        let mut seen = 0;
        while let Some(proto) = p {
            if self
                .clean_protos
                .iter()
                .any(|c| JsObject::equals(c, &proto))
            {
                return Ok(());
            }
            if !plain(&proto) || calls_to_json(&proto, &self.to_json) {
                return Err(Conv::Bail);
            }
            seen += 1;
            if seen > 64 {
                return Err(Conv::Bail);
            }
            p = proto.prototype();
            self.clean_protos.push(proto);
        }
        Ok(())
    }

    fn object(&mut self, o: &JsObject, depth: usize) -> Result<(), Conv> {
        if !plain(o) {
            return Err(Conv::Bail);
        }
        if self.stack.iter().any(|s| JsObject::equals(s, o)) {
            return Err(Conv::Cycle);
        }
        if depth >= self.caps.max_depth {
            return Err(Conv::TooLarge("depth"));
        }
        if calls_to_json(o, &self.to_json) {
            return Err(Conv::Bail);
        }
        self.protos_clean(o)?;
        self.stack.push(o.clone());
        let out = if o.is_array() {
            self.array(o, depth)
        } else {
            self.map(o, depth)
        };
        self.stack.pop();
        out
    }

    fn array(&mut self, o: &JsObject, depth: usize) -> Result<(), Conv> {
        let len = match own(o, &self.length).and_then(|d| d.value().cloned()) {
            Some(v) => v.as_number().unwrap_or(0.0),
            None => return Err(Conv::Bail),
        };
        if len > self.caps.max_values as f64 {
            return Err(Conv::TooLarge("values"));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let len = len as u32;
        self.sink.begin_array(len as usize);
        for i in 0..len {
            let key = PropertyKey::from(i);
            let item = match own(o, &key) {
                Some(d) if d.is_accessor_descriptor() => return Err(Conv::Bail),
                Some(d) => d.value().cloned().unwrap_or_default(),
                // A hole: JSON.stringify reads the prototype chain; only bail if it has the key.
                None => {
                    let mut p = o.prototype();
                    while let Some(proto) = p {
                        if !plain(&proto) || own(&proto, &key).is_some() {
                            return Err(Conv::Bail);
                        }
                        p = proto.prototype();
                    }
                    JsValue::undefined()
                }
            };
            if absent(&item) {
                self.count()?;
                self.sink.null();
            } else {
                self.value(&item, depth + 1)?;
            }
        }
        self.sink.end_array();
        Ok(())
    }

    fn map(&mut self, o: &JsObject, depth: usize) -> Result<(), Conv> {
        // Ordinary objects: [[OwnPropertyKeys]] is the ordinary one and runs no guest code.
        let keys = o.own_property_keys(self.ctx).map_err(|_| Conv::Bail)?;
        self.sink.begin_object(keys.len());
        for key in keys {
            let Some(desc) = own(o, &key) else { continue };
            if desc.enumerable() != Some(true) {
                continue;
            }
            if desc.is_accessor_descriptor() {
                return Err(Conv::Bail);
            }
            let item = desc.value().cloned().unwrap_or_default();
            // The key's text once: its length counts, and it is written unless the value is
            // absent.
            let absent_item = absent(&item);
            let sink = &mut self.sink;
            let Some(name_len) = with_key(&key, |name| {
                if !absent_item {
                    sink.key(name);
                }
                name.len()
            }) else {
                continue;
            };
            self.bytes = self.bytes.saturating_add(name_len);
            if absent_item {
                self.count()?;
                continue;
            }
            self.value(&item, depth + 1)?;
        }
        self.sink.end_object();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{number, with_text, JsonSink, Sink, ValueSink};
    use boa_engine::JsString;
    use serde_json::{json, Number, Value};

    #[test]
    fn strings_convert_losslessly_or_with_replacement() {
        let text = |s: &JsString| with_text(s, str::to_owned);
        assert_eq!(text(&JsString::from("plain ascii")), "plain ascii");
        assert_eq!(text(&JsString::from("café Ã©")), "café Ã©"); // Latin1, not ASCII
        assert_eq!(text(&JsString::from("┊ 💬 x")), "┊ 💬 x"); // UTF-16
        let lone: &[u16] = &[0x61, 0xd83d, 0x62];
        assert_eq!(text(&JsString::from(lone)), "a\u{fffd}b");
    }

    #[test]
    fn the_json_text_writes_numbers_as_javascript_does() {
        let text = |f: f64| {
            let mut sink = JsonSink::default();
            sink.number(number(f).unwrap());
            sink.finish()
        };
        assert_eq!(text(2f64.powi(63)), "9223372036854776000");
        assert_eq!(text(1e20), "100000000000000000000");
        assert_eq!(text(1e21), "1e+21");
        assert_eq!(text(1.5e-7), "1.5e-7");
        assert_eq!(text(1.992_724_208_626_896_1), "1.9927242086268961");
        assert_eq!(text(1200.0), "1200");
        assert_eq!(text(-0.0), "0");
    }

    #[test]
    fn numbers_serialise_like_javascript() {
        let n = |f: f64| number(f).map_or(Value::Null, Value::Number);
        assert_eq!(n(1200.0).to_string(), "1200");
        assert_eq!(n(-0.0).to_string(), "0");
        assert_eq!(n(1.5).to_string(), "1.5");
        assert_eq!(n(f64::NAN), json!(null));
        assert_eq!(n(f64::INFINITY), json!(null));
        assert_eq!(n(2f64.powi(60)), json!(1_152_921_504_606_846_976_i64));
    }

    /// Every finite double a parser returns, written by the engine and read back by the core
    /// (serde_json both ways, as the core does before the page's `JSON.parse`), is the same
    /// double bit for bit; `-0` becomes `0`, as `JSON.stringify` writes it.
    #[test]
    fn every_double_survives_the_way_to_the_page() {
        // Bit patterns spread over every exponent, not only [0, 1).
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let specials = [
            0.0,
            -0.0,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            1.992_724_208_626_896_1,
            1_254_886.263_914_212_1,
            5.050_164_983_402_458_3e-17,
            9_007_199_254_740_993.0,
            2f64.powi(64),
            2f64.powi(70) + 2f64.powi(20),
        ];
        let drawn = (0..200_000).map(|_| f64::from_bits(rng.next()));
        for f in specials.into_iter().chain(drawn).filter(|f| f.is_finite()) {
            let mut sink = JsonSink::default();
            sink.number(number(f).unwrap());
            let written = sink.finish();
            let core: Value = serde_json::from_str(&written).unwrap();
            let page: f64 = serde_json::to_string(&core).unwrap().parse().unwrap();
            let want = if f == 0.0 { 0.0 } else { f };
            assert_eq!(page.to_bits(), want.to_bits(), "{f:e} written as {written}");
        }
    }

    #[test]
    fn the_json_text_is_what_serde_json_writes_for_the_value() {
        fn feed<S: Sink>(mut s: S) -> S::Output {
            s.begin_array(3);
            s.begin_object(4);
            s.key("kind");
            s.string("tool_call");
            s.key("quote \"x\"\n\u{1}");
            s.number(Number::from(-3));
            s.key("ok");
            s.bool(true);
            s.key("empty");
            s.begin_object(0);
            s.end_object();
            s.end_object();
            s.null();
            s.begin_array(0);
            s.end_array();
            s.end_array();
            s.finish()
        }
        let value = feed(ValueSink::default());
        let text = feed(JsonSink::default());
        assert_eq!(text, serde_json::to_string(&value).unwrap());
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        assert_eq!(JsonSink::default().finish(), "null");
        assert_eq!(ValueSink::default().finish(), Value::Null);
    }
}
