//! `x ** y` and `Math.pow(x, y)` with V8's doubles, bit for bit.
//!
//! boa 0.22 computes `**` with `f64::powi` whenever the exponent is held as an integer
//! (`2 ** -1074` is `1 / 2^1074`, which overflows to `1/∞ = 0`; `1.1 ** 37` multiplies 37
//! roundings together), and `Math.pow` and other `**` with the platform's `pow` (glibc natively,
//! the `libm` crate in wasm). V8 computes both with one function: Sun's fdlibm `pow` (the
//! algorithm below: `log2(x)` in two pieces, `y × log2(x)` in simulated double-double, then
//! `2^(n + r)`), with one change of its own in the last step (the rational approximation of
//! `2^r` divides by `(t1 - 2) - (w + z·w)` where fdlibm divides by `t1 - 2` and subtracts).
//! Over 300,000 random pairs the `libm` crate's fdlibm differed from Node 20 on 1.7 % and
//! glibc's on 4 %; this version on none. The algorithm and its constants are fdlibm's
//! (Copyright (C) 2004 Sun Microsystems, Inc.; "Permission to use, copy, modify, and
//! distribute this software is freely granted, provided that this notice is preserved.").
//!
//! The realm's `Math.pow` is [`math_pow`]; `**` and `**=` are rewritten at load into calls of
//! [`pow_operator`] (`source::pow_rewrite`), since boa's `Pow` instruction cannot be replaced.

// The constants are written with all the digits fdlibm gives them (each reads back as the
// intended double); `ln 2` is one of them on purpose, split into the pieces the algorithm needs.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use boa_engine::value::Numeric;
use boa_engine::{js_string, Context, JsNativeError, JsResult, JsValue, NativeFunction};

use crate::native_method::define_method;

/// The high 32 bits of a double, as a signed word (fdlibm's `__HI`).
fn high(x: f64) -> i32 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
    let h = (x.to_bits() >> 32) as u32 as i32;
    h
}

/// The low 32 bits of a double (fdlibm's `__LO`).
fn low(x: f64) -> u32 {
    #[allow(clippy::cast_possible_truncation)]
    let l = x.to_bits() as u32;
    l
}

/// `x` with its low word cleared: the leading 21 bits of the significand, whose products with
/// another such number are exact.
fn head(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000)
}

/// `x` with its high word replaced by `hi`.
fn with_high(x: f64, hi: i32) -> f64 {
    #[allow(clippy::cast_sign_loss)]
    let hi = u64::from(hi as u32);
    f64::from_bits((x.to_bits() & 0xffff_ffff) | (hi << 32))
}

/// `x × 2^n` for any `n`, rounding once (subnormal results).
fn scale(x: f64, n: i32) -> f64 {
    let mut y = x;
    let mut n = n;
    // 2^1023 and 2^-1022 (times 2^53, to keep precision while stepping down).
    let up = f64::from_bits(0x7fe0_0000_0000_0000);
    let down = f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000);
    if n > 1023 {
        y *= up;
        n -= 1023;
        if n > 1023 {
            y *= up;
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        y *= down;
        n += 1022 - 53;
        if n < -1022 {
            y *= down;
            n = (n + 1022 - 53).max(-1022);
        }
    }
    #[allow(clippy::cast_sign_loss)]
    let bits = ((0x3ff + n) as u64) << 52;
    y * f64::from_bits(bits)
}

/// Whether `y` is an integer, and if so whether odd: 0 not an integer, 1 odd, 2 even.
/// (Only needed, and only computed, for a negative base.)
fn integer_kind(y: f64) -> i32 {
    let y = y.abs();
    if !y.is_finite() || y.fract() != 0.0 {
        return 0;
    }
    if y >= 9_007_199_254_740_992.0 {
        return 2;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = y as u64;
    if n % 2 == 1 {
        1
    } else {
        2
    }
}

/// `2^(p_h + p_l)` scaled back by the sign `s` (the last third of the algorithm), or the
/// overflow / underflow it must give.
fn exp2_split(p_h: f64, p_l: f64, s: f64) -> f64 {
    const HUGE: f64 = 1.0e300;
    const TINY: f64 = 1.0e-300;
    // -(1024 - log2(largest double + half an ulp)).
    const OVT: f64 = 8.008_566_259_537_294_4e-17;
    const LG2: f64 = 6.931_471_805_599_452_862_27e-1;
    const LG2_H: f64 = 6.931_471_824_645_996_093_75e-1;
    const LG2_L: f64 = -1.904_654_299_957_768_045_25e-9;
    const P: [f64; 5] = [
        1.666_666_666_666_660_190_37e-1,
        -2.777_777_777_701_559_338_42e-3,
        6.613_756_321_437_934_361_17e-5,
        -1.653_390_220_546_525_153_90e-6,
        4.138_136_797_057_238_460_39e-8,
    ];
    let mut p_h = p_h;
    let z = p_l + p_h;
    let j = high(z);
    let i = low(z);
    if j >= 0x4090_0000 {
        // z ≥ 1024: overflow, unless exactly 1024 and the tail does not carry it over.
        if (j - 0x4090_0000) != 0 || i != 0 || p_l + OVT > z - p_h {
            return s * HUGE * HUGE;
        }
    } else if (j & 0x7fff_ffff) >= 0x4090_cc00 {
        // z ≤ -1075: underflow, with the same care at exactly -1075.
        #[allow(clippy::cast_sign_loss)]
        let at_limit = (j as u32).wrapping_sub(0xc090_cc00) == 0 && i == 0;
        if !at_limit || p_l <= z - p_h {
            return s * TINY * TINY;
        }
    }
    // n = the integer nearest z (when |z| > 1/2), taken off p_h.
    let abs_hi = j & 0x7fff_ffff;
    let mut n: i32 = 0;
    if abs_hi > 0x3fe0_0000 {
        let k = (abs_hi >> 20) - 0x3ff;
        let m = j.wrapping_add(0x0010_0000 >> (k + 1));
        let k = ((m & 0x7fff_ffff) >> 20) - 0x3ff;
        let t = with_high(0.0, m & !(0x000f_ffff >> k));
        n = ((m & 0x000f_ffff) | 0x0010_0000) >> (20 - k);
        if j < 0 {
            n = -n;
        }
        p_h -= t;
    }
    // 2^r for the remaining |r| ≤ 1/2, as e^(r·ln 2) by a rational approximation.
    let t = head(p_l + p_h);
    let u = t * LG2_H;
    let v = (p_l - (t - p_h)) * LG2 + t * LG2_L;
    let z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (P[0] + t * (P[1] + t * (P[2] + t * (P[3] + t * P[4]))));
    // V8's step: one division by the whole denominator.
    let r = (z * t1) / ((t1 - 2.0) - (w + z * w));
    let z = 1.0 - (r - z);
    let hi = high(z).wrapping_add(n.wrapping_shl(20));
    let z = if (hi >> 20) <= 0 {
        scale(z, n)
    } else {
        with_high(z, hi)
    };
    s * z
}

/// `log2(|x|)` as `t1 + t2` (`t1` with a cleared low word) for `|x|` not close to 1 or
/// huge `y`: the second third of the algorithm. `ix` is the high word of `|x|`.
fn log2_split(ax: f64, ix: i32) -> (f64, f64) {
    const BP: [f64; 2] = [1.0, 1.5];
    const DP_H: [f64; 2] = [0.0, 5.849_624_872_207_641_601_56e-1];
    const DP_L: [f64; 2] = [0.0, 1.350_039_202_129_748_971_28e-8];
    const L: [f64; 6] = [
        5.999_999_999_999_946_487_25e-1,
        4.285_714_285_785_501_842_52e-1,
        3.333_333_298_183_774_329_18e-1,
        2.727_281_238_085_340_064_89e-1,
        2.306_607_457_755_617_540_67e-1,
        2.069_750_178_003_384_177_84e-1,
    ];
    const CP: f64 = 9.617_966_939_259_755_543_29e-1;
    const CP_H: f64 = 9.617_967_009_544_372_558_59e-1;
    const CP_L: f64 = -7.028_461_650_952_758_265_16e-9;
    let mut ax = ax;
    let mut ix = ix;
    let mut n: i32 = 0;
    if ix < 0x0010_0000 {
        // Subnormal: scale up by 2^53 first.
        ax *= 9_007_199_254_740_992.0;
        n -= 53;
        ix = high(ax);
    }
    n += (ix >> 20) - 0x3ff;
    let j = ix & 0x000f_ffff;
    // Bring the significand into [sqrt(2)/2 · …): k picks 1 or 1.5 as the expansion point.
    let mut ix = j | 0x3ff0_0000;
    let k: usize = if j <= 0x3988e {
        0
    } else if j < 0xbb67a {
        1
    } else {
        n += 1;
        ix -= 0x0010_0000;
        0
    };
    let bp = BP.get(k).copied().unwrap_or(1.0);
    let ax = with_high(ax, ix);
    // s = (x - bp) / (x + bp), as s_h + s_l.
    let u = ax - bp;
    let v = 1.0 / (ax + bp);
    let ss = u * v;
    let s_h = head(ss);
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation)]
    let t_h = with_high(
        0.0,
        ((ix >> 1) | 0x2000_0000) + 0x0008_0000 + ((k as i32) << 18),
    );
    let t_l = ax - (t_h - bp);
    let s_l = v * ((u - s_h * t_h) - s_h * t_l);
    // log(x) by the odd series in s.
    let s2 = ss * ss;
    let mut r =
        s2 * s2 * (L[0] + s2 * (L[1] + s2 * (L[2] + s2 * (L[3] + s2 * (L[4] + s2 * L[5])))));
    r += s_l * (s_h + ss);
    let s2 = s_h * s_h;
    let t_h = head(3.0 + s2 + r);
    let t_l = r - ((t_h - 3.0) - s2);
    let u = s_h * t_h;
    let v = s_l * t_h + t_l * ss;
    let p_h = head(u + v);
    let p_l = v - (p_h - u);
    let z_h = CP_H * p_h;
    let z_l = CP_L * p_h + p_l * CP + DP_L.get(k).copied().unwrap_or(0.0);
    let dp_h = DP_H.get(k).copied().unwrap_or(0.0);
    let t = f64::from(n);
    let t1 = head(((z_h + z_l) + dp_h) + t);
    let t2 = z_l - (((t1 - t) - dp_h) - z_h);
    (t1, t2)
}

/// ECMAScript's `Number::exponentiate(x, y)` with V8's result for every pair of doubles.
pub(crate) fn exponentiate(x: f64, y: f64) -> f64 {
    const HUGE: f64 = 1.0e300;
    const TINY: f64 = 1.0e-300;
    const IVLN2: f64 = 1.442_695_040_888_963_387_00;
    const IVLN2_H: f64 = 1.442_695_021_629_333_496_09;
    const IVLN2_L: f64 = 1.925_962_991_126_617_468_87e-8;
    if y == 0.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    let (hx, hy) = (high(x), high(y));
    let (ix, iy) = (hx & 0x7fff_ffff, hy & 0x7fff_ffff);
    if y.is_infinite() {
        let ax = x.abs();
        return if ax == 1.0 {
            f64::NAN
        } else if (ax > 1.0) == (y > 0.0) {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if y == 1.0 {
        return x;
    }
    if y == -1.0 {
        return 1.0 / x;
    }
    if y == 2.0 {
        return x * x;
    }
    if y == 0.5 && hx >= 0 {
        return x.sqrt();
    }
    let kind = if hx < 0 { integer_kind(y) } else { 0 };
    let ax = x.abs();
    if ax == 0.0 || ax.is_infinite() || ax == 1.0 {
        // ±0, ±∞, ±1: exact.
        let mut z = if hy < 0 { 1.0 / ax } else { ax };
        if hx < 0 {
            if ax == 1.0 && kind == 0 {
                z = f64::NAN;
            } else if kind == 1 {
                z = -z;
            }
        }
        return z;
    }
    if hx < 0 && kind == 0 {
        return f64::NAN;
    }
    let s = if hx < 0 && kind == 1 { -1.0 } else { 1.0 };
    let (t1, t2) = if iy > 0x41e0_0000 {
        // |y| > 2^31: the result over- or underflows unless x is within 2^-20 of 1.
        if iy > 0x43f0_0000 {
            if ix <= 0x3fef_ffff {
                return if hy < 0 { HUGE * HUGE } else { TINY * TINY };
            }
            return if hy > 0 { HUGE * HUGE } else { TINY * TINY };
        }
        if ix < 0x3fef_ffff {
            return if hy < 0 {
                s * HUGE * HUGE
            } else {
                s * TINY * TINY
            };
        }
        if ix > 0x3ff0_0000 {
            return if hy > 0 {
                s * HUGE * HUGE
            } else {
                s * TINY * TINY
            };
        }
        // log2(x) by x - x²/2 + x³/3 - x⁴/4 around 1.
        let t = ax - 1.0;
        let w = (t * t) * (0.5 - t * (0.333_333_333_333_333_333_333_3 - t * 0.25));
        let u = IVLN2_H * t;
        let v = t * IVLN2_L - w * IVLN2;
        let t1 = head(u + v);
        (t1, v - (t1 - u))
    } else {
        log2_split(ax, ix)
    };
    // y × log2(x) as p_h + p_l, y split into its head and tail.
    let y1 = head(y);
    let p_l = (y - y1) * t1 + y * t2;
    let p_h = y1 * t1;
    exp2_split(p_h, p_l, s)
}

/// `Math.pow(base, exponent)`: both through ToNumber, then [`exponentiate`].
fn math_pow(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let x = args.first().cloned().unwrap_or_default().to_number(ctx)?;
    let y = args.get(1).cloned().unwrap_or_default().to_number(ctx)?;
    Ok(JsValue::new(exponentiate(x, y)))
}

/// The `**` operator (what `a ** b` is rewritten into): both operands through ToNumeric, left
/// first; two Numbers give [`exponentiate`], two BigInts boa's BigInt power, a mix a TypeError.
fn pow_operator(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let a = args.first().cloned().unwrap_or_default();
    let b = args.get(1).cloned().unwrap_or_default();
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return Ok(JsValue::new(exponentiate(x, y)));
    }
    match (a.to_numeric(ctx)?, b.to_numeric(ctx)?) {
        (Numeric::Number(x), Numeric::Number(y)) => Ok(JsValue::new(exponentiate(x, y))),
        (Numeric::BigInt(x), Numeric::BigInt(y)) => JsValue::from(x).pow(&JsValue::from(y), ctx),
        _ => Err(JsNativeError::typ()
            .with_message("Cannot mix BigInt and other types, use explicit conversions")
            .into()),
    }
}

/// Replaces `Math.pow` and registers `__parsebox_pow` (the `**` operator; the prelude keeps it
/// as `__parsebox.pow` and the host deletes the global).
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let math = ctx.intrinsics().objects().math();
    define_method(&math, js_string!("pow"), 2, math_pow, ctx)?;
    ctx.register_global_builtin_callable(
        js_string!("__parsebox_pow"),
        2,
        NativeFunction::from_fn_ptr(pow_operator),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::exponentiate;

    #[test]
    fn the_cases_boa_got_wrong_and_the_special_values() {
        assert_eq!(exponentiate(2.0, -1074.0), 5e-324);
        assert_eq!(exponentiate(1.1, 37.0), 34.003_948_586_157_84);
        assert_eq!(exponentiate(10.0, 308.0), 1e308);
        assert!(exponentiate(1.0, f64::NAN).is_nan());
        assert!(exponentiate(-1.0, f64::INFINITY).is_nan());
        assert_eq!(exponentiate(f64::NAN, -0.0), 1.0);
        assert_eq!(exponentiate(-0.0, -3.0), f64::NEG_INFINITY);
        assert_eq!(exponentiate(f64::NEG_INFINITY, 3.0), f64::NEG_INFINITY);
        assert!(exponentiate(-8.0, 1.0 / 3.0).is_nan());
        assert_eq!(exponentiate(-2.0, 3.0), -8.0);
    }
}
