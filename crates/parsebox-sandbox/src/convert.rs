//! Native conversion of a guest's return value into a plain [`serde_json::Value`].
//!
//! The walk reads own data properties of ordinary objects and arrays directly from boa's property
//! storage: it never runs guest code. Whatever it cannot read that way without changing the
//! result `JSON.parse(JSON.stringify(value))` would give (a getter, a Proxy, a `toJSON` anywhere
//! on the prototype chain, a boxed primitive, a BigInt, a `Date`, …) makes it [`Conv::Bail`]; the
//! sandbox then runs the prelude's bytecode converter under the line's remaining budget and reads
//! its output (plain data by construction) with this same walk in strict mode.

use boa_engine::object::JsObject;
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::string::JsStrVariant;
use boa_engine::value::JsVariant;
use boa_engine::{js_string, Context, JsString, JsValue};
use serde_json::{Map, Number, Value};

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

pub(crate) struct Walk<'c> {
    ctx: &'c mut Context,
    caps: Caps,
    values: usize,
    bytes: usize,
    stack: Vec<JsObject>,
    clean_protos: Vec<JsObject>,
}

/// A JS number as JSON: non-finite → null, integral values → integers (so `1200` stays `1200`).
pub(crate) fn number(f: f64) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    if f.fract() == 0.0 {
        if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
            #[allow(clippy::cast_possible_truncation)]
            return Value::Number(Number::from(f as i64));
        }
        if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return Value::Number(Number::from(f as u64));
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// A JS string as Rust text, unpaired surrogates → U+FFFD (as `to_std_string_lossy`, without
/// its per-character formatter: this runs for every string of every entry).
pub(crate) fn text(s: &JsString) -> String {
    match s.as_str().variant() {
        // ASCII (nearly every string of a log) is already UTF-8: one copy, no per-char work.
        JsStrVariant::Latin1(b) if b.is_ascii() => String::from_utf8(b.to_vec())
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        JsStrVariant::Latin1(b) => b.iter().map(|&c| char::from(c)).collect(),
        JsStrVariant::Utf16(u) => String::from_utf16_lossy(u),
    }
}

fn own(obj: &JsObject, key: &PropertyKey) -> Option<PropertyDescriptor> {
    obj.borrow().properties().get(key)
}

fn plain(obj: &JsObject) -> bool {
    obj.is_ordinary() || obj.is_array()
}

impl<'c> Walk<'c> {
    pub(crate) fn new(ctx: &'c mut Context, caps: Caps) -> Self {
        Self {
            ctx,
            caps,
            values: 0,
            bytes: 0,
            stack: Vec::new(),
            clean_protos: Vec::new(),
        }
    }

    /// Converts `v`; `Ok(None)` means "absent" (undefined, a function or a symbol).
    pub(crate) fn value(&mut self, v: &JsValue, depth: usize) -> Result<Option<Value>, Conv> {
        self.values += 1;
        if self.values > self.caps.max_values {
            return Err(Conv::TooLarge("values"));
        }
        if self.values & 1023 == 0 && self.caps.deadline.passed() {
            return Err(Conv::Deadline);
        }
        Ok(Some(match v.variant() {
            JsVariant::Null => Value::Null,
            JsVariant::Undefined | JsVariant::Symbol(_) => return Ok(None),
            JsVariant::Boolean(b) => Value::Bool(b),
            JsVariant::Integer32(i) => Value::Number(Number::from(i)),
            JsVariant::Float64(f) => number(f),
            JsVariant::BigInt(_) => return Err(Conv::Bail),
            JsVariant::String(s) => {
                self.bytes = self.bytes.saturating_add(s.len());
                if self.bytes > self.caps.max_string_bytes {
                    return Err(Conv::TooLarge("string bytes"));
                }
                Value::String(text(&s))
            }
            JsVariant::Object(o) => {
                if o.is_callable() {
                    return Ok(None);
                }
                return self.object(&o, depth).map(Some);
            }
        }))
    }

    /// Whether `[[Get]](o, key)` would find nothing guest-defined along the prototype chain
    /// below `o` itself: every prototype is a plain object without `key`. Results for `toJSON`
    /// are cached per prototype.
    fn protos_clean(&mut self, o: &JsObject) -> Result<(), Conv> {
        let key: PropertyKey = js_string!("toJSON").into();
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
            if !plain(&proto) || own(&proto, &key).is_some() {
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

    fn object(&mut self, o: &JsObject, depth: usize) -> Result<Value, Conv> {
        if !plain(o) {
            return Err(Conv::Bail);
        }
        if self.stack.iter().any(|s| JsObject::equals(s, o)) {
            return Err(Conv::Cycle);
        }
        if depth >= self.caps.max_depth {
            return Err(Conv::TooLarge("depth"));
        }
        if own(o, &js_string!("toJSON").into()).is_some() {
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

    fn array(&mut self, o: &JsObject, depth: usize) -> Result<Value, Conv> {
        let len = match own(o, &js_string!("length").into()).and_then(|d| d.value().cloned()) {
            Some(v) => v.as_number().unwrap_or(0.0),
            None => return Err(Conv::Bail),
        };
        if len > self.caps.max_values as f64 {
            return Err(Conv::TooLarge("values"));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let len = len as u32;
        let mut out = Vec::with_capacity(len.min(4096) as usize);
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
            out.push(self.value(&item, depth + 1)?.unwrap_or(Value::Null));
        }
        Ok(Value::Array(out))
    }

    fn map(&mut self, o: &JsObject, depth: usize) -> Result<Value, Conv> {
        // Ordinary objects: [[OwnPropertyKeys]] is the ordinary one and runs no guest code.
        let keys = o.own_property_keys(self.ctx).map_err(|_| Conv::Bail)?;
        let mut out = Map::with_capacity(keys.len());
        for key in keys {
            let name = match &key {
                PropertyKey::String(s) => text(s),
                PropertyKey::Index(i) => i.get().to_string(),
                PropertyKey::Symbol(_) => continue,
            };
            let Some(desc) = own(o, &key) else { continue };
            if desc.enumerable() != Some(true) {
                continue;
            }
            if desc.is_accessor_descriptor() {
                return Err(Conv::Bail);
            }
            let item = desc.value().cloned().unwrap_or_default();
            self.bytes = self.bytes.saturating_add(name.len());
            if let Some(v) = self.value(&item, depth + 1)? {
                out.insert(name, v);
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::{number, text};
    use boa_engine::JsString;
    use serde_json::json;

    #[test]
    fn strings_convert_losslessly_or_with_replacement() {
        assert_eq!(text(&JsString::from("plain ascii")), "plain ascii");
        assert_eq!(text(&JsString::from("café Ã©")), "café Ã©"); // Latin1, not ASCII
        assert_eq!(text(&JsString::from("┊ 💬 x")), "┊ 💬 x"); // UTF-16
        let lone: &[u16] = &[0x61, 0xd83d, 0x62];
        assert_eq!(text(&JsString::from(lone)), "a\u{fffd}b");
    }

    #[test]
    fn numbers_serialise_like_javascript() {
        assert_eq!(number(1200.0).to_string(), "1200");
        assert_eq!(number(-0.0).to_string(), "0");
        assert_eq!(number(1.5).to_string(), "1.5");
        assert_eq!(number(f64::NAN), json!(null));
        assert_eq!(number(f64::INFINITY), json!(null));
        assert_eq!(number(2f64.powi(60)), json!(1_152_921_504_606_846_976_i64));
    }
}
