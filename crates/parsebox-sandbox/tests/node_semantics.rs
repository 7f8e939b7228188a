//! JavaScript semantics real parsers meet, checked against Node (SPEC §11: "JavaScript
//! semantics follow V8 where real parsers meet them") over generated inputs: the same parser
//! source runs in Node through the corpus runner (`tests/corpus/node-reference.mjs`, `TZ=UTC`)
//! and in the sandbox, and every line's answer must be the same. Skipped, with a message, only
//! when `node` is not installed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{node_answers, sandbox_answers, Rng};

/// Runs `parser` on `lines` in Node and in the sandbox and lists the lines that differ.
fn differences(parser: &'static str, lines: Vec<String>) -> Option<Vec<String>> {
    let Some(node) = node_answers(parser, &lines) else {
        eprintln!("SKIPPED: `node` is not installed; the differential tests need it");
        return None;
    };
    let lines_for_sandbox = lines.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // boa's parser recurses deeply in unoptimised builds: the wasm build's 8 MiB stack.
    common::on_stack(8 << 20, move || {
        tx.send(sandbox_answers(parser, &lines_for_sandbox))
            .unwrap();
    });
    let ours = rx.recv().unwrap();
    let mut problems = Vec::new();
    for ((line, n), s) in lines.iter().zip(&node).zip(&ours) {
        match (n, s) {
            (Some(n), Ok(s)) if n == s => {}
            (n, s) => problems.push(format!("{line}\n   node:    {n:?}\n   sandbox: {s:?}")),
        }
    }
    Some(problems)
}

/// Each line is pairs `xbits:ybits` (16 hex digits each); the answer per pair is the bits of
/// `x ** y`, of `z **= y` (z = x) and of `Math.pow(x, y)` ("nan" for any NaN). A value that is
/// an int32 is made one with `| 0`, so boa holds it as an integer (its `powi` path).
const POW_PARSER: &str = r#"
const dv = new DataView(new ArrayBuffer(8));
function dec(h) {
  dv.setUint32(0, parseInt(h.slice(0, 8), 16));
  dv.setUint32(4, parseInt(h.slice(8), 16));
  const v = dv.getFloat64(0);
  return Object.is(v, v | 0) ? v | 0 : v;
}
function enc(v) {
  if (v !== v) return "nan";
  dv.setFloat64(0, v);
  return dv.getUint32(0).toString(16).padStart(8, "0") + dv.getUint32(4).toString(16).padStart(8, "0");
}
export function parseStdoutLine(line) {
  if (line === "literals") {
    const o = { n: 3 }, a = [1.5];
    o.n **= -0.5; a[0] **= 41;
    return [2 ** -1074, 1.1 ** 37, 10 ** 308, 2 ** 0.5, (-8) ** 3, 0.1 ** 3, 1e10 ** -31, 3 ** 40,
      7 ** -(2 ** 2), (2 ** 3) ** 2, o.n, a[0], "3" ** "2.5"].map(enc);
  }
  if (line === "operands") {
    const order = [];
    const v = (k, n) => ({ valueOf() { order.push(k); return n; } });
    let mixed;
    try { mixed = 2n ** 2; } catch (e) { mixed = e.constructor.name; }
    return [enc(v("a", 1.1) ** v("b", 37)), order.join(""), String(2n ** 70n), mixed];
  }
  const out = [];
  for (const pair of line.split(" ")) {
    const [a, b] = pair.split(":");
    const x = dec(a), y = dec(b);
    let z = x;
    z **= y;
    out.push(enc(x ** y) + enc(z) + enc(Math.pow(x, y)));
  }
  return out;
}
"#;

/// A double of one of the shapes exponentiation meets: small and large integers, random bit
/// patterns, decimals, tiny and huge magnitudes, and the special values.
fn double(rng: &mut Rng) -> f64 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    #[allow(clippy::cast_precision_loss)]
    match rng.below(8) {
        0 => rng.below(2_200) as f64 - 1_100.0,
        1 => f64::from_bits(rng.next()),
        2 => sign * (rng.below(1 << 40) as f64) / (1u64 << rng.below(40)) as f64,
        3 => sign * f64::from_bits(rng.below(1 << 52) | (rng.below(30) << 52)),
        4 => sign * f64::from_bits((rng.below(1 << 52)) | ((2_000 + rng.below(46)) << 52)),
        5 => *rng.pick(&[
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            10.0,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
        ]),
        6 => 1.0 + sign * (rng.below(1 << 30) as f64) * f64::EPSILON,
        _ => sign * (rng.below(1_000_000) as f64) / 1000.0,
    }
}

#[test]
fn exponentiation_gives_v8s_doubles_for_every_pair() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut lines = vec!["literals".to_owned(), "operands".to_owned()];
    for _ in 0..200 {
        let pairs: Vec<String> = (0..100)
            .map(|_| {
                let (x, y) = (double(&mut rng), double(&mut rng));
                format!("{:016x}:{:016x}", x.to_bits(), y.to_bits())
            })
            .collect();
        lines.push(pairs.join(" "));
    }
    let Some(problems) = differences(POW_PARSER, lines) else {
        return;
    };
    assert!(
        problems.is_empty(),
        "{} of 202 lines differ from Node:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
