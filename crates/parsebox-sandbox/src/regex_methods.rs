//! `RegExp.prototype.test` and `exec`, and `String.prototype.replace`, `replaceAll`, `match`
//! and `split` with a regex, natively.
//!
//! boa runs these through `exec`, once per match, and each `exec` builds a result array (with
//! `index`, `input`, `groups` and an `indices` array besides) and, for a Latin-1 string, copies
//! the whole input to UTF-16 again; the caller then reads the array back through property
//! lookups or drops it. A word-cleaning `w.replace(/[^A-Za-z0-9_]/g, "")` per word spent two
//! thirds of a line there (issue 55).
//!
//! This module takes the same steps (`RegExp.prototype.test`, `String.prototype.replace` and
//! `match`, `RegExp.prototype[Symbol.replace]` and `[Symbol.match]` as V8 runs them,
//! `RegExpBuiltinExec`, `GetSubstitution`) with the same observable reads and writes
//! (`Symbol.replace`, `Symbol.match`, `global`, `unicode`, `unicodeSets`, `lastIndex`), but
//! keeps each match as a range where nothing can observe its array. It only takes a call it can
//! answer that way, and decides so before it has observed anything: a string input, a regex
//! object of the realm's own `RegExp` prototype with no `exec` of its own (the prototype's `exec`
//! is the guarded one and cannot be changed), and for `replace` a string replacement without
//! `$<` (which reads named groups). Every other call goes, unchanged, to the method that was
//! there before (the prelude's or boa's).
//!
//! The matcher is compiled from the regex's source and flags with the same engine and the same
//! options as boa's (regress, over UTF-16 code units or code points as boa chooses), and kept
//! in a small cache keyed by source and flags. What a regex object's slots gave is kept too, by
//! the object: a parser's module-level regex is read once, not on every call (reading its
//! `source` escapes it anew, and the key was hashed whole: more than the search itself on a
//! hermes-style line).

use std::cell::RefCell;
use std::rc::Rc;

use boa_engine::object::builtins::{JsArray, JsRegExp};
use boa_engine::object::JsObject;
use boa_engine::property::PropertyKey;
use boa_engine::string::{CodePoint, JsStrVariant};
use boa_engine::{
    js_string, Context, JsNativeError, JsResult, JsString, JsSymbol, JsValue, NativeFunction,
};
use regress::{Flags, Regex};
use rustc_hash::FxHashMap;

/// The most compiled matchers a realm keeps; past it the cache starts again. Real parsers use a
/// few dozen regexes at most; a parser that makes many more, each at `maxRegexSource`, keeps
/// at most this many compiled copies alive besides its own (within the engine's memory
/// maximum either way).
const CACHED_MATCHERS: usize = 64;

/// The compiled matchers of a realm, by the regex's `source` and the flags that change it, and
/// what each regex object's slots gave, by the object. Its slots never change: the realm has no
/// `RegExp.prototype.compile` (boa's `annex-b` feature is off; a test says so). The objects are
/// held, so an entry is never taken for another object made at the same address; at most
/// [`CACHED_MATCHERS`] of them, as the compiled matchers. Fx hashes: the keys are a parser's
/// own strings and objects, and a map of 64 at most cannot be flooded.
#[derive(Default)]
struct Matchers {
    by_source: RefCell<FxHashMap<(JsString, u8), Rc<Regex>>>,
    by_object: RefCell<FxHashMap<JsObject, Slots>>,
    /// How many times a regex's slots were read (a miss of `by_object`), for the tests.
    #[cfg(test)]
    reads: std::cell::Cell<usize>,
}

/// What a regex object's internal slots give: its escaped `source`, its matcher and its flags.
#[derive(Clone)]
struct Slots {
    /// What its `source` getter gives (the key of its matcher).
    source: JsString,
    matcher: Rc<Regex>,
    /// The regex's own flags, as `exec` reads them (its internal slot).
    global: bool,
    sticky: bool,
    /// The `u` flag.
    unicode: bool,
    /// The `v` flag.
    unicode_sets: bool,
}

/// What each method captures: the method it stands in front of, the built-in it compares a
/// regex's own with (`Symbol.replace`, `Symbol.match`, `Symbol.split`; for `test`, `exec`),
/// the realm's `RegExp.prototype`, its `source` and `unicodeSets` getters (called on a regex
/// directly, they read its internal slots: nothing a parser defined runs), and the realm's
/// `RegExp` constructor (the prelude's guarded one) with its `Symbol.species` getter, which
/// `split` constructs its splitter with, and the prototype's `global` and `unicode` getters
/// (for [`Target::flag`]).
type Captures = [JsObject; 9];

/// A method of this module.
type Method = fn(&JsValue, &[JsValue], &Captures, &mut Context) -> JsResult<JsValue>;

/// Puts the native `test`, `replace`, `replaceAll`, `match` and `split` in front of the ones
/// there now, which they call for every call they do not take (`exec` is the guarded one's:
/// [`exec`]).
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let string_proto = ctx.intrinsics().constructors().string().prototype();
    let regexp_proto = ctx.intrinsics().constructors().regexp().prototype();
    ctx.insert_data(Matchers::default());
    ctx.insert_data(Widened::default());
    let [source, sets] = slot_getters(ctx)?;
    let constructor = data_property(&regexp_proto, js_string!("constructor").into())?;
    let species = own_getter(&constructor, JsSymbol::species().into())
        .ok_or_else(|| missing("RegExp[Symbol.species]"))?;
    let [global, unicode] = [
        builtin_getter(&regexp_proto, js_string!("global"))?,
        builtin_getter(&regexp_proto, js_string!("unicode"))?,
    ];
    let methods: [(&JsObject, JsString, usize, PropertyKey, Method); 5] = [
        (
            &regexp_proto,
            js_string!("test"),
            1,
            js_string!("exec").into(),
            test,
        ),
        (
            &string_proto,
            js_string!("replace"),
            2,
            JsSymbol::replace().into(),
            replace,
        ),
        (
            &string_proto,
            js_string!("replaceAll"),
            2,
            JsSymbol::replace().into(),
            replace_all,
        ),
        (
            &string_proto,
            js_string!("match"),
            1,
            JsSymbol::r#match().into(),
            r#match,
        ),
        (
            &string_proto,
            js_string!("split"),
            2,
            JsSymbol::split().into(),
            split,
        ),
    ];
    for (object, name, length, builtin, method) in methods {
        let captures: Captures = [
            data_property(object, name.clone().into())?,
            data_property(&regexp_proto, builtin)?,
            regexp_proto.clone(),
            source.clone(),
            sets.clone(),
            constructor.clone(),
            species.clone(),
            global.clone(),
            unicode.clone(),
        ];
        let function = NativeFunction::from_copy_closure_with_captures(
            move |this, args, captures: &Captures, ctx| method(this, args, captures, ctx),
            captures,
        );
        crate::native_method::define_native(object, name, length, function, ctx)?;
    }
    Ok(())
}

/// The built-in `source` and `unicodeSets` getters of the realm's `RegExp.prototype` (set-up:
/// before any parser), which read a regex's internal slots.
pub(crate) fn slot_getters(ctx: &Context) -> JsResult<[JsObject; 2]> {
    let regexp_proto = ctx.intrinsics().constructors().regexp().prototype();
    Ok([
        builtin_getter(&regexp_proto, js_string!("source"))?,
        builtin_getter(&regexp_proto, js_string!("unicodeSets"))?,
    ])
}

/// The getter `name` of the realm's `RegExp.prototype` (`regexp_proto`) at set-up, before any
/// parser: the built-in one, which reads a regex's internal slot.
fn builtin_getter(regexp_proto: &JsObject, name: JsString) -> JsResult<JsObject> {
    own_getter(regexp_proto, name.into()).ok_or_else(|| missing("the getters of RegExp.prototype"))
}

/// `RegExp.prototype.exec(string)` natively, for a regex without the `d` flag and a string
/// argument: the result array `RegExpBuiltinExec` makes (`index`, `input`, `groups`, the
/// captures), without the `indices` arrays and the object of group names boa makes for every
/// match besides, or the UTF-16 copy of a Latin-1 input per call. `None` when it does not take
/// the call (nothing observed yet): the caller runs boa's.
pub(crate) fn exec(
    this: &JsValue,
    args: &[JsValue],
    getters: &[JsObject; 2],
    ctx: &mut Context,
) -> Option<JsResult<JsValue>> {
    let input = args.first()?.as_string()?;
    let rx = this.as_object()?;
    let regexp = JsRegExp::from_object(rx.clone()).ok()?;
    if regexp.has_indices(ctx).unwrap_or(true) {
        return None;
    }
    let [source, sets] = getters;
    let target = Target::read(rx, &regexp, input, source, sets, ctx)?;
    Some(target.exec_array(ctx))
}

/// The object that `object`'s own data property `key` holds, read without running anything.
fn own_value(object: &JsObject, key: PropertyKey) -> Option<JsObject> {
    let desc = object.borrow().properties().get(&key)?;
    desc.value().and_then(JsValue::as_object)
}

/// Whether `object` has an own property `key`, read without running anything.
fn has_own(object: &JsObject, key: PropertyKey) -> bool {
    object.borrow().properties().get(&key).is_some()
}

/// The getter of `object`'s own accessor property `key`, read without running anything.
fn own_getter(object: &JsObject, key: PropertyKey) -> Option<JsObject> {
    let desc = object.borrow().properties().get(&key)?;
    desc.get().and_then(JsValue::as_object)
}

/// [`own_value`] at set-up (before any parser), where a missing built-in is an error.
fn data_property(object: &JsObject, key: PropertyKey) -> JsResult<JsObject> {
    own_value(object, key).ok_or_else(|| missing("a built-in method"))
}

/// The set-up error for a built-in this module needs and did not find.
fn missing(what: &str) -> boa_engine::JsError {
    JsNativeError::typ()
        .with_message(format!("parsebox: the native regex methods need {what}"))
        .into()
}

/// `RegExp.prototype.test(string)`.
fn test(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let input = args.first().cloned().unwrap_or_default();
    let Some(target) = Target::of(this, &input, captures, ctx) else {
        return crate::charged_builtins::call_charged(&captures[0], this, args, ctx);
    };
    let units = target.units(ctx);
    crate::regex_limits::check_regex_input(units.len(), ctx)?;
    Ok(target.exec(&units, ctx)?.is_some().into())
}

/// `String.prototype.replace(searchValue, replaceValue)`.
fn replace(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    replace_any(this, args, captures, false, ctx)
}

/// `String.prototype.replaceAll(searchValue, replaceValue)`.
fn replace_all(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    replace_any(this, args, captures, true, ctx)
}

/// `replace`, or with `all` `replaceAll`, which first asks `IsRegExp(searchValue)` and then
/// refuses a regex whose `flags` lack `g`.
fn replace_any(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    all: bool,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let search = args.first().cloned().unwrap_or_default();
    let replacement = args.get(1).cloned().unwrap_or_default();
    let dollar_angle = [u16::from(b'$'), u16::from(b'<')];
    let template = replacement
        .as_string()
        .filter(|t| !t.as_str().windows(2).any(|w| w.iter().eq(dollar_angle)));
    if let (Some(template), Some(target)) = (template, Target::of(&search, this, captures, ctx)) {
        if all {
            target.require_global(ctx)?;
        }
        let call_args = [this.clone(), replacement];
        let answer =
            target.by_symbol(JsSymbol::replace(), captures, &call_args, ctx, |t, ctx| {
                t.replace(&template, captures, ctx).map(Some)
            })?;
        if let Some(answer) = answer {
            return Ok(answer);
        }
    }
    crate::charged_builtins::call_charged(&captures[0], this, args, ctx)
}

/// `String.prototype.match(regexp)`.
fn r#match(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let regexp = args.first().cloned().unwrap_or_default();
    if let Some(target) = Target::of(&regexp, this, captures, ctx) {
        let call_args = std::slice::from_ref(this);
        let answer =
            target.by_symbol(JsSymbol::r#match(), captures, call_args, ctx, |t, ctx| {
                t.match_all_or_first(captures, ctx).map(Some)
            })?;
        if let Some(answer) = answer {
            return Ok(answer);
        }
    }
    crate::charged_builtins::call_charged(&captures[0], this, args, ctx)
}

/// `String.prototype.split(separator, limit)`.
fn split(
    this: &JsValue,
    args: &[JsValue],
    captures: &Captures,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let separator = args.first().cloned().unwrap_or_default();
    let limit = args.get(1).cloned().unwrap_or_default();
    let plain_limit = limit.is_undefined() || limit.is_number();
    let target = plain_limit
        .then(|| Target::of(&separator, this, captures, ctx))
        .flatten()
        .filter(|t| t.splits_with_itself(captures));
    if let Some(target) = target {
        let call_args = [this.clone(), limit.clone()];
        let answer = target.by_symbol(JsSymbol::split(), captures, &call_args, ctx, |t, ctx| {
            t.split(&limit, ctx)
        })?;
        if let Some(answer) = answer {
            return Ok(answer);
        }
    }
    if let Some(answer) = crate::string_search::split(this, args, ctx) {
        return answer;
    }
    crate::charged_builtins::call_charged(&captures[0], this, args, ctx)
}

/// A regex and the string it runs on, read without observing anything: see the module's doc.
struct Target {
    rx: JsObject,
    input: JsString,
    slots: Slots,
}

impl Slots {
    /// Whether the regex matches by code point (`u` or `v`), which its searches and `lastIndex`
    /// inside a surrogate pair follow.
    fn full_unicode(&self) -> bool {
        self.unicode || self.unicode_sets
    }

    /// Reads `rx`'s slots (`regexp`: the same object) through the built-in getters `source` and
    /// `sets` (`unicodeSets`) and the flags' own, and finds its matcher.
    fn read(
        rx: &JsObject,
        regexp: &JsRegExp,
        source: &JsObject,
        sets: &JsObject,
        ctx: &mut Context,
    ) -> Option<Slots> {
        let flag = |f: JsResult<bool>| f.ok().unwrap_or(false);
        let slot =
            |getter: &JsObject, ctx: &mut Context| getter.call(&rx.clone().into(), &[], ctx).ok();
        let unicode = flag(regexp.unicode(ctx));
        let unicode_sets = slot(sets, ctx)
            .and_then(|v| v.as_boolean())
            .unwrap_or(false);
        let flags = Flags {
            icase: flag(regexp.ignore_case(ctx)),
            multiline: flag(regexp.multiline(ctx)),
            dot_all: flag(regexp.dot_all(ctx)),
            unicode,
            unicode_sets,
            ..Flags::default()
        };
        let source = slot(source, ctx)?.as_string()?;
        let matcher = matcher(source.clone(), flags, ctx)?;
        Some(Slots {
            global: flag(regexp.global(ctx)),
            sticky: flag(regexp.sticky(ctx)),
            unicode,
            unicode_sets,
            source,
            matcher,
        })
    }
}

impl Target {
    /// The regex `rx` on `input`, when it is one this module takes.
    fn of(rx: &JsValue, input: &JsValue, captures: &Captures, ctx: &mut Context) -> Option<Target> {
        let [_, _, regexp_proto, source, sets, ..] = captures;
        let input = input.as_string()?;
        let rx = rx.as_object()?;
        if rx.prototype().as_ref() != Some(regexp_proto) || has_own(&rx, js_string!("exec").into())
        {
            return None;
        }
        let regexp = JsRegExp::from_object(rx.clone()).ok()?;
        Target::read(rx, &regexp, input, source, sets, ctx)
    }

    /// The regex `rx` (`regexp`: the same object, known to have a regex's internal slots) on
    /// `input`, its slots read through the built-in getters `source` and `sets`
    /// (`unicodeSets`), or taken from what they gave the last time; `None` when its matcher
    /// cannot be made here.
    fn read(
        rx: JsObject,
        regexp: &JsRegExp,
        input: JsString,
        source: &JsObject,
        sets: &JsObject,
        ctx: &mut Context,
    ) -> Option<Target> {
        let known = ctx
            .get_data::<Matchers>()?
            .by_object
            .borrow()
            .get(&rx)
            .cloned();
        let slots = match known {
            Some(slots) => slots,
            None => {
                let slots = Slots::read(&rx, regexp, source, sets, ctx)?;
                let matchers = ctx.get_data::<Matchers>()?;
                #[cfg(test)]
                matchers.reads.set(matchers.reads.get() + 1);
                keep(&matchers.by_object, rx.clone(), slots.clone());
                slots
            }
        };
        Some(Target { rx, input, slots })
    }

    /// `Get(rx, name)` of a flag, as a boolean: what the regex's slot holds (`slot`) when that
    /// is what the `Get` would give, without running it. It would when `rx` has no own `name`
    /// and its prototype still has the built-in getter `getter` there, which reads the slot and
    /// nothing else. The prototype is read again here, not taken from [`Target::of`]'s check: a
    /// parser's getter that ran since (`Symbol.replace`'s lookup, an earlier flag's) may have
    /// changed it. A parser that defined its own (on the regex or the prototype) gets the full
    /// `Get`, which runs it. The full steps cost a lookup up the chain and a getter call (~1,400
    /// instructions natively), twice a global `replace`.
    fn flag(
        &self,
        name: JsString,
        getter: &JsObject,
        slot: bool,
        ctx: &mut Context,
    ) -> JsResult<bool> {
        let key: PropertyKey = name.into();
        let original = !has_own(&self.rx, key.clone())
            && self
                .rx
                .prototype()
                .and_then(|proto| own_getter(&proto, key.clone()))
                .is_some_and(|g| g == *getter);
        if original {
            return Ok(slot);
        }
        Ok(self.rx.get(key, ctx)?.to_boolean())
    }

    /// `String.prototype.replaceAll` step 2.a–b: when `IsRegExp(rx)` (its `Symbol.match`, or
    /// being a regex), a `TypeError` unless its `flags` have `g`.
    fn require_global(&self, ctx: &mut Context) -> JsResult<()> {
        let matcher = self.rx.get(JsSymbol::r#match(), ctx)?;
        if !matcher.is_undefined() && !matcher.to_boolean() {
            return Ok(());
        }
        let flags = self.rx.get(js_string!("flags"), ctx)?;
        if flags.is_null_or_undefined() {
            return Err(JsNativeError::typ()
                .with_message("replaceAll: the regex's flags are null or undefined")
                .into());
        }
        let flags = flags.to_string(ctx)?;
        if flags.as_str().iter().any(|u| u == u16::from(b'g')) {
            Ok(())
        } else {
            Err(JsNativeError::typ()
                .with_message("replaceAll must be called with a global RegExp")
                .into())
        }
    }

    /// Step 2 of `String.prototype.replace`, `match` and `split` with this regex:
    /// `GetMethod(rx, symbol)`, read once. The realm's built-in (`captures[1]`) is answered by
    /// `native` here (which may decline: the built-in then runs); any other method is called
    /// with `call_args`, as the spec does. `None` when the regex has no such method: the string
    /// method's remaining steps (the method this one stands in front of) decide.
    fn by_symbol(
        &self,
        symbol: JsSymbol,
        captures: &Captures,
        call_args: &[JsValue],
        ctx: &mut Context,
        native: impl FnOnce(&Target, &mut Context) -> JsResult<Option<JsValue>>,
    ) -> JsResult<Option<JsValue>> {
        let method = self.rx.get(symbol, ctx)?;
        let Some(method) = method.as_object() else {
            return if method.is_null_or_undefined() {
                Ok(None)
            } else {
                Err(crate::native_method::not_callable())
            };
        };
        if method == captures[1] {
            if let Some(answer) = native(self, ctx)? {
                return Ok(Some(answer));
            }
        } else if !method.is_callable() {
            return Err(crate::native_method::not_callable());
        }
        method
            .call(&self.rx.clone().into(), call_args, ctx)
            .map(Some)
    }

    /// Whether `split` would construct its splitter with the realm's own `RegExp`, and give
    /// it `RegExp.prototype`, without running anything a parser defined:
    /// `SpeciesConstructor(rx, %RegExp%)` finds the prelude's constructor through
    /// `RegExp.prototype.constructor` and its unchanged `Symbol.species` getter, and that
    /// constructor's `prototype` is still `RegExp.prototype`.
    fn splits_with_itself(&self, captures: &Captures) -> bool {
        let [_, _, regexp_proto, _, _, constructor, species, ..] = captures;
        !has_own(&self.rx, js_string!("constructor").into())
            && own_value(regexp_proto, js_string!("constructor").into()).as_ref()
                == Some(constructor)
            && own_value(constructor, js_string!("prototype").into()).as_ref() == Some(regexp_proto)
            && own_getter(constructor, JsSymbol::species().into()).as_ref() == Some(species)
    }

    /// The input's code units: its own (UTF-16), or a Latin-1 input widened once and kept
    /// for the next call on the same string ([`Widened`]).
    fn units(&self, ctx: &Context) -> Units<'_> {
        match self.input.as_str().variant() {
            JsStrVariant::Utf16(s) => Units::Utf16(s),
            JsStrVariant::Latin1(latin1) => match ctx.get_data::<Widened>() {
                Some(widened) => Units::Widened(widened.of(&self.input, latin1)),
                None => Units::Widened(latin1.iter().map(|&b| u16::from(b)).collect()),
            },
        }
    }

    /// `Get(rx, "lastIndex")`. A regex's `lastIndex` is its own data property and cannot be
    /// deleted or made an accessor (it is not configurable), so its storage holds the answer:
    /// read there, without the general lookup's descriptor steps.
    fn last_index(&self, ctx: &mut Context) -> JsResult<JsValue> {
        let own = self.rx.borrow().properties().get(&last_index_key());
        match own.as_ref().and_then(|d| d.value()) {
            Some(value) => Ok(value.clone()),
            None => self.rx.get(last_index_key(), ctx),
        }
    }

    /// `Set(rx, "lastIndex", value, true)`. Writing a writable own data property the value it
    /// holds already (SameValue) changes nothing anyone can see, so it is not written again: a
    /// global regex's loop starts at 0 and ends at 0, which the full step costs ~1,700
    /// instructions to confirm. A non-writable `lastIndex` takes the full step, which throws.
    fn set_last_index(&self, value: impl Into<JsValue>, ctx: &mut Context) -> JsResult<()> {
        let value = value.into();
        let own = self.rx.borrow().properties().get(&last_index_key());
        let unchanged = own.is_some_and(|d| {
            d.writable() == Some(true) && d.value().is_some_and(|v| JsValue::same_value(v, &value))
        });
        if !unchanged {
            self.rx.set(last_index_key(), value, true, ctx)?;
        }
        Ok(())
    }

    /// The matches of a global loop (`RegExp.prototype[Symbol.replace]` and `[Symbol.match]`
    /// with `global` true), each handed to `each`: `lastIndex` set to 0 and the guarded `exec`'s
    /// input cap checked (what its first call would check), then `exec` until it finds
    /// nothing, an empty match moving `lastIndex` past itself. Nothing a parser wrote runs
    /// between these steps, so their writes to `lastIndex` are followed here and only the last
    /// is made, at the end (0 once the last search found nothing; where a search ran out of
    /// budget, the value the steps had reached).
    fn global_matches(
        &self,
        units: &Units<'_>,
        unicode: bool,
        ctx: &mut Context,
        mut each: impl FnMut(regress::Match),
    ) -> JsResult<()> {
        self.set_last_index(0, ctx)?;
        crate::regex_limits::check_regex_input(units.len(), ctx)?;
        let s: &[u16] = units;
        let mut last_index = 0;
        let outcome = loop {
            let (found, written) = match self.search(units, last_index) {
                Ok(step) => step,
                Err(e) => break Err(e),
            };
            if let Some(value) = written {
                last_index = value;
            }
            let Some(m) = found else {
                break Ok(());
            };
            let empty = m.range.is_empty();
            each(m);
            if empty {
                last_index = advance(s, last_index, unicode);
            }
        };
        let written = self.set_last_index(last_index, ctx);
        outcome.and(written)
    }

    /// `RegExp.prototype[Symbol.replace]` for a string replacement, from step 7 on.
    fn replace(
        &self,
        template: &JsString,
        captures: &Captures,
        ctx: &mut Context,
    ) -> JsResult<JsValue> {
        let units = self.units(ctx);
        // 7–9, as V8 takes them (the spec before ES2022, which Node still follows): `global`
        // and, for a global regex, `unicode` read as properties decide the loop; the current
        // spec reads `flags` instead, which a parser can tell apart by a getter.
        let [.., global_getter, unicode_getter] = captures;
        let global = self.flag(js_string!("global"), global_getter, self.slots.global, ctx)?;
        let mut found = Vec::new();
        if global {
            let unicode = self.flag(
                js_string!("unicode"),
                unicode_getter,
                self.slots.unicode,
                ctx,
            )? || self.slots.unicode_sets;
            self.global_matches(&units, unicode, ctx, |m| found.push(m))?;
        } else {
            crate::regex_limits::check_regex_input(units.len(), ctx)?;
            found.extend(self.exec(&units, ctx)?);
        }
        let s: &[u16] = &units;
        let template = template.to_vec();
        let mut out: Vec<u16> = Vec::with_capacity(s.len());
        let mut next = 0;
        for m in &found {
            let position = m.range.start.min(s.len());
            if position >= next {
                out.extend_from_slice(s.get(next..position).unwrap_or_default());
                substitute(&mut out, &template, s, m);
                next = position + m.range.len();
            }
        }
        if next < s.len() {
            out.extend_from_slice(s.get(next..).unwrap_or_default());
        }
        Ok(JsString::from(&out[..]).into())
    }

    /// `RegExp.prototype[Symbol.match]`, as V8 takes it: `global`, then for a global regex
    /// `unicode` and `unicodeSets`, read as properties. A regex that is not global answers
    /// with `exec`'s array, as the spec says (the guarded `exec` makes it).
    fn match_all_or_first(&self, captures: &Captures, ctx: &mut Context) -> JsResult<JsValue> {
        let [_, _, _, _, sets_getter, .., global_getter, unicode_getter] = captures;
        if !self.flag(js_string!("global"), global_getter, self.slots.global, ctx)? {
            let exec = self.rx.get(js_string!("exec"), ctx)?;
            let exec = exec
                .as_object()
                .ok_or_else(crate::native_method::not_callable)?;
            return exec.call(&self.rx.clone().into(), &[self.input.clone().into()], ctx);
        }
        let unicode = self.flag(
            js_string!("unicode"),
            unicode_getter,
            self.slots.unicode,
            ctx,
        )?;
        let sets = self.flag(
            js_string!("unicodeSets"),
            sets_getter,
            self.slots.unicode_sets,
            ctx,
        )?;
        let unicode = sets || unicode;
        let units = self.units(ctx);
        let s: &[u16] = &units;
        let mut found = Vec::new();
        self.global_matches(&units, unicode, ctx, |m| {
            found.push(JsValue::from(JsString::from(
                s.get(m.range).unwrap_or_default(),
            )));
        })?;
        if found.is_empty() {
            return Ok(JsValue::null());
        }
        Ok(JsArray::from_iter(found, ctx).into())
    }

    /// `RegExp.prototype[Symbol.split]` from step 5 on (the constructor is the realm's own:
    /// [`splits_with_itself`](Self::splits_with_itself)); `None` when the splitter would not
    /// be this regex with `y` added (`flags` read otherwise than its own, or the screen refuses
    /// the new flags): the built-in then runs, from the start.
    ///
    /// The splitter is sticky: it matches at `q` or not at all, and the spec tries every `q`
    /// in turn. Here one search from `q` finds the first place at or after it where the regex
    /// matches; no `q` before that place can match, so the loop goes there at once.
    fn split(&self, limit: &JsValue, ctx: &mut Context) -> JsResult<Option<JsValue>> {
        // 5–7: flags, read as the spec reads them; the splitter is the regex's source with
        // those flags and `y`, compiled here (cached) when they are not its own.
        let mut new_flags = self
            .rx
            .get(js_string!("flags"), ctx)?
            .to_string(ctx)?
            .to_std_string_escaped();
        let Some(flags) = compile_flags(&new_flags) else {
            return Ok(None);
        };
        if !new_flags.contains('y') {
            new_flags.push('y');
        }
        let unicode = flags.unicode || flags.unicode_sets;
        let Some(splitter) = matcher(self.slots.source.clone(), flags, ctx) else {
            return Ok(None);
        };
        // The prelude's constructor screens the pattern with the new flags.
        let (max_source, shapes) = crate::regex_limits::regex_limits(ctx);
        let source = self.slots.source.to_std_string_escaped();
        if crate::regex_screen::screen_pattern(&source, &new_flags, max_source, shapes).is_err() {
            return Ok(None);
        }
        // 10: Construct(C, « rx, newFlags »): the intrinsic constructor asks IsRegExp(rx).
        self.rx.get(JsSymbol::r#match(), ctx)?;
        // 13–14.
        let lim = if limit.is_undefined() {
            u32::MAX
        } else {
            limit.to_u32(ctx)?
        };
        if lim == 0 {
            return Ok(Some(JsArray::new(ctx)?.into()));
        }
        let units = self.units(ctx);
        let s: &[u16] = &units;
        crate::regex_limits::check_regex_input(s.len(), ctx)?;
        let size = s.len();
        let utf16 = unicode && matches!(units, Units::Utf16(_));
        let find = |at: usize| -> JsResult<Option<regress::Match>> {
            let found = if utf16 {
                splitter.find_from_utf16(s, at).next()
            } else {
                splitter.find_from_ucs2(s, at).next()
            };
            charge_search(at, found.as_ref(), size)?;
            Ok(found)
        };
        let piece =
            |r: std::ops::Range<usize>| JsValue::from(JsString::from(s.get(r).unwrap_or_default()));
        let full = |parts: &Vec<JsValue>| u32::try_from(parts.len()).map_or(true, |n| n >= lim);
        let mut parts: Vec<JsValue> = Vec::new();
        if size == 0 {
            if find(0)?.is_none_or(|m| m.start() != 0) {
                parts.push(piece(0..0));
            }
            return Ok(Some(JsArray::from_iter(parts, ctx).into()));
        }
        let (mut p, mut q) = (0, 0);
        while q < size {
            let Some(m) = find(q)?.filter(|m| m.start() < size) else {
                break;
            };
            q = m.start();
            let e = m.end().min(size);
            if e == p {
                q = usize::try_from(advance(s, q as u64, unicode)).unwrap_or(usize::MAX);
                continue;
            }
            parts.push(piece(p..q));
            if full(&parts) {
                return Ok(Some(JsArray::from_iter(parts, ctx).into()));
            }
            p = e;
            for capture in &m.captures {
                parts.push(capture.clone().map_or(JsValue::undefined(), piece));
                if full(&parts) {
                    return Ok(Some(JsArray::from_iter(parts, ctx).into()));
                }
            }
            q = p;
        }
        parts.push(piece(p..size));
        Ok(Some(JsArray::from_iter(parts, ctx).into()))
    }

    /// `RegExp.prototype.exec` on a string: `RegExpBuiltinExec`'s result array, or `null`.
    fn exec_array(&self, ctx: &mut Context) -> JsResult<JsValue> {
        let units = self.units(ctx);
        crate::regex_limits::check_regex_input(units.len(), ctx)?;
        let Some(m) = self.exec(&units, ctx)? else {
            return Ok(JsValue::null());
        };
        let s: &[u16] = &units;
        let piece =
            |r: std::ops::Range<usize>| JsValue::from(JsString::from(s.get(r).unwrap_or_default()));
        let mut items = Vec::with_capacity(m.captures.len() + 1);
        items.push(piece(m.range.clone()));
        items.extend(
            m.captures
                .iter()
                .map(|c| c.clone().map_or(JsValue::undefined(), piece)),
        );
        let array = JsArray::from_iter(items, ctx);
        array.create_data_property_or_throw(js_string!("index"), m.start(), ctx)?;
        array.create_data_property_or_throw(js_string!("input"), self.input.clone(), ctx)?;
        let mut named = m.named_groups().peekable();
        let groups = if named.peek().is_some() {
            let groups = JsObject::with_null_proto();
            for (name, range) in named {
                let value = range.map_or(JsValue::undefined(), piece);
                groups.create_data_property_or_throw(JsString::from(name), value, ctx)?;
            }
            JsValue::from(groups)
        } else {
            JsValue::undefined()
        };
        array.create_data_property_or_throw(js_string!("groups"), groups, ctx)?;
        Ok(array.into())
    }

    /// `RegExpBuiltinExec`, as boa runs it, without the result array: the match.
    fn exec(&self, units: &Units<'_>, ctx: &mut Context) -> JsResult<Option<regress::Match>> {
        let last_index = self.last_index(ctx)?.to_length(ctx)?;
        let (found, written) = self.search(units, last_index)?;
        if let Some(value) = written {
            self.set_last_index(value, ctx)?;
        }
        Ok(found)
    }

    /// [`exec`](Self::exec)'s steps after reading `lastIndex` (`last_index`: its `ToLength`):
    /// the match, and what they write to `lastIndex` (`None`: nothing, for a regex neither
    /// global nor sticky).
    fn search(
        &self,
        units: &Units<'_>,
        last_index: u64,
    ) -> JsResult<(Option<regress::Match>, Option<u64>)> {
        let s: &[u16] = units;
        let stateful = self.slots.global || self.slots.sticky;
        let mut at = if stateful {
            usize::try_from(last_index).unwrap_or(usize::MAX)
        } else {
            0
        };
        // Step 13.b: with full Unicode, a `lastIndex` inside a surrogate pair stands for the
        // pair (V8 does so; boa's own `exec` starts inside it and misses the pair).
        if self.slots.full_unicode()
            && at > 0
            && matches!(s.get(at), Some(0xDC00..=0xDFFF))
            && matches!(s.get(at - 1), Some(0xD800..=0xDBFF))
        {
            at -= 1;
        }
        let written = |value: usize| stateful.then(|| u64::try_from(value).unwrap_or(u64::MAX));
        if at > s.len() {
            return Ok((None, written(0)));
        }
        // As boa: a Latin-1 input as UCS-2 whatever the flags.
        let found = if self.slots.full_unicode() && matches!(units, Units::Utf16(_)) {
            self.slots.matcher.find_from_utf16(s, at).next()
        } else {
            self.slots.matcher.find_from_ucs2(s, at).next()
        };
        charge_search(at, found.as_ref(), s.len())?;
        match found {
            Some(m) if !self.slots.sticky || m.start() == at => {
                let end = written(m.end());
                Ok((Some(m), end))
            }
            _ => Ok((None, written(0))),
        }
    }
}

/// Charges one search from `at` to the call's work budget: the code units it scanned (to the
/// match's end, or to the end of the input) and [`SEARCH_CYCLES`](crate::clock::SEARCH_CYCLES).
/// Past the budget, an error the guest cannot catch ends the call as `budget_exceeded`: a
/// global `replace` or a `split` over a long line with many matches is counted work like the
/// parser's own loops, not a native step only the clock can stop.
fn charge_search(at: usize, found: Option<&regress::Match>, len: usize) -> JsResult<()> {
    let end = found.map_or(len, regress::Match::end);
    let scanned = u64::try_from(end.saturating_sub(at)).unwrap_or(u64::MAX);
    crate::clock::charge_native(scanned.saturating_add(crate::clock::SEARCH_CYCLES))
}

/// An input's code units: its own (UTF-16) or a widened copy (Latin-1).
enum Units<'a> {
    Utf16(&'a [u16]),
    Widened(Rc<[u16]>),
}

impl std::ops::Deref for Units<'_> {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        match self {
            Units::Utf16(s) => s,
            Units::Widened(v) => v,
        }
    }
}

/// The last Latin-1 string a method ran on, widened to UTF-16 code units for regress (boa
/// keeps Latin-1 strings a byte a character). A parser's `while ((m = re.exec(line)))` calls
/// `exec` once a match on the same line: widening it each time made that loop quadratic in the
/// line's length. The string is kept alive with its copy, so a string at the same address is
/// the same string.
#[derive(Default)]
struct Widened(RefCell<Option<(JsString, Rc<[u16]>)>>);

impl Widened {
    /// `input`'s code units (`latin1` is its storage).
    fn of(&self, input: &JsString, latin1: &[u8]) -> Rc<[u16]> {
        let same = |kept: &JsString| {
            matches!(kept.as_str().variant(),
                JsStrVariant::Latin1(k) if k.as_ptr() == latin1.as_ptr() && k.len() == latin1.len())
        };
        if let Some((kept, units)) = self.0.borrow().as_ref() {
            if same(kept) {
                return Rc::clone(units);
            }
        }
        let units: Rc<[u16]> = latin1.iter().map(|&b| u16::from(b)).collect();
        *self.0.borrow_mut() = Some((input.clone(), Rc::clone(&units)));
        units
    }
}

/// The matcher options of a flags string, `None` for one the `RegExp` constructor refuses (a
/// letter it does not know, or one twice).
fn compile_flags(flags: &str) -> Option<Flags> {
    let mut seen = String::new();
    for c in flags.chars() {
        if !"dgimsuvy".contains(c) || seen.contains(c) {
            return None;
        }
        seen.push(c);
    }
    if seen.contains('u') && seen.contains('v') {
        return None;
    }
    Some(Flags {
        icase: seen.contains('i'),
        multiline: seen.contains('m'),
        dot_all: seen.contains('s'),
        unicode: seen.contains('u'),
        unicode_sets: seen.contains('v'),
        ..Flags::default()
    })
}

/// The compiled matcher of a regex whose `source` getter gave `escaped`, from the realm's cache
/// or compiled now; `None` when its original source cannot be told from `escaped` exactly.
fn matcher(escaped: JsString, flags: Flags, ctx: &Context) -> Option<Rc<Regex>> {
    let bits = u8::from(flags.icase)
        | u8::from(flags.multiline) << 1
        | u8::from(flags.dot_all) << 2
        | u8::from(flags.unicode) << 3
        | u8::from(flags.unicode_sets) << 4;
    let key = (escaped, bits);
    let cache = &ctx.get_data::<Matchers>()?.by_source;
    if let Some(m) = cache.borrow().get(&key) {
        return Some(Rc::clone(m));
    }
    let source = JsString::from(original_source(&key.0.to_std_string().ok()?)?.as_str());
    // The pattern as boa hands it to regress in Unicode mode: code points, through the same
    // iterator type, so the wasm build has one copy of regress's parser, not two. Without `u`
    // boa gives UTF-16 code units instead, which are the same numbers unless the pattern has a
    // character outside the BMP: such a pattern is left to boa.
    if !(flags.unicode || flags.unicode_sets) && source.code_points().any(|c| c.as_u32() > 0xFFFF) {
        return None;
    }
    let compiled =
        Rc::new(Regex::from_unicode(source.code_points().map(CodePoint::as_u32), flags).ok()?);
    keep(cache, key, Rc::clone(&compiled));
    Some(compiled)
}

/// Puts `key` in one of the realm's caches ([`Matchers`]); a cache that holds
/// [`CACHED_MATCHERS`] entries already starts again.
fn keep<K: std::hash::Hash + Eq, V>(cache: &RefCell<FxHashMap<K, V>>, key: K, value: V) {
    let mut cache = cache.borrow_mut();
    if cache.len() >= CACHED_MATCHERS {
        cache.clear();
    }
    cache.insert(key, value);
}

/// The source a regex was made with, from what its `source` getter gives: boa writes each `/`
/// as `\/` and each line terminator as its escape (`\n`, `\r`, `\u2028`, `\u2029`). A `/` is
/// undone exactly; an escape stands for its terminator as well as the terminator did, except
/// after a backslash of the source (`\` then a line feed), which the written form cannot be
/// told from an escaped backslash followed by `n`: `None` there.
fn original_source(escaped: &str) -> Option<String> {
    if ["\\\\n", "\\\\r", "\\\\u2028", "\\\\u2029"]
        .iter()
        .any(|s| escaped.contains(s))
    {
        return None;
    }
    let mut out = String::with_capacity(escaped.len());
    for c in escaped.chars() {
        if c == '/' && out.pop() != Some('\\') {
            return None;
        }
        out.push(c);
    }
    Some(out)
}

/// The key `lastIndex` (a string key: no array-index check to make it).
fn last_index_key() -> PropertyKey {
    PropertyKey::String(js_string!("lastIndex"))
}

/// `AdvanceStringIndex(S, index, unicode)`.
fn advance(s: &[u16], index: u64, unicode: bool) -> u64 {
    let at = usize::try_from(index).unwrap_or(usize::MAX);
    let pair = unicode
        && matches!(s.get(at), Some(0xD800..=0xDBFF))
        && matches!(s.get(at.saturating_add(1)), Some(0xDC00..=0xDFFF));
    index + if pair { 2 } else { 1 }
}

/// `GetSubstitution(matched, str, position, captures, undefined, template)`, appended to `out`
/// (no named groups: a template with `$<` is not taken).
fn substitute(out: &mut Vec<u16>, template: &[u16], s: &[u16], m: &regress::Match) {
    let dollar = u16::from(b'$');
    let digit = |u: Option<&u16>| {
        u.filter(|u| (u16::from(b'0')..=u16::from(b'9')).contains(u))
            .map(|u| usize::from(u - u16::from(b'0')))
    };
    let piece = |r: Option<std::ops::Range<usize>>| -> &[u16] {
        r.and_then(|r| s.get(r)).unwrap_or_default()
    };
    let end = m.range.end.min(s.len());
    let start = m.range.start.min(end);
    let mut i = 0;
    while let Some(&u) = template.get(i) {
        if u != dollar {
            out.push(u);
            i += 1;
            continue;
        }
        let next = template.get(i + 1).copied();
        match next.and_then(|n| u8::try_from(n).ok()) {
            Some(b'$') => {
                out.push(dollar);
                i += 2;
            }
            Some(b'&') => {
                out.extend_from_slice(piece(Some(start..end)));
                i += 2;
            }
            Some(b'`') => {
                out.extend_from_slice(piece(Some(0..start)));
                i += 2;
            }
            Some(b'\'') => {
                out.extend_from_slice(piece(Some(end..s.len())));
                i += 2;
            }
            Some(b'0'..=b'9') => {
                let count = m.captures.len();
                let first = digit(template.get(i + 1)).unwrap_or(0);
                let (index, width) = match digit(template.get(i + 2)) {
                    Some(second) if first * 10 + second <= count => (first * 10 + second, 2),
                    _ => (first, 1),
                };
                if (1..=count).contains(&index) {
                    let capture = m.captures.get(index - 1).cloned().flatten();
                    out.extend_from_slice(piece(capture));
                } else {
                    out.extend_from_slice(template.get(i..i + 1 + width).unwrap_or_default());
                }
                i += 1 + width;
            }
            _ => {
                out.push(dollar);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boa_engine::Source;

    /// A context with this module's methods, after running `script`: its result and how many
    /// times a regex's slots were read.
    fn run(script: &str) -> (JsValue, usize) {
        let mut ctx = Context::default();
        install(&mut ctx).unwrap();
        let value = ctx.eval(Source::from_bytes(script)).unwrap();
        let reads = ctx.get_data::<Matchers>().unwrap().reads.get();
        (value, reads)
    }

    #[test]
    fn last_index_is_read_and_written_as_by_get_and_set() {
        let table = [
            // A frozen global regex: the loop's first write throws, even of the 0 it holds.
            ("const r = Object.freeze(/a/g);\n\
              try { 'aa'.replace(r, 'b'); 'no error' } catch (e) { e.constructor.name }", "TypeError"),
            // -0 is not the 0 it is set to: written, as +0.
            ("const r = /a/g; r.lastIndex = -0; 'bb'.replace(r, 'c'); String(Object.is(r.lastIndex, 0))", "true"),
            // The value is converted once a call (its valueOf runs), whatever is written back.
            ("let n = 0; const r = /a/y; r.lastIndex = { valueOf() { n++; return 1; } };\n\
              `${r.test('ba')} ${r.lastIndex} ${n}`", "true 2 1"),
            // A non-global, non-sticky regex never writes it.
            ("const r = Object.freeze(/a/); `${r.test('a')} ${'xa'.replace(r, 'b')}`", "true xb"),
        ];
        for (script, expected) in table {
            let (value, _) = run(script);
            assert_eq!(
                value
                    .as_string()
                    .map(|s| s.to_std_string_escaped())
                    .as_deref(),
                Some(expected),
                "{script}"
            );
        }
    }

    #[test]
    fn a_regex_objects_slots_are_read_once() {
        // A module-level regex used on every line: its slots are read the first time only,
        // and every call still finds its own answer (lastIndex is read on each).
        let (value, reads) = run("const r = /a(b)/g; let out = '';\n\
            for (let i = 0; i < 100; i++) { out += 'xab'.repeat(i % 3).replace(r, '$1'); r.lastIndex = 0; }\n\
            out.length");
        assert_eq!(value, JsValue::from(198));
        assert_eq!(reads, 1);
        // A literal evaluated on every line is a new object each time: read each time.
        let (value, reads) = run("let n = 0;\n\
            for (let i = 0; i < 100; i++) if (/^x/.test('x' + i)) n++;\n\
            n");
        assert_eq!(value, JsValue::from(100));
        assert_eq!(reads, 100);
        // Past the cache's bound it starts again and answers the same.
        let (value, reads) = run("const rs = Array.from({ length: 70 }, (_, i) => new RegExp('a' + i));\n\
            let n = 0;\n\
            for (let k = 0; k < 3; k++) for (let i = 0; i < 70; i++) if (rs[i].test('a' + i)) n++;\n\
            n");
        assert_eq!(value, JsValue::from(210));
        assert!((70..=210).contains(&reads), "{reads}");
    }

    #[test]
    fn the_source_a_regex_was_made_with_is_read_back_from_its_escaped_form() {
        assert_eq!(original_source("a\\/b").as_deref(), Some("a/b"));
        assert_eq!(original_source("a\\\\/b").as_deref(), Some("a\\/b"));
        assert_eq!(original_source("[^\\/]+").as_deref(), Some("[^/]+"));
        assert_eq!(original_source("\\n|\\r").as_deref(), Some("\\n|\\r"));
        // `\` then a line feed, or an escaped backslash then `n`: not told apart.
        assert_eq!(original_source("\\\\n"), None);
        assert_eq!(original_source("a/b"), None);
    }
}
