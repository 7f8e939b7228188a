//! `Number.prototype.toFixed`, `toExponential` and `toPrecision` as ECMAScript defines them:
//! rounded from the double's exact decimal value, a tie going to the larger magnitude. boa 0.22's
//! own versions round from a shortest or truncated digit string, so they answer differently from
//! every browser for tiny values and long precisions (`(1e-101).toPrecision(2)` gave
//! `"0.0e+101"`); the realm gets these instead (issue 40's fuzzer found it).

use boa_engine::value::IntegerOrInfinity;
use boa_engine::{js_string, Context, JsNativeError, JsResult, JsString, JsValue};

use crate::native_method::{define_method, Method};

/// The exact decimal value of a finite, positive double: its significant digits (no leading
/// or trailing zero) and the power of ten of the first one.
fn exact_digits(x: f64) -> (Vec<u8>, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, power_of_two) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    // x = mantissa × 2^power_of_two: a negative power of two needs exactly that many decimals,
    // so Rust's correctly rounded fixed formatting writes the exact value and rounds nothing.
    let twos = mantissa.trailing_zeros() as i32;
    let decimals = (-(power_of_two + twos)).max(0) as usize;
    decimal_digits(&format!("{x:.decimals$}"))
}

/// The shortest digits that read back as a finite, positive `x`, as JavaScript's `String(x)`
/// picks them (the nearest when several are as short), and the power of ten of the first.
fn shortest_digits(x: f64) -> (Vec<u8>, i32) {
    decimal_digits(&JsString::from(x).to_std_string_lossy())
}

/// The significant digits of a positive decimal text (`123.45`, `0.0012`, `1.5e-7`), without
/// leading or trailing zeros, and the power of ten of the first.
fn decimal_digits(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let point = mantissa.find('.').unwrap_or(mantissa.len());
    let all: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    let first = all.iter().position(|&d| d != 0).unwrap_or(0);
    let last = all.iter().rposition(|&d| d != 0).unwrap_or(first);
    let e = point as i32 - 1 - first as i32 + exponent.parse::<i32>().unwrap_or(0);
    (all.get(first..=last).unwrap_or_default().to_vec(), e)
}

/// The digits of the integer nearest to `0.d₀d₁d₂… × 10^keep`, a tie going up (an empty vector
/// is zero). May have `keep + 1` digits when rounding carried.
fn round_half_up(digits: &[u8], keep: usize) -> Vec<u8> {
    let mut n: Vec<u8> = (0..keep)
        .map(|i| digits.get(i).copied().unwrap_or(0))
        .collect();
    if digits.get(keep).is_some_and(|&d| d >= 5) {
        // Add one: trailing nines become zeros, the first other digit goes up, or a 1 leads.
        let nines = n.iter().rev().take_while(|&&d| d == 9).count();
        let kept = n.len() - nines;
        n.truncate(kept);
        match n.last_mut() {
            Some(d) => *d += 1,
            None => n.push(1),
        }
        n.resize(n.len() + nines, 0);
    }
    n
}

/// `precision` significant digits of `x` (finite, ≥ 0) and the power of ten of the first.
fn significant(x: f64, precision: usize) -> (Vec<u8>, i32) {
    if x == 0.0 {
        return (vec![0; precision], 0);
    }
    let (digits, e) = exact_digits(x);
    let mut n = round_half_up(&digits, precision);
    if n.len() > precision {
        n.truncate(precision);
        return (n, e + 1);
    }
    (n, e)
}

fn text(digits: &[u8]) -> String {
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// `d.ddd` followed by `e±N`, as `toExponential` and `toPrecision` write it.
fn exponential(digits: &[u8], e: i32) -> String {
    let (first, rest) = digits.split_at(1);
    let mut out = text(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(&text(rest));
    }
    out.push('e');
    out.push(if e < 0 { '-' } else { '+' });
    out.push_str(&e.unsigned_abs().to_string());
    out
}

/// The sign ECMAScript writes (`-0` has none) and the magnitude.
fn sign_of(x: f64) -> (&'static str, f64) {
    if x < 0.0 {
        ("-", -x)
    } else {
        ("", x.abs())
    }
}

/// `x.toFixed(fraction_digits)` for a finite `x` and `fraction_digits` in 0..=100.
pub(crate) fn to_fixed(x: f64, fraction_digits: usize) -> String {
    let (sign, x) = sign_of(x);
    if x >= 1e21 {
        return format!("{sign}{}", JsString::from(x).to_std_string_lossy());
    }
    let n = if x == 0.0 {
        Vec::new()
    } else {
        let (digits, e) = exact_digits(x);
        // Digits of x × 10^f above the point.
        let above = e + 1 + fraction_digits as i32;
        if above < 0 {
            Vec::new()
        } else {
            round_half_up(&digits, above as usize)
        }
    };
    let mut m = if n.is_empty() {
        "0".to_owned()
    } else {
        text(&n)
    };
    if fraction_digits > 0 {
        if m.len() <= fraction_digits {
            m = format!("{}{m}", "0".repeat(fraction_digits + 1 - m.len()));
        }
        m.insert(m.len() - fraction_digits, '.');
    }
    format!("{sign}{m}")
}

/// `x.toExponential(fraction_digits)` for a finite `x`; `None` is as many digits as it takes.
pub(crate) fn to_exponential(x: f64, fraction_digits: Option<usize>) -> String {
    let (sign, x) = sign_of(x);
    let (digits, e) = match fraction_digits {
        Some(f) => significant(x, f + 1),
        None if x == 0.0 => (vec![0], 0),
        None => shortest_digits(x),
    };
    format!("{sign}{}", exponential(&digits, e))
}

/// `x.toPrecision(precision)` for a finite `x` and `precision` in 1..=100.
pub(crate) fn to_precision(x: f64, precision: usize) -> String {
    let (sign, x) = sign_of(x);
    let (digits, e) = significant(x, precision);
    let p = precision as i32;
    let m = if e < -6 || e >= p {
        exponential(&digits, e)
    } else if e >= 0 {
        let (whole, fraction) = digits.split_at(e as usize + 1);
        if fraction.is_empty() {
            text(whole)
        } else {
            format!("{}.{}", text(whole), text(fraction))
        }
    } else {
        format!("0.{}{}", "0".repeat((-(e + 1)) as usize), text(&digits))
    };
    format!("{sign}{m}")
}

/// ECMAScript's thisNumberValue: a number, or a `Number` object's number.
fn this_number(this: &JsValue) -> JsResult<f64> {
    this.as_number()
        .or_else(|| {
            this.as_object()
                .and_then(|o| o.downcast_ref::<f64>().as_deref().copied())
        })
        .ok_or_else(|| {
            JsNativeError::typ()
                .with_message("'this' is not a number")
                .into()
        })
}

/// A digits argument in `min..=100`, or the `RangeError` `what` names.
fn digits_in(v: IntegerOrInfinity, min: i64, what: &str) -> JsResult<usize> {
    match v {
        IntegerOrInfinity::Integer(i) if (min..=100).contains(&i) => Ok(i as usize),
        _ => Err(JsNativeError::range()
            .with_message(format!("{what} argument must be between {min} and 100"))
            .into()),
    }
}

fn string(s: String) -> JsResult<JsValue> {
    Ok(JsValue::from(JsString::from(s.as_str())))
}

fn js_to_fixed(this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let x = this_number(this)?;
    let f = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_integer_or_infinity(ctx)?;
    let f = digits_in(f, 0, "toFixed() digits")?;
    if !x.is_finite() {
        return Ok(JsValue::from(JsString::from(x)));
    }
    string(to_fixed(x, f))
}

fn js_to_exponential(this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let x = this_number(this)?;
    let f = match args.first() {
        None => None,
        Some(v) if v.is_undefined() => None,
        Some(v) => Some(v.to_integer_or_infinity(ctx)?),
    };
    if !x.is_finite() {
        return Ok(JsValue::from(JsString::from(x)));
    }
    let f = f.map(|f| digits_in(f, 0, "toExponential()")).transpose()?;
    string(to_exponential(x, f))
}

fn js_to_precision(this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let x = this_number(this)?;
    let p = match args.first() {
        Some(v) if !v.is_undefined() => v.to_integer_or_infinity(ctx)?,
        _ => return Ok(JsValue::from(JsString::from(x))),
    };
    if !x.is_finite() {
        return Ok(JsValue::from(JsString::from(x)));
    }
    string(to_precision(x, digits_in(p, 1, "toPrecision()")?))
}

/// Puts the three methods on the realm's `Number.prototype`, where boa's were.
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let prototype = ctx.intrinsics().constructors().number().prototype();
    let methods: [(JsString, Method); 3] = [
        (js_string!("toFixed"), js_to_fixed),
        (js_string!("toExponential"), js_to_exponential),
        (js_string!("toPrecision"), js_to_precision),
    ];
    for (name, f) in methods {
        define_method(&prototype, name, 1, f, ctx)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_javascript_does() {
        // What Node answers.
        let fixed = [
            (1.005, 2, "1.00"),
            (2.5, 0, "3"),
            (1.25, 1, "1.3"),
            (0.5, 0, "1"),
            (-0.5, 0, "-1"),
            (-0.0001, 2, "-0.00"),
            (-0.0, 2, "0.00"),
            (0.0, 0, "0"),
            (123.456, 0, "123"),
            (0.000001, 7, "0.0000010"),
            (1e21, 2, "1e+21"),
            (-1.5e21, 2, "-1.5e+21"),
            (999.995, 2, "1000.00"),
            (9.995, 2, "9.99"),
            (0.1, 20, "0.10000000000000000555"),
            (5e-324, 3, "0.000"),
            (1e20, 2, "100000000000000000000.00"),
            (0.045, 2, "0.04"),
            (0.055, 2, "0.06"),
        ];
        for (x, f, want) in fixed {
            assert_eq!(to_fixed(x, f), want, "({x}).toFixed({f})");
        }
        let precision = [
            (1e-101, 2, "1.0e-101"),
            (1e-90, 17, "9.9999999999999999e-91"),
            (123.456, 4, "123.5"),
            (0.000123, 2, "0.00012"),
            (0.0000001234, 2, "1.2e-7"),
            (123456.0, 2, "1.2e+5"),
            (99.99, 3, "100"),
            (999.9, 3, "1.00e+3"),
            (0.0, 3, "0.00"),
            (-0.0, 1, "0"),
            (5e-324, 3, "4.94e-324"),
            (1.7976931348623157e308, 5, "1.7977e+308"),
            (2.5, 1, "3"),
            (-2.5, 1, "-3"),
            (0.1, 21, "0.100000000000000005551"),
        ];
        for (x, p, want) in precision {
            assert_eq!(to_precision(x, p), want, "({x}).toPrecision({p})");
        }
        let exp = [
            (1e-101, Some(1), "1.0e-101"),
            (123456.0, Some(2), "1.23e+5"),
            (123456.0, None, "1.23456e+5"),
            (0.0, None, "0e+0"),
            (0.0, Some(2), "0.00e+0"),
            (-1.5, Some(0), "-2e+0"),
            (5e-324, None, "5e-324"),
            (1.25, Some(1), "1.3e+0"),
            (13820925605598.812, None, "1.3820925605598812e+13"),
            (1200.0, None, "1.2e+3"),
            (1e21, None, "1e+21"),
            (0.000012, None, "1.2e-5"),
            (0.1, None, "1e-1"),
            (9.99, Some(1), "1.0e+1"),
        ];
        for (x, f, want) in exp {
            assert_eq!(to_exponential(x, f), want, "({x}).toExponential({f:?})");
        }
    }
}
