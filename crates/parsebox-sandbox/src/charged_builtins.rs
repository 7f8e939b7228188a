//! The built-ins that search or copy a whole string or array in one native call, charged to
//! the call's work budget by what they read and write.
//!
//! boa counts its bytecode, not the work inside a native built-in: `big.indexOf("z")` over a
//! million code units is one instruction. A loop of such calls counts a few cycles a turn
//! while each turn reads the whole string, and since the clock backstop moves on whenever the
//! engine counts work (SPEC §11), nothing would stop it. Each method here is put in front of
//! boa's own and charges ([`charge_native`]), once the
//! call returns, for what it was given to read (the code units of `this`, or the elements of
//! an array) and what it wrote (the code units or elements of its result), each
//! weighed ([`METHODS`]) so the charge follows the time it takes at the rate boa runs bytecode.
//! A string `indexOf` or `includes` (a tokenizer's `indexOf(sep, from)` loop) is searched
//! natively and charged for the code units it compared (`string_search.rs`), so walking a
//! line with it costs the line once, as it does in V8.
//!
//! The regex methods charge their own searches (`regex_methods.rs`) and charge the calls they
//! hand on with [`call_charged`]; `JSON.parse` charges what it reads (`json.rs`).

use boa_engine::object::JsObject;
use boa_engine::{js_string, Context, JsResult, JsString, JsValue, NativeFunction};

use crate::clock::charge_native;

/// How a method's work is charged: cycles per eighth of what `this` holds and of what the
/// result holds (code units of a string, elements of an array), or a native search.
#[derive(Clone, Copy)]
enum Charge {
    /// `this_eighths` cycles per 8 units or elements of `this` and `result_eighths` per 8 of
    /// the result.
    Sizes {
        this_eighths: u64,
        result_eighths: u64,
    },
    /// `String.prototype.indexOf`: searched natively from its start and charged the code
    /// units compared (`string_search.rs`).
    IndexOf,
    /// `String.prototype.includes`, the same way.
    Includes,
    /// `Array.prototype.sort` and `toSorted` without a comparator, which compare natively:
    /// [`SORT_CYCLES`] per element and level of the merge (`n × ⌈log₂ n⌉`). With a comparator
    /// the comparisons are the parser's bytecode, counted as such.
    Sort,
}

/// Cycles per element and merge level of a native sort: 90,000 numeric strings sorted in
/// ~150 ms natively (`tests/bench/native-ops.js`, `toSorted`), under a bytecode loop's rate.
const SORT_CYCLES: u64 = 20;

/// The charged methods: holder, name, and cycles per 8 units or elements of `this` and of the
/// result. Calibrated natively (`--example work_rate`, five calls a line over 900,000 units
/// or elements, beside a bytecode loop's ~210k cycles per wall millisecond) so that each is
/// charged at about bytecode's rate and never above it: boa copies a string at memory speed
/// (`repeat`: a cycle per 8 units) but touches an array element in ~150 ns (`slice`: 32
/// cycles an element), `JSON.stringify` writes a unit in ~40 ns (8 cycles), the URI coders
/// ~3 cycles a unit they write. `slice`,
/// `substring` and `trim` share the string they cut (boa's slices) and are not charged.
const METHODS: [(Holder, &str, u64, u64); 35] = [
    (Holder::StringProto, "lastIndexOf", 40, 0),
    (Holder::StringProto, "toUpperCase", 8, 8),
    (Holder::StringProto, "toLowerCase", 8, 8),
    (Holder::StringProto, "toLocaleUpperCase", 8, 8),
    (Holder::StringProto, "toLocaleLowerCase", 8, 8),
    (Holder::StringProto, "normalize", 8, 8),
    (Holder::StringProto, "localeCompare", 8, 0),
    (Holder::StringProto, "concat", 0, 1),
    (Holder::StringProto, "repeat", 0, 1),
    (Holder::StringProto, "padStart", 0, 3),
    (Holder::StringProto, "padEnd", 0, 3),
    (Holder::ArrayProto, "join", 192, 0),
    (Holder::ArrayProto, "toString", 192, 0),
    (Holder::ArrayProto, "indexOf", 88, 0),
    (Holder::ArrayProto, "lastIndexOf", 88, 0),
    (Holder::ArrayProto, "includes", 88, 0),
    (Holder::ArrayProto, "slice", 0, 256),
    (Holder::ArrayProto, "concat", 0, 256),
    (Holder::ArrayProto, "flat", 0, 256),
    (Holder::ArrayProto, "toReversed", 0, 256),
    (Holder::ArrayProto, "toSpliced", 0, 256),
    (Holder::ArrayProto, "with", 0, 256),
    (Holder::ArrayProto, "reverse", 256, 0),
    (Holder::ArrayProto, "fill", 256, 0),
    (Holder::ArrayProto, "splice", 256, 0),
    (Holder::ArrayProto, "copyWithin", 256, 0),
    (Holder::Json, "stringify", 0, 64),
    (Holder::Object, "keys", 0, 200),
    (Holder::Object, "values", 0, 200),
    (Holder::Object, "entries", 0, 200),
    (Holder::String, "fromCharCode", 0, 64),
    (Holder::Global, "encodeURIComponent", 0, 24),
    (Holder::Global, "encodeURI", 0, 24),
    (Holder::Global, "decodeURIComponent", 0, 24),
    (Holder::Global, "decodeURI", 0, 24),
];

/// Where a charged method lives.
#[derive(Clone, Copy)]
enum Holder {
    Global,
    String,
    StringProto,
    ArrayProto,
    Json,
    Object,
}

/// Puts the charged methods in front of the realm's built-ins, before the prelude runs: where
/// the prelude puts a bytecode method in front of one (`join`, `indexOf` of an array, `sort`,
/// `repeat`, `padStart` …), it captures the charged method and calls it, so a parser's
/// callbacks (a comparator, a `toString`) are still called from bytecode, which the budget
/// counts as it runs. A native wrapper in front of the prelude's bytecode would run them
/// inside a native call, where nothing is counted until it returns.
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let constructors = ctx.intrinsics().constructors();
    let global = ctx.global_object();
    let holder_of = |h: Holder| match h {
        Holder::Global => global.clone(),
        Holder::String => constructors.string().constructor(),
        Holder::StringProto => constructors.string().prototype(),
        Holder::ArrayProto => constructors.array().prototype(),
        Holder::Json => ctx.intrinsics().objects().json(),
        Holder::Object => constructors.object().constructor(),
    };
    let mut wraps: Vec<(JsObject, &str, Charge)> = METHODS
        .iter()
        .map(|&(h, name, this_eighths, result_eighths)| {
            let charge = Charge::Sizes {
                this_eighths,
                result_eighths,
            };
            (holder_of(h), name, charge)
        })
        .collect();
    let string_proto = holder_of(Holder::StringProto);
    wraps.push((string_proto.clone(), "indexOf", Charge::IndexOf));
    wraps.push((string_proto, "includes", Charge::Includes));
    let array_proto = holder_of(Holder::ArrayProto);
    wraps.push((array_proto.clone(), "sort", Charge::Sort));
    wraps.push((array_proto, "toSorted", Charge::Sort));
    for (holder, name, charge) in wraps {
        wrap(&holder, name, charge, ctx)?;
    }
    Ok(())
}

/// Puts a charging method in front of `holder[name]`, with its name and length.
fn wrap(holder: &JsObject, name: &str, charge: Charge, ctx: &mut Context) -> JsResult<()> {
    let key = JsString::from(name);
    let original = holder.get(key.clone(), ctx)?.as_object().ok_or_else(|| {
        boa_engine::JsNativeError::typ().with_message(format!("built-in {name} missing"))
    })?;
    let length = original
        .get(js_string!("length"), ctx)?
        .as_number()
        .map_or(0, |n| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let n = n.max(0.0) as usize;
            n
        });
    let function = NativeFunction::from_copy_closure_with_captures(
        move |this, args, original: &JsObject, ctx| match charge {
            Charge::Sizes {
                this_eighths,
                result_eighths,
            } => call_weighed(original, this, args, (this_eighths, result_eighths), ctx),
            Charge::IndexOf => crate::string_search::index_of(this, args)
                .unwrap_or_else(|| call_charged(original, this, args, ctx)),
            Charge::Includes => crate::string_search::includes(this, args)
                .unwrap_or_else(|| call_charged(original, this, args, ctx)),
            Charge::Sort => {
                let result = original.call(this, args, ctx)?;
                if args.first().is_none_or(JsValue::is_undefined) {
                    let n = size_of(&result, ctx);
                    let levels = u64::from(n.max(1).next_power_of_two().trailing_zeros());
                    charge_native(n.saturating_mul(levels).saturating_mul(SORT_CYCLES))?;
                }
                Ok(result)
            }
        },
        original,
    );
    crate::native_method::define_native(holder, key, length, function, ctx)
}

/// Calls `f`, then charges `eighths.0` cycles per 8 of what `this` holds and `eighths.1` per
/// 8 of what its result holds. After the call: a call the method refuses (the prelude's
/// length caps throw a `RangeError` before touching a huge sparse array) did no work.
fn call_weighed(
    f: &JsObject,
    this: &JsValue,
    args: &[JsValue],
    (this_eighths, result_eighths): (u64, u64),
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let result = f.call(this, args, ctx)?;
    let read = weighed(size_of(this, ctx), this_eighths);
    let written = weighed(size_of(&result, ctx), result_eighths);
    charge_native(read.saturating_add(written))?;
    Ok(result)
}

/// `size × eighths / 8`, at least one cycle for anything held and weighed.
fn weighed(size: u64, eighths: u64) -> u64 {
    if size == 0 || eighths == 0 {
        0
    } else {
        (size.saturating_mul(eighths) / 8).max(1)
    }
}

/// Calls `f` on `this` with `args`, charging a cycle a unit or element of what `this` holds
/// and of what the result holds: the calls the regex and string methods hand on
/// (boa's `split`, `replace` by a string …), which read `this` and write their result.
///
/// # Errors
/// The call's own errors, and the budget's once it is spent.
pub(crate) fn call_charged(
    f: &JsObject,
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    call_weighed(f, this, args, (8, 8), ctx)
}

/// The code units of a string (or of a `String` object's own string), the elements of an
/// array; nothing for any other value. Reads no property a parser can define.
fn size_of(value: &JsValue, ctx: &mut Context) -> u64 {
    if let Some(s) = value.as_string() {
        return s.len() as u64;
    }
    let Some(object) = value.as_object() else {
        return 0;
    };
    if let Some(s) = object.downcast_ref::<JsString>() {
        return s.len() as u64;
    }
    if object.is_array() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return object
            .get(js_string!("length"), ctx)
            .ok()
            .and_then(|n| n.as_number())
            .map_or(0, |n| n.max(0.0) as u64);
    }
    0
}
