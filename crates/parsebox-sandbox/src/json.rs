//! A native `JSON.parse` for the realm (the reviver-less core; the prelude wraps it and walks
//! revivers in bytecode).
//!
//! boa 0.22's own `JSON.parse` validates the text with serde_json, then wraps it in parentheses
//! and runs it through the full JavaScript parser, byte compiler and VM: on JSON-heavy parsers
//! (Claude stream-json, token-count events) that was the largest single cost per line. This one
//! reads the string's code units once and builds the values directly, with ECMA-404 grammar and
//! V8's semantics: duplicate keys keep the last value at the first key's position, `__proto__`
//! is an own property, numbers are parsed with correct rounding (`-0` stays `-0`), and `\uXXXX`
//! escapes may produce lone surrogates (V8 accepts them; boa's version refused them).
//!
//! It never runs guest code (no getters, no prototype lookups on the values it builds) and it
//! is linear in the input, which is charged to the call's work budget. Nesting is capped at
//! [`MAX_DEPTH`] so a hostile log line cannot exhaust the native stack.

use boa_engine::object::builtins::JsArray;
use boa_engine::object::JsObject;
use boa_engine::property::PropertyKey;
use boa_engine::string::{JsStr, JsStrVariant};
use boa_engine::{Context, JsNativeError, JsResult, JsString, JsValue};

/// Deepest accepted nesting of arrays and objects.
pub(crate) const MAX_DEPTH: usize = 512;

/// Parses `text` (already a string) as JSON.
///
/// # Errors
/// A `SyntaxError` for text that is not JSON or nests deeper than [`MAX_DEPTH`]; the
/// budget's uncatchable error when the call has no room left for reading `text`.
pub(crate) fn parse(text: &JsString, ctx: &mut Context) -> JsResult<JsValue> {
    // Counted work: a code unit a cycle, charged before it is read (what a parse costs is
    // linear in its input), so a line of many big `JSON.parse` calls ends at its budget.
    crate::clock::charge_native(u64::try_from(text.len()).unwrap_or(u64::MAX))?;
    match text.as_str().variant() {
        JsStrVariant::Latin1(s) => Parser::new(s, ctx).document(),
        JsStrVariant::Utf16(s) => Parser::new(s, ctx).document(),
    }
}

/// A code unit of the input: Latin1 bytes or UTF-16 units.
trait Unit: Copy {
    fn get(self) -> u16;
    /// A string made of `units` (no escapes in them).
    fn js_string(units: &[Self]) -> JsString;
}

impl Unit for u8 {
    fn get(self) -> u16 {
        u16::from(self)
    }
    fn js_string(units: &[u8]) -> JsString {
        JsString::from(JsStr::latin1(units))
    }
}

impl Unit for u16 {
    fn get(self) -> u16 {
        self
    }
    fn js_string(units: &[u16]) -> JsString {
        JsString::from(JsStr::utf16(units))
    }
}

struct Parser<'a, T: Unit> {
    s: &'a [T],
    i: usize,
    ctx: &'a mut Context,
    /// Scratch buffer for strings with escapes.
    buf: Vec<u16>,
}

fn syntax(message: String) -> boa_engine::JsError {
    JsNativeError::syntax().with_message(message).into()
}

impl<'a, T: Unit> Parser<'a, T> {
    fn new(s: &'a [T], ctx: &'a mut Context) -> Self {
        Self {
            s,
            i: 0,
            ctx,
            buf: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).map(|u| u.get())
    }

    fn fail(&self) -> boa_engine::JsError {
        match self.peek() {
            None => syntax("Unexpected end of JSON input".to_owned()),
            Some(c) => {
                let ch = char::from_u32(u32::from(c)).unwrap_or('\u{fffd}');
                syntax(format!(
                    "Unexpected token '{ch}' in JSON at position {}",
                    self.i
                ))
            }
        }
    }

    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn document(mut self) -> JsResult<JsValue> {
        let v = self.value(0)?;
        self.ws();
        if self.i < self.s.len() {
            return Err(self.fail());
        }
        Ok(v)
    }

    fn literal(&mut self, word: &[u8], v: JsValue) -> JsResult<JsValue> {
        for &b in word {
            if self.peek() != Some(u16::from(b)) {
                return Err(self.fail());
            }
            self.i += 1;
        }
        Ok(v)
    }

    fn value(&mut self, depth: usize) -> JsResult<JsValue> {
        self.ws();
        match self.peek() {
            Some(0x7b) => self.object(depth),
            Some(0x5b) => self.array(depth),
            Some(0x22) => Ok(JsValue::from(self.string()?)),
            Some(0x74) => self.literal(b"true", JsValue::from(true)),
            Some(0x66) => self.literal(b"false", JsValue::from(false)),
            Some(0x6e) => self.literal(b"null", JsValue::null()),
            Some(c) if c == 0x2d || (0x30..=0x39).contains(&c) => self.number(),
            _ => Err(self.fail()),
        }
    }

    fn enter(&self, depth: usize) -> JsResult<()> {
        if depth >= MAX_DEPTH {
            return Err(syntax(format!(
                "JSON nested deeper than {MAX_DEPTH} levels at position {}",
                self.i
            )));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> JsResult<JsValue> {
        self.enter(depth)?;
        self.i += 1;
        let obj = JsObject::with_object_proto(self.ctx.intrinsics());
        self.ws();
        if self.peek() == Some(0x7d) {
            self.i += 1;
            return Ok(obj.into());
        }
        loop {
            self.ws();
            if self.peek() != Some(0x22) {
                return Err(self.fail());
            }
            let key = PropertyKey::from(self.string()?);
            self.ws();
            if self.peek() != Some(0x3a) {
                return Err(self.fail());
            }
            self.i += 1;
            let v = self.value(depth + 1)?;
            obj.create_data_property_or_throw(key, v, self.ctx)?;
            self.ws();
            match self.peek() {
                Some(0x2c) => self.i += 1,
                Some(0x7d) => {
                    self.i += 1;
                    return Ok(obj.into());
                }
                _ => return Err(self.fail()),
            }
        }
    }

    fn array(&mut self, depth: usize) -> JsResult<JsValue> {
        self.enter(depth)?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(0x5d) {
            self.i += 1;
            return Ok(JsArray::from_iter(items, self.ctx).into());
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(0x2c) => self.i += 1,
                Some(0x5d) => {
                    self.i += 1;
                    return Ok(JsArray::from_iter(items, self.ctx).into());
                }
                _ => return Err(self.fail()),
            }
        }
    }

    fn hex4(&mut self) -> JsResult<u16> {
        let mut v: u16 = 0;
        for _ in 0..4 {
            let c = self.peek().ok_or_else(|| self.fail())?;
            let d = match c {
                0x30..=0x39 => c - 0x30,
                0x41..=0x46 => c - 0x41 + 10,
                0x61..=0x66 => c - 0x61 + 10,
                _ => return Err(self.fail()),
            };
            v = (v << 4) | d;
            self.i += 1;
        }
        Ok(v)
    }

    /// How many units from `self.i` on need no attention in a string: not a quote, a
    /// backslash or a control character. Strings are most of a JSON line: one tight scan.
    fn plain_run(&self) -> usize {
        let rest = self.s.get(self.i..).unwrap_or(&[]);
        rest.iter()
            .position(|u| {
                let c = u.get();
                c == 0x22 || c == 0x5c || c < 0x20
            })
            .unwrap_or(rest.len())
    }

    /// A string token starting at the opening quote.
    fn string(&mut self) -> JsResult<JsString> {
        self.i += 1;
        let start = self.i;
        // Fast path: no escapes, the string is a slice of the input.
        self.i += self.plain_run();
        match self.peek() {
            Some(0x22) => {
                let units = self.s.get(start..self.i).unwrap_or(&[]);
                self.i += 1;
                return Ok(T::js_string(units));
            }
            Some(0x5c) => {}
            _ => return Err(self.fail()),
        }
        self.buf.clear();
        self.buf.extend(
            self.s
                .get(start..self.i)
                .unwrap_or(&[])
                .iter()
                .map(|u| u.get()),
        );
        loop {
            match self.peek() {
                Some(0x22) => {
                    self.i += 1;
                    return Ok(JsString::from(&self.buf[..]));
                }
                Some(0x5c) => {
                    self.i += 1;
                    let e = self.peek().ok_or_else(|| self.fail())?;
                    let unit = match e {
                        0x22 | 0x5c | 0x2f => e,
                        0x62 => 0x08,
                        0x66 => 0x0c,
                        0x6e => 0x0a,
                        0x72 => 0x0d,
                        0x74 => 0x09,
                        0x75 => {
                            self.i += 1;
                            let u = self.hex4()?;
                            // hex4 stops after its digits; the `+= 1` below steps past
                            // the escape's last character as for the one-letter escapes.
                            self.i -= 1;
                            u
                        }
                        _ => return Err(self.fail()),
                    };
                    self.i += 1;
                    self.buf.push(unit);
                }
                _ => return Err(self.fail()),
            }
            let run = self.plain_run();
            let units = self.s.get(self.i..self.i + run).unwrap_or(&[]);
            self.buf.extend(units.iter().map(|u| u.get()));
            self.i += run;
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while matches!(self.peek(), Some(0x30..=0x39)) {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> JsResult<JsValue> {
        let start = self.i;
        if self.peek() == Some(0x2d) {
            self.i += 1;
        }
        match self.peek() {
            Some(0x30) => self.i += 1,
            Some(0x31..=0x39) => {
                self.digits();
            }
            _ => return Err(self.fail()),
        }
        if self.peek() == Some(0x2e) {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.fail());
            }
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            self.i += 1;
            if matches!(self.peek(), Some(0x2b | 0x2d)) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.fail());
            }
        }
        // The token is ASCII by construction.
        let text: String = self
            .s
            .get(start..self.i)
            .unwrap_or(&[])
            .iter()
            .map(|u| char::from(u8::try_from(u.get()).unwrap_or(b'0')))
            .collect();
        let f: f64 = text.parse().map_err(|_| self.fail())?;
        Ok(JsValue::from(f))
    }
}

#[cfg(test)]
mod tests {
    use boa_engine::{js_string, Context, JsValue, Source};

    fn eval(src: &str) -> JsValue {
        let mut ctx = Context::default();
        let f = boa_engine::NativeFunction::from_fn_ptr(|_, args, ctx| {
            let s = args.first().cloned().unwrap_or_default().to_string(ctx)?;
            super::parse(&s, ctx)
        });
        ctx.register_global_builtin_callable(js_string!("jp"), 1, f)
            .unwrap();
        ctx.eval(Source::from_bytes(src.as_bytes())).unwrap()
    }

    fn check(src: &str) {
        assert_eq!(eval(src).as_boolean(), Some(true), "expected true: {src}");
    }

    #[test]
    fn values_match_javascript() {
        check(
            r#"JSON.stringify(jp('{"a":[1,2.5,-0,1e3,"x\\u00e9\\n",true,false,null],"b":{}}')) === '{"a":[1,2.5,0,1000,"xé\\n",true,false,null],"b":{}}'"#,
        );
        check(r#"Object.is(jp("-0"), -0)"#);
        check(
            r#"jp("1e400") === Infinity && jp("0.1") === 0.1 && jp("9007199254740993") === 9007199254740992"#,
        );
        check(
            r#"Object.keys(jp('{"a":1,"b":2,"a":3}')).join() === "a,b" && jp('{"a":1,"b":2,"a":3}').a === 3"#,
        );
        check(
            r#"var o = jp('{"__proto__":{"x":1}}'); Object.getPrototypeOf(o) === Object.prototype && o.x === undefined && Object.keys(o)[0] === "__proto__""#,
        );
        check(r#"jp('"\\ud83d"').length === 1 && jp('"\\ud83d"').charCodeAt(0) === 0xd83d"#);
        check(r#"jp('"😀┊"') === "😀┊" && jp(' [ ] ').length === 0 && Array.isArray(jp("[[]]"))"#);
        check(r#"var o = jp('{"1":"a","0":"b"}'); Object.keys(o).join() === "0,1""#);
    }

    #[test]
    fn escapes_between_plain_text_keep_every_character() {
        // Each kind of escape with plain text on both sides, in Latin1 and UTF-16 input.
        check(r#"jp('"ab\\u0041cd\\nef\\"gh\\u00e9"') === 'ab\u0041cd\nef"gh\u00e9'"#);
        check(r#"jp('"→\\u0041→\\t→"') === "→A→\t→""#);
        check(r#"jp('"\\u0041\\u0042"') === "AB" && jp('"x\\\\"') === "x\\""#);
    }

    #[test]
    fn rejects_what_javascript_rejects() {
        for bad in [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "+1",
            "-",
            "1e",
            "tru",
            "nul",
            "'a'",
            "\"\\x\"",
            "\"a\nb\"",
            "[1] 2",
            "{a:1}",
            "\"\\u12\"",
            "NaN",
            "Infinity",
        ] {
            let src = format!(
                "try {{ jp({}); false }} catch (e) {{ e instanceof SyntaxError }}",
                serde_json::to_string(bad).unwrap()
            );
            check(&src);
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_a_crash() {
        check(r#"try { jp("[".repeat(100000)); false } catch (e) { e instanceof SyntaxError }"#);
        check(r#"jp("[".repeat(500) + "]".repeat(500)).length === 1"#);
    }
}
