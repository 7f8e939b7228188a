//! `String.prototype.indexOf`, `includes` and `split` by a string, in one pass over the string.
//!
//! boa's `StringIndexOf` walks a window iterator and skips to `fromIndex` one window at a time,
//! so `s.indexOf(sep, from)` costs `from` besides the search, and boa's `split` by a string
//! calls it once a piece: a tokenizer's `indexOf` loop, or `split(" ")`, is quadratic in the
//! line (40,000 pieces: 681 ms natively, where `split(/ /)` takes 5 ms). Here the search
//! starts at `from` and each call is charged for the code units it compared ([`charge_native`]),
//! which is then the work it did. Both take only calls that observe nothing (a string `this`
//! and string arguments, a number or nothing for the rest); every other call goes to the
//! method there before, charged by what it reads and writes.

use boa_engine::object::builtins::JsArray;
use boa_engine::object::JsObject;
use boa_engine::string::JsStrVariant;
use boa_engine::{Context, JsResult, JsStr, JsString, JsSymbol, JsValue};

use crate::clock::charge_native;

/// Code units a search compares per cycle charged: the search below runs at memory speed
/// (~2.7 million code units per wall millisecond natively, `--example work_rate`), so a cycle
/// per 16 puts it near bytecode's ~210k cycles per wall millisecond.
const UNITS_PER_CYCLE: u64 = 16;

/// Where `needle` first occurs in `hay` at or after `from`, and the cycles the search is
/// charged: the code units it compared, [`UNITS_PER_CYCLE`] to a cycle, at least one.
pub(crate) fn find(hay: JsStr<'_>, needle: JsStr<'_>, from: usize) -> (Option<usize>, u64) {
    let (found, compared) = find_any(hay, needle, from);
    (found, compared / UNITS_PER_CYCLE + 1)
}

/// [`find`] with the code units compared.
fn find_any(hay: JsStr<'_>, needle: JsStr<'_>, from: usize) -> (Option<usize>, u64) {
    match (hay.variant(), needle.variant()) {
        (JsStrVariant::Latin1(h), JsStrVariant::Latin1(n)) => find_units(h, n, from),
        (JsStrVariant::Latin1(h), JsStrVariant::Utf16(n)) => find_units(h, n, from),
        (JsStrVariant::Utf16(h), JsStrVariant::Latin1(n)) => find_units(h, n, from),
        (JsStrVariant::Utf16(h), JsStrVariant::Utf16(n)) => find_units(h, n, from),
    }
}

/// [`find`] over code units of either width.
fn find_units<H, N>(hay: &[H], needle: &[N], from: usize) -> (Option<usize>, u64)
where
    H: Copy + Into<u16>,
    N: Copy + Into<u16>,
{
    let Some((&first, rest)) = needle.split_first() else {
        return ((from <= hay.len()).then_some(from), 1);
    };
    let first: u16 = first.into();
    let Some(tail) = hay.get(from..) else {
        return (None, 1);
    };
    let mut compared: u64 = 1;
    for (offset, window) in tail.windows(needle.len()).enumerate() {
        compared += 1;
        let Some((&head, window_rest)) = window.split_first() else {
            break;
        };
        if head.into() == first {
            let same = window_rest
                .iter()
                .zip(rest)
                .take_while(|&(&h, &n)| h.into() == n.into())
                .count();
            compared += same as u64;
            if same == rest.len() {
                return (Some(from + offset), compared);
            }
        }
    }
    (None, compared)
}

/// `ToIntegerOrInfinity(position)` clamped to `0..=len`, for a number or `undefined`; `None`
/// for anything whose conversion could run a parser's code.
fn position(value: Option<&JsValue>, len: usize) -> Option<usize> {
    let n = match value {
        None => 0.0,
        Some(v) if v.is_undefined() => 0.0,
        Some(v) => v.as_number()?,
    };
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let at = if n.is_nan() {
        0
    } else {
        n.trunc().clamp(0.0, len as f64) as usize
    };
    Some(at)
}

/// `String.prototype.indexOf(searchString, position)` on a string with a string, in one pass
/// from `position`; `None` for a call it does not take.
pub(crate) fn index_of(this: &JsValue, args: &[JsValue]) -> Option<JsResult<JsValue>> {
    search(this, args, |found| {
        #[allow(clippy::cast_precision_loss)]
        let at = found.map_or(-1.0, |i| i as f64);
        JsValue::from(at)
    })
}

/// `String.prototype.includes(searchString, position)` on a string with a string (which is
/// never a regex, so nothing is observed), in one pass from `position`.
pub(crate) fn includes(this: &JsValue, args: &[JsValue]) -> Option<JsResult<JsValue>> {
    search(this, args, |found| JsValue::from(found.is_some()))
}

/// The search `indexOf` and `includes` share: `args[0]` in the string `this` from the position
/// `args[1]`, charged what it compared, answered by `answer` of where it was found.
fn search(
    this: &JsValue,
    args: &[JsValue],
    answer: impl FnOnce(Option<usize>) -> JsValue,
) -> Option<JsResult<JsValue>> {
    let hay = this.as_string()?;
    let needle = args.first()?.as_string()?;
    let from = position(args.get(1), hay.len())?;
    let (found, cycles) = find(hay.as_str(), needle.as_str(), from);
    Some(charge_native(cycles).map(|()| answer(found)))
}

/// `String.prototype.split(separator, limit)` with a string separator. When a parser put a
/// `Symbol.split` where the spec's `GetMethod(separator, @@split)` finds it (on
/// `String.prototype` or behind it), that method is called as V8 calls it (boa's own `split`
/// looks only at an object separator). Otherwise the split is done here when nothing can
/// observe it: `this` a string, `limit` a number or nothing. `None` for a call it does not
/// take.
pub(crate) fn split(
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> Option<JsResult<JsValue>> {
    let separator = args.first()?.as_string()?;
    let limit = args.get(1).cloned().unwrap_or_default();
    if this.is_null_or_undefined() {
        return None;
    }
    if !split_is_plain(ctx) {
        let key = JsValue::from(separator.clone());
        // GetMethod(separator, @@split), through the separator's String wrapper (boa keeps
        // the primitive receiver to itself; only a getter reading `this` could tell).
        let found = key
            .to_object(ctx)
            .and_then(|wrapper| wrapper.get(JsSymbol::split(), ctx));
        match found {
            Err(e) => return Some(Err(e)),
            Ok(f) if f.is_null_or_undefined() => {}
            Ok(f) => {
                return Some(match f.as_callable() {
                    Some(splitter) => splitter.call(&key, &[this.clone(), limit], ctx),
                    None => Err(crate::native_method::not_callable()),
                });
            }
        }
    }
    let s = this.as_string()?;
    let limit = if limit.is_undefined() {
        u32::MAX
    } else {
        limit.as_number()?;
        limit.to_u32(ctx).ok()?
    };
    Some(split_by(&s, &separator, limit, ctx))
}

/// Whether a string's `Symbol.split` lookup finds nothing, read without running anything.
fn split_is_plain(ctx: &Context) -> bool {
    let string_proto = ctx.intrinsics().constructors().string().prototype();
    let object_proto = ctx.intrinsics().constructors().object().prototype();
    let key = JsSymbol::split().into();
    let behind = string_proto.prototype();
    behind.is_some_and(|p| JsObject::equals(&p, &object_proto))
        && string_proto.borrow().properties().get(&key).is_none()
        && object_proto.borrow().properties().get(&key).is_none()
}

/// The spec's `split` steps after the `@@split` lookup (ES2024 22.1.3.23, 7–17), each search
/// charged what it compared and the pieces what they hold.
fn split_by(
    s: &JsString,
    separator: &JsString,
    limit: u32,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let lim = limit as usize;
    if lim == 0 {
        return Ok(JsArray::new(ctx)?.into());
    }
    let mut pieces: Vec<JsValue> = Vec::new();
    if separator.is_empty() {
        let head = s.len().min(lim);
        charge_native((head as u64 + 1).saturating_mul(crate::clock::SEARCH_CYCLES))?;
        for i in 0..head {
            pieces.push(s.slice(i, i + 1).into());
        }
        return Ok(JsArray::from_iter(pieces, ctx).into());
    }
    if s.is_empty() {
        charge_native(1)?;
        return Ok(JsArray::from_iter([JsValue::from(s.clone())], ctx).into());
    }
    let mut i = 0;
    loop {
        let (found, cycles) = find(s.as_str(), separator.as_str(), i);
        // And each piece made, as a regex search is ([`SEARCH_CYCLES`]).
        charge_native(cycles.saturating_add(crate::clock::SEARCH_CYCLES))?;
        let Some(j) = found else { break };
        pieces.push(s.slice(i, j).into());
        if pieces.len() == lim {
            return Ok(JsArray::from_iter(pieces, ctx).into());
        }
        i = j + separator.len();
    }
    pieces.push(s.slice(i, s.len()).into());
    Ok(JsArray::from_iter(pieces, ctx).into())
}
