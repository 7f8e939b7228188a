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

/// Asserts that `parser` answers every one of `lines` as Node does, listing the first 40 that
/// differ (`what` names the lines in the message).
fn assert_agrees(parser: &'static str, lines: Vec<String>, what: &str) {
    let count = lines.len();
    let Some(problems) = differences(parser, lines) else {
        return;
    };
    assert!(
        problems.is_empty(),
        "{} of {count} {what} differ from Node:\n{}",
        problems.len(),
        problems
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
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

/// Each line is a date string; the answer is `new Date(line).getTime()`, `Date.parse(line)`
/// (`null` for NaN) and the ISO text of the date when it is valid.
const DATE_PARSER: &str = r#"
export function parseStdoutLine(line) {
  const d = new Date(line);
  const t = d.getTime();
  return [t, Date.parse(line), t === t ? d.toISOString() : null];
}
"#;

/// `n` as at least `width` digits.
fn digits(n: u64, width: usize) -> String {
    format!("{n:0width$}")
}

/// A timestamp in one of the shapes logs carry, with random fields (sometimes out of range),
/// random fractional digit counts, separators and zones.
fn timestamp(rng: &mut Rng) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let year = match rng.below(6) {
        0 => rng.below(10_000),
        1 => 1900 + rng.below(60),
        _ => 1970 + rng.below(80),
    };
    let month = if rng.below(20) == 0 {
        rng.below(14)
    } else {
        1 + rng.below(12)
    };
    let day = if rng.below(20) == 0 {
        rng.below(33)
    } else {
        1 + rng.below(28)
    };
    let hour = if rng.below(20) == 0 {
        rng.below(26)
    } else {
        rng.below(24)
    };
    let minute = if rng.below(30) == 0 {
        rng.below(61)
    } else {
        rng.below(60)
    };
    let second = if rng.below(30) == 0 {
        rng.below(61)
    } else {
        rng.below(60)
    };
    let fraction: String = (0..rng.below(13))
        .map(|_| char::from(b'0' + u8::try_from(rng.below(10)).unwrap()))
        .collect();
    let zone = |rng: &mut Rng, iso: bool| -> String {
        let (h, m) = (rng.below(15), rng.below(60));
        let sign = if rng.below(2) == 0 { '+' } else { '-' };
        match rng.below(if iso { 7 } else { 9 }) {
            0 => String::new(),
            1 => "Z".to_owned(),
            2 => format!("{sign}{}:{}", digits(h, 2), digits(m, 2)),
            3 => format!("{sign}{}{}", digits(h, 2), digits(m, 2)),
            4 => format!("{sign}{}", digits(h, 2)),
            5 => " GMT".to_owned(),
            6 => format!(" {}", rng.pick(&["UTC", "UT", "EST", "PDT", "CET", "z"])),
            7 => format!(" GMT{sign}{}{}", digits(h, 2), digits(m, 2)),
            _ => format!(" {sign}{}{}", digits(h, 2), digits(m, 2)),
        }
    };
    let frac = if fraction.is_empty() {
        String::new()
    } else {
        format!(".{fraction}")
    };
    let (yyyy, mm, dd) = (digits(year, 4), digits(month, 2), digits(day, 2));
    let (hh, mi, ss) = (digits(hour, 2), digits(minute, 2), digits(second, 2));
    let mon = MONTHS[usize::try_from(month.clamp(1, 12) - 1).unwrap()];
    let wd = rng.pick(&DAYS).to_string();
    let mut s = match rng.below(10) {
        // ISO, full or cut short, with any separator between date and time.
        0..=3 => {
            let sep = rng
                .pick(&["T", "T", "T", " ", "t", "  ", "_", ""])
                .to_string();
            match rng.below(8) {
                0 => yyyy.clone(),
                1 => format!("{yyyy}-{mm}"),
                2 => format!("{yyyy}-{mm}-{dd}"),
                3 => format!("{yyyy}-{mm}-{dd}{sep}{hh}:{mi}{}", zone(rng, true)),
                4 => format!(
                    "{}{}-{mm}-{dd}{sep}{hh}:{mi}:{ss}{frac}{}",
                    rng.pick(&["+", "-"]),
                    digits(year, 6),
                    zone(rng, true)
                ),
                _ => format!(
                    "{yyyy}-{mm}-{dd}{sep}{hh}:{mi}:{ss}{frac}{}",
                    zone(rng, true)
                ),
            }
        }
        // Dates with other separators, time after a space.
        4 => {
            let sep = rng.pick(&["/", ".", " ", "-"]).to_string();
            let date = match rng.below(3) {
                0 => format!("{mm}{sep}{dd}{sep}{yyyy}"),
                1 => format!("{yyyy}{sep}{mm}{sep}{dd}"),
                _ => format!("{}{sep}{}", month, day),
            };
            if rng.below(2) == 0 {
                date
            } else {
                format!("{date} {hh}:{mi}:{ss}{frac}{}", zone(rng, false))
            }
        }
        // RFC 2822 and toUTCString().
        5 | 6 => {
            let year_text = if rng.below(5) == 0 {
                digits(year % 100, 2)
            } else {
                yyyy.clone()
            };
            format!(
                "{}{dd} {mon} {year_text} {hh}:{mi}{}{}",
                if rng.below(3) == 0 {
                    String::new()
                } else {
                    format!("{wd}, ")
                },
                if rng.below(4) == 0 {
                    String::new()
                } else {
                    format!(":{ss}")
                },
                zone(rng, false)
            )
        }
        // Date.prototype.toString() and toDateString().
        7 | 8 => format!(
            "{wd} {mon} {dd} {yyyy}{}",
            match rng.below(4) {
                0 => String::new(),
                1 => format!(" {hh}:{mi}:{ss}{}", zone(rng, false)),
                _ => format!(
                    " {hh}:{mi}:{ss} GMT{}{}{} (Coordinated Universal Time)",
                    rng.pick(&["+", "-"]),
                    digits(rng.below(15), 2),
                    digits(rng.below(60), 2)
                ),
            }
        ),
        // US style with AM/PM and month names.
        _ => format!(
            "{mon} {}, {yyyy} {}:{mi}{} {}",
            day,
            hour % 13,
            if rng.below(2) == 0 {
                format!(":{ss}")
            } else {
                String::new()
            },
            rng.pick(&["AM", "PM", "am", "pm"])
        ),
    };
    // Now and then a character dropped, doubled or inserted: what V8 refuses must be refused.
    if rng.below(6) == 0 && s.len() > 2 {
        let chars: Vec<char> = s.chars().collect();
        let at = usize::try_from(rng.below(u64::try_from(chars.len()).unwrap())).unwrap();
        let mut v = chars.clone();
        match rng.below(3) {
            0 => {
                v.remove(at);
            }
            1 => v.insert(at, chars[at]),
            _ => v.insert(
                at,
                *rng.pick(&[
                    'x', '-', '+', ':', '.', '(', ')', ',', '/', 'T', 'é', '\u{a0}', '9',
                ]),
            ),
        }
        s = v.into_iter().collect();
    }
    let trimmed = s.trim().to_owned();
    if trimmed.is_empty() {
        "x".to_owned()
    } else {
        trimmed
    }
}

#[test]
fn date_strings_read_as_v8_reads_them() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut lines: Vec<String> = [
        "2025-09-04T12:34:56.789123Z",
        "2025-09-04T12:34:56.789123+00:00",
        "2025-09-04T12:34:56.123456789",
        "2025-09-04 12:34:56",
        "Thu, 04 Sep 2025 12:34:56 GMT",
        "Thu Sep 04 2025 12:34:56 GMT+0000 (Coordinated Universal Time)",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    lines.extend((0..4000).map(|_| timestamp(&mut rng)));
    assert_agrees(DATE_PARSER, lines, "date strings read");
}

/// Each line is JSON `[pattern, replacement, input, lastIndex]` (`pattern`: an index into
/// `PATTERNS`, or `[source, flags]` for `new RegExp`); the answer is, each after
/// `re.lastIndex = lastIndex`, the code units of `input.replace(re, replacement)`, of
/// `input.replaceAll(re, replacement)`, of
/// `re.test(input)`, of `re.exec(input)` (its keys and groups too), of `input.match(re)` and of `input.split(re)` without and with a limit (or
/// the name of what each threw), each with
/// `re.lastIndex` after. The line `hostile` runs the cases where the regex, its prototype or the
/// arguments are not what the native regex methods take, or observe their steps.
const REPLACE_PARSER: &str = r#"
const PATTERNS = [
  /a/g, /a/, /(a)(b)?/g, /x*/g, /(?:)/g, /[^A-Za-z0-9_]/g, /\//g, /[\/]+/g, /(\d+)-(\d+)/,
  /b/y, /b/gy, /./gu, /./g, /\ud83d/g, /\ud83d/gu, /(?<n>a)/g, /^a/gm, /A/gi, /é+/g, /\\n/g,
  /\n/g, /\r?\n/g, /(a)|(b)/g, /\s+/g, /./gs, /$/g, /\b/g, /(((((((((((a)))))))))))/g,
  /\u2028/g, /[\u{1F600}-\u{1F64F}]/gu, /(?:)/gu, /a|/g, /\p{L}+/gu, /(?<x>b)(?<y>a)?/,
  /[^]/g, /\x2f/g, /a(?=b)/g, /(?<!a)b/g, /\1(a)/g, /[😀]/g, /😀/g, /.$/gm,
  /(?<y>\d+)-(?<m>\d+)/, /(?<b>b)|(?<a>a)/g,
];
if (PATTERNS.length !== 44) throw new Error("the test picks from 44 patterns");
const units = (s) => { const o = []; for (let i = 0; i < s.length; i++) o.push(s.charCodeAt(i)); return o.join(","); };
const shownExec = (m, input) => m === null ? null : [m.map((x) => x === undefined ? "u" : units(x)), m.index,
  m.input === input, Object.keys(m).join(), m.groups === undefined ? "none" : [Object.getPrototypeOf(m.groups) === null,
  Object.entries(m.groups).map(([k, v]) => k + "=" + (v === undefined ? "u" : units(v))).join(";")]];
const shown = (m) => m === null ? null : m.map((x) => x === undefined ? "u" : units(x)).concat([m.index ?? "g"]);
function one(re, rep, input, last) {
  const out = [];
  const parts = (a) => a.map((x) => x === undefined ? "u" : units(x));
  for (const f of [() => units(input.replace(re, rep)), () => units(input.replaceAll(re, rep)),
    () => re.test(input), () => shown(input.match(re)), () => shownExec(re.exec(input), input),
    () => parts(input.split(re)), () => parts(input.split(re, 2))]) {
    if (last !== undefined) re.lastIndex = last;
    try { out.push(f(), re.lastIndex); } catch (e) { out.push(e.name, re.lastIndex); }
  }
  return out;
}
function hostile() {
  const out = [];
  const own = /a/g; Object.defineProperty(own, "exec", { value: function () { return null; } });
  out.push(one(own, "b", "aaa"));
  class Sub extends RegExp { exec(s) { const r = super.exec(s); if (r) r[0] = "zz"; return r; } }
  out.push(one(new Sub("a", "g"), "b", "xaxa"));
  const frozen = /a/g; Object.defineProperty(frozen, "lastIndex", { writable: false, value: 0 });
  out.push(one(frozen, "b", "aaa"));
  let reads = 0;
  const counted = /a/; counted.lastIndex = { valueOf() { reads++; return 1; } };
  out.push(one(counted, "b", "aaa"), reads);
  const sticky = /a/y; sticky.lastIndex = { valueOf() { reads++; return 1; } };
  out.push(one(sticky, "b", "aaa"), reads);
  const P = RegExp.prototype, saved = P[Symbol.replace];
  P[Symbol.replace] = function (s, r) { return "replaced:" + s + ":" + r; };
  out.push(one(/a/g, "b", "aaa"));
  P[Symbol.replace] = saved;
  const flags = Object.getOwnPropertyDescriptor(P, "flags");
  let flagReads = 0;
  Object.defineProperty(P, "flags", { get() { flagReads++; return flags.get.call(this); }, configurable: true });
  out.push(one(/a/g, "b", "aaa"), one(/a/, "$&$&", "aaa"), flagReads);
  Object.defineProperty(P, "flags", flags);
  let globalReads = 0;
  const global = Object.getOwnPropertyDescriptor(P, "global");
  Object.defineProperty(P, "global", { get() { globalReads++; return false; }, configurable: true });
  out.push(one(/a/g, "b", "aaa"), globalReads);
  Object.defineProperty(P, "global", global);
  out.push(one(/a/g, { toString() { return "$&!"; } }, "aaa"));
  out.push(one(/a/g, (m, i) => m + i, "aaa"));
  out.push(units(String.prototype.replace.call(new String("aaa"), /a/g, "b")));
  out.push(units(String.prototype.replace.call(12131, /1/g, "x")));
  const proto = /a/g; Object.setPrototypeOf(proto, { [Symbol.replace]: saved, exec: () => null, get flags() { return "g"; } });
  out.push(one(proto, "b", "aaa"));
  out.push(one(/a/g, "b", "x".repeat(10) + "a"));
  const savedMatch = P[Symbol.match];
  P[Symbol.match] = function (s) { return ["matched", s]; };
  out.push(one(/a/g, "b", "aaa"));
  P[Symbol.match] = savedMatch;
  out.push(one(/a/g, "b", { toString() { return "aXa"; } }));
  out.push(one(/a/g, "b", "banana", 0));
  // A `global` of its own on a sticky regex: the global loop, with `lastIndex` moved by the
  // sticky searches and past each empty match.
  for (const [source, input] of [["a", "aaba"], ["a*", "aab"], ["q", "xyz"]]) {
    const own = new RegExp(source, "y"); Object.defineProperty(own, "global", { value: true });
    out.push(one(own, "b", input));
    const plain = new RegExp(source); Object.defineProperty(plain, "global", { value: source === "q" });
    out.push(one(plain, "b", input));
  }
  const notRegex = /a/; notRegex[Symbol.match] = false;
  out.push(one(notRegex, "b", "aaa"));
  const noFlags = /a/g; Object.defineProperty(noFlags, "flags", { value: undefined });
  out.push(one(noFlags, "b", "aaa"));
  out.push("aXbXc".split(/x/i, { valueOf() { return 2; } }));
  const ctor = RegExp.prototype.constructor;
  RegExp.prototype.constructor = function () { return /b/y; };
  RegExp.prototype.constructor[Symbol.species] = RegExp.prototype.constructor;
  out.push("abcabc".split(/c/));
  RegExp.prototype.constructor = ctor;
  const sp = Object.getOwnPropertyDescriptor(RegExp, Symbol.species);
  Object.defineProperty(RegExp, Symbol.species, { get() { return function () { return /a/y; }; }, configurable: true });
  out.push("abcabc".split(/c/));
  Object.defineProperty(RegExp, Symbol.species, sp);
  const savedSplit = P[Symbol.split];
  P[Symbol.split] = function (s, l) { return ["split", s, l]; };
  out.push("abc".split(/b/, 3));
  P[Symbol.split] = savedSplit;
  const flagsDesc = Object.getOwnPropertyDescriptor(P, "flags");
  Object.defineProperty(P, "flags", { get() { return "i"; }, configurable: true });
  out.push("aAbB".split(/a/));
  Object.defineProperty(P, "flags", flagsDesc);
  // `unicode` and `unicodeSets` as a global `replace` and `match` read them (the native
  // methods take a flag from the regex's slot only while the prototype's getter is the
  // built-in and the regex has none of its own): an empty match before a surrogate pair steps
  // one unit or two by what they say. (A `u` regex told it is not `unicode` loops for ever in
  // V8: its search steps back to the pair's start each time.) Then `global` as a data property of the prototype, on a
  // sticky regex (a regex neither global nor sticky ignores `lastIndex`, so a loop told it is
  // global would match at 0 for ever, in V8 too).
  const uni = Object.getOwnPropertyDescriptor(P, "unicode");
  let unicodeReads = 0;
  Object.defineProperty(P, "unicode", { get() { unicodeReads++; return true; }, configurable: true });
  out.push(one(/(?:)/g, "-", "a\u{1F600}b"), unicodeReads);
  Object.defineProperty(P, "unicode", uni);
  const setsDesc = Object.getOwnPropertyDescriptor(P, "unicodeSets");
  Object.defineProperty(P, "unicodeSets", { get() { return true; }, configurable: true });
  out.push(one(/(?:)/g, "-", "\u{1F600}"));
  Object.defineProperty(P, "unicodeSets", setsDesc);
  Object.defineProperty(P, "global", { value: true, configurable: true, writable: true });
  out.push(one(/a/y, "b", "aab"));
  Object.defineProperty(P, "global", global);
  out.push(one(/(?:)/gu, "-", "a\u{1F600}b"), one(/(?:)/g, "-", "a\u{1F600}b"));
  const withCtor = /b/; Object.defineProperty(withCtor, "constructor", { value: function () { return /c/y; } });
  out.push("abcabc".split(withCtor));
  for (const [o, k] of [[String.prototype, "replace"], [String.prototype, "match"], [String.prototype, "split"], [RegExp.prototype, "test"]]) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    out.push([o[k].name, o[k].length, d.writable, d.enumerable, d.configurable]);
  }
  return out;
}
export function parseStdoutLine(line) {
  if (line === "hostile") return hostile();
  const [p, rep, input, last] = JSON.parse(line);
  const re = typeof p === "number" ? PATTERNS[p] : new RegExp(p[0], p[1]);
  return one(re, rep, input, last);
}
"#;

#[test]
fn regex_methods_give_v8s_answers() {
    // JSON string pieces (escapes kept, so lone surrogates can be written).
    const TEXT: [&str; 22] = [
        "a",
        "b",
        "x",
        "A",
        "\u{e9}",
        "1",
        "2",
        "-",
        "\\/",
        " ",
        "\\n",
        "\\r\\n",
        "\u{1F600}",
        "\\ud83d",
        "\\ude00",
        "ab",
        "\\u2028",
        "_",
        "$",
        "ba",
        "\\\\n",
        "12-34",
    ];
    const TEMPLATES: [&str; 24] = [
        "",
        "-",
        "$",
        "$$",
        "$&",
        "$`",
        "$'",
        "$1",
        "$2",
        "$01",
        "$10",
        "$11",
        "$12",
        "$0",
        "$00",
        "$<n>",
        "[$1|$2]",
        "x$",
        "\u{1F600}",
        "\\ud800",
        "$3$",
        "$$1",
        "$<",
        "$99",
    ];
    const SOURCES: [(&str, &str); 8] = [
        ("a/b", "g"),
        ("\\\\/", "g"),
        ("\\n", "g"),
        ("a\\nb", "gm"),
        ("[/]", "gu"),
        ("(?:)", "y"),
        ("\\\\\\\\n", "g"),
        ("\\u2028|b", "g"),
    ];
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let mut lines = vec!["hostile".to_owned()];
    for _ in 0..3000 {
        let pattern = if rng.below(6) == 0 {
            let (source, flags) = rng.pick(&SOURCES);
            format!("[\"{source}\",\"{flags}\"]")
        } else {
            rng.below(44).to_string()
        };
        let template: String = (0..rng.below(3)).map(|_| *rng.pick(&TEMPLATES)).collect();
        let input: String = (0..rng.below(12)).map(|_| *rng.pick(&TEXT)).collect();
        let last = rng.pick(&[0, 0, 0, 1, 2, 5, 100, -1]);
        lines.push(format!("[{pattern},\"{template}\",\"{input}\",{last}]"));
    }
    assert_agrees(
        REPLACE_PARSER,
        lines,
        "lines of replace, replaceAll, test, match, exec and split",
    );
}

/// Each line is JSON `[hay, needle, from, limit]` (`from` and `limit` index `FROMS` and
/// `LIMITS`); the answer is the code units of what `indexOf`, `includes`, `lastIndexOf` and
/// `split` by a string give (or the name of what each threw). The line `hostile` runs the cases
/// the native string searches hand on: a `String` object, non-string arguments, a
/// `Symbol.split` a parser put on the prototypes, a replaced prototype chain.
const STRING_SEARCH_PARSER: &str = r#"
const FROMS = [undefined, -1, 0, 1, 2, 5, 100, NaN, 1.5, Infinity, -Infinity, null, "1", { valueOf() { return 1; } }];
const LIMITS = [undefined, 0, 1, 2, -1, 4294967296, 2.7, NaN, null, "2", 4294967295, 4294967297];
const units = (s) => { const o = []; for (let i = 0; i < s.length; i++) o.push(s.charCodeAt(i)); return o.join(","); };
const parts = (a) => a.map(units);
function one(hay, needle, from, limit) {
  const out = [];
  for (const f of [() => hay.indexOf(needle), () => hay.indexOf(needle, from), () => hay.includes(needle),
    () => hay.includes(needle, from), () => hay.lastIndexOf(needle, from), () => parts(hay.split(needle)),
    () => parts(hay.split(needle, limit))]) {
    try { out.push(f()); } catch (e) { out.push(e.name); }
  }
  return out;
}
function hostile() {
  const out = [];
  out.push(one(new String("abcabc"), "b", 2, 1));
  out.push(one("a1b1c", 1, 0, 2), one("aundefinedb", undefined, 0, 1), one("anullb", null, 0, 1));
  out.push(one("abc", { toString() { return "b"; } }, { valueOf() { return 0; } }, { valueOf() { return 1; } }));
  out.push("abc".indexOf(), "abc".includes(), "a,b".split(), "abc".split(undefined, 0));
  try { out.push("abc".includes(/b/)); } catch (e) { out.push(e.name); }
  const SP = String.prototype, OP = Object.prototype;
  SP[Symbol.split] = function (s, l) { return ["string-proto", s, l]; };
  out.push("a,b".split(",", 1)); delete SP[Symbol.split];
  OP[Symbol.split] = function (s, l) { return ["object-proto", s, l]; };
  out.push("a,b".split(",")); delete OP[Symbol.split];
  const between = Object.create(OP, { [Symbol.split]: { value: function () { return ["between"]; } } });
  Object.setPrototypeOf(SP, between);
  out.push("a,b".split(","));
  Object.setPrototypeOf(SP, OP);
  out.push("a,b".split(","));
  for (const k of ["indexOf", "includes", "lastIndexOf", "split", "slice", "toUpperCase", "trim", "padEnd", "concat"]) {
    const d = Object.getOwnPropertyDescriptor(SP, k);
    out.push([SP[k].name, SP[k].length, d.writable, d.enumerable, d.configurable]);
  }
  for (const [o, k] of [[Array.prototype, "join"], [Array.prototype, "indexOf"], [Array.prototype, "slice"], [JSON, "stringify"], [Object, "keys"], [String, "fromCharCode"]]) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    out.push([o[k].name, o[k].length, d.writable, d.enumerable, d.configurable]);
  }
  out.push([1, 2, 3].join("-"), [1, 2, 3].indexOf(2), [1, NaN].includes(NaN), [1, 2, 3].slice(1), JSON.stringify({ a: [1, "x"] }),
    Object.keys({ b: 1, a: 2 }), String.fromCharCode(97, 98), "é😀".toUpperCase(), "  x ".trim(), "x".padEnd(4, "ab"),
    "a".concat(1, null), String.raw`a\n${1}`, [3, 1, 2].toReversed(), [[1, [2]], 3].flat());
  return out;
}
export function parseStdoutLine(line) {
  if (line === "hostile") return hostile();
  const [hay, needle, from, limit] = JSON.parse(line);
  return one(hay, needle, FROMS[from], LIMITS[limit]);
}
"#;

#[test]
fn string_searches_give_v8s_answers() {
    // JSON string pieces of both widths (Latin-1 and UTF-16 strings), lone surrogates too.
    const TEXT: [&str; 12] = [
        "a",
        "b",
        "ab",
        "ba",
        ",",
        " ",
        "\u{e9}",
        "\u{100}",
        "\u{1F600}",
        "\\ud83d",
        "\\ude00",
        "aab",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut lines = vec!["hostile".to_owned()];
    for _ in 0..3000 {
        let hay: String = (0..rng.below(10)).map(|_| *rng.pick(&TEXT)).collect();
        let needle: String = (0..rng.below(3)).map(|_| *rng.pick(&TEXT)).collect();
        let from = rng.below(14);
        let limit = rng.below(12);
        lines.push(format!("[\"{hay}\",\"{needle}\",{from},{limit}]"));
    }
    assert_agrees(
        STRING_SEARCH_PARSER,
        lines,
        "lines of indexOf, includes, lastIndexOf and split by a string",
    );
}

/// `map` and `filter` (the prelude's, which write into a dense array they make and cut it or
/// punch its holes at the end): holes of the source, array-likes, callbacks that delete or
/// append elements, `thisArg`, empty arrays, chains. Each line is a case's index; the answer is
/// JSON of what the case saw.
const MAP_FILTER_PARSER: &str = r#"
const CASES = [
  () => { const r = [1, , 3].map((x) => x * 2); return [r, 1 in r, r.length]; },
  () => { const r = Array.prototype.map.call({ length: 3, 0: "a", 2: "c" }, (x, i) => x + i); return [r, 1 in r, Object.keys(r)]; },
  () => { const a = [1, 2, 3, 4]; const r = a.map((x, i) => { if (i === 0) delete a[2]; return x; }); return [r, 2 in r, r.length]; },
  () => { const a = [1, 2, 3]; const r = a.map((x) => { a.push(x); return x + 1; }); return [r, a.length]; },
  () => { const r = [1, 2, 3, 4, 5].filter((x) => x % 2); r.push(9); return [r, r.length]; },
  () => { const a = [1, 2, 3]; const r = a.filter((x) => { a.push(x); return true; }); return [r, a.length]; },
  () => { const r = [, , 1].filter(() => true); return [r, r.length, 0 in r]; },
  () => { const r = [].map((x) => x); const s = [].filter((x) => x); return [r, s, r.length, s.length]; },
  () => { const r = ["a", "b"].map(function (x) { return this.p + x; }, { p: ">" }); return r; },
  () => { const r = [3, 1, 2].filter((x) => x > 1).map((x) => [x]); return [r, Array.isArray(r[0])]; },
  () => { const r = [1, 2, 3].map((x) => undefined); return [r.length, 0 in r, r]; },
  () => { try { [1].map(5); return "no"; } catch (e) { return e.constructor.name; } },
  () => { const r = Array.from({ length: 50 }, (_, i) => i).filter((x) => x % 7 === 0).map((x) => x * 2); return r; },
  () => [1, 2].map(() => { const f = [1, 2, 3, 4].filter((x) => x > 2); return [f.length, Object.keys(f).join(","), 3 in f]; }),
];
export function parseStdoutLine(line) {
  return [JSON.stringify(CASES[Number(line)]())];
}
"#;

#[test]
fn map_and_filter_give_v8s_answers() {
    let lines = (0..14).map(|i| i.to_string()).collect();
    assert_agrees(MAP_FILTER_PARSER, lines, "map and filter cases");
}

/// JSON.parse with a reviver: which calls the reviver gets, in which order, with which `this`,
/// and what the walk writes back, for revivers that keep, drop, change and replace values and
/// that change the holders under the walk (a sibling deleted, a key added, the holder frozen
/// before a member is written or dropped, an array cut short). `this`'s own symbols are left
/// out: the sandbox calls the reviver as a method its holder carries under a private symbol
/// while its members are walked. The array is
/// cut with `splice`, not `length = 1`: boa 0.22 writes `length` through its inline cache from
/// the second time a site sets it, without deleting the elements past it (`a.length = 1` run
/// twice leaves `1 in a` true), which is boa's, not the reviver walk's.
const REVIVER_PARSER: &str = r#"
let log = [];
const note = (self, k, v) => log.push([k, typeof v, Array.isArray(self), Object.keys(self).join(","), self[k] === v]);
const REVIVERS = [
  function (k, v) { note(this, k, v); return v; },
  function (k, v) { note(this, k, v); return k.startsWith("d") ? undefined : v; },
  function (k, v) { note(this, k, v); return typeof v === "number" ? v * 2 : typeof v === "string" ? v.toUpperCase() : v; },
  function (k, v) { note(this, k, v); if (k === "a") { delete this.b; this.z = 1; } return v; },
  function (k, v) { note(this, k, v); if (k === "a") Object.freeze(this); return typeof v === "number" ? v + 1 : v; },
  function (k, v) { note(this, k, v); return v && typeof v === "object" && !Array.isArray(v) && k !== "" ? [v] : v; },
  function (k, v) { note(this, k, v); return k === "" ? { root: v } : v; },
  function (k, v) { note(this, k, v); if (k === "0" && Array.isArray(this)) this.splice(1); return v; },
  function (k, v) { note(this, k, v); if (v && typeof v === "object") Object.preventExtensions(v); return v === null ? undefined : v; },
  function (k, v) { note(this, k, v); if (k === "a") Object.freeze(this); return k === "b" || k === "1" ? undefined : v; },
];
export function parseStdoutLine(line) {
  const [i, text] = JSON.parse(line);
  log = [];
  let out;
  try { out = JSON.stringify(JSON.parse(text, REVIVERS[i])); } catch (e) { out = "threw " + e.constructor.name; }
  return [{ kind: "stdout", ts: "", text: JSON.stringify([out, log]) }];
}
"#;

/// A random JSON text: objects and arrays to `depth`, keys that revivers act on.
fn json_text(rng: &mut Rng, depth: u32) -> String {
    const KEYS: [&str; 8] = ["a", "b", "d1", "0", "10", "z", "dx", "k"];
    match if depth == 0 {
        rng.below(4)
    } else {
        rng.below(6)
    } {
        0 => rng.below(1000).to_string(),
        1 => format!("\"s{}\"", rng.below(50)),
        2 => (*rng.pick(&["true", "false", "null"])).to_owned(),
        3 => format!("-{}.5", rng.below(9)),
        4 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| json_text(rng, depth - 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            let n = rng.below(5);
            let members: Vec<String> = (0..n)
                .map(|_| format!("\"{}\":{}", rng.pick(&KEYS), json_text(rng, depth - 1)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

#[test]
fn json_parse_revivers_give_v8s_answers() {
    // Each reviver on texts that meet its changes for sure, then on generated ones.
    let picked = [
        r#"{"a":1,"b":2,"c":[1,2]}"#,
        r#"[{"a":1,"b":[3,4],"d1":null},{"b":1,"a":2}]"#,
        r#"{"0":{"a":{"b":1}},"10":[0,[1,2],{"a":[]}],"z":null}"#,
    ];
    let mut rng = Rng(0x5eed_4e71_7e55);
    let lines = (0..10)
        .flat_map(|reviver| picked.map(|text| serde_json::json!([reviver, text]).to_string()))
        .chain((0..500).map(|n| {
            let reviver = n % 10;
            serde_json::json!([reviver, json_text(&mut rng, 3)]).to_string()
        }))
        .collect();
    assert_agrees(REVIVER_PARSER, lines, "JSON.parse revivers");
}

/// The `Date` constructor, called every way a parser calls it: one string (read as V8 reads
/// it), numbers, fields, another date, a boxed string and objects that turn into a string or a
/// number, no arguments, without `new` (the line's
/// time as a string), as a subclass's `super`, through `Reflect.construct` with another
/// `new.target`, and what it is (`length`, `name`, `prototype`, `constructor`; not whether
/// `prototype` is writable: the Node side's stand-in `Date` is a plain function, whose is).
const DATE_CONSTRUCTOR_PARSER: &str = r#"
class Stamp extends Date { day() { return this.getUTCDate(); } }
function Other() {}
const CASES = [
  (t) => new Date(t).getTime(),
  (t) => new Date(Date.parse(t)).toISOString(),
  (t) => new Date(2026, 0, 31, 12, 30, 5, 250).getTime(),
  (t) => new Date(2026, 13).toISOString(),
  (t) => new Date(0).toISOString(),
  (t) => new Date(new Date(t)).getTime(),
  (t) => { const d = new Date(new String(t)); return isNaN(d) ? "invalid" : "valid"; },
  (t) => new Date().getTime() === Date.now(),
  (t) => typeof Date(),
  (t) => Date(1, 2, 3) === new Date().toString(),
  (t) => new Date().toString() === String(new Date(Date.now())),
  (t) => { const s = new Stamp(t); return [s instanceof Stamp, s instanceof Date, s.day(), s.getTime()]; },
  (t) => { const o = Reflect.construct(Date, [t], Other); return [Object.getPrototypeOf(o) === Other.prototype, Date.prototype.getTime.call(o)]; },
  (t) => [Date.length, Date.name, Date.prototype.constructor === Date, Object.getPrototypeOf(new Date(t)) === Date.prototype],
  (t) => { const d = Object.getOwnPropertyDescriptor(Date, "prototype"); return [d.enumerable, d.configurable, d.value === Date.prototype]; },
  (t) => new Date({ valueOf() { return 86400000; } }).getTime(),
  (t) => new Date({ [Symbol.toPrimitive]() { return t; } }).getTime(),
  (t) => [typeof Date.UTC, typeof Date.parse, typeof Date.now, Date.UTC(2026, 1, 2)],
  (t) => [Date.parse(t), Date.parse({ toString() { return t; } }), Date.parse.name, Date.parse.length, String(Date.parse)],
  (t) => new Date(t, undefined).getTime(),
  (t) => String(new Date(NaN)),
  (t) => { const d = new Date(t); return [String(d), d.toString(), d.toTimeString(), Date().endsWith(" (Coordinated Universal Time)")]; },
  (t) => { try { return Date.prototype.getTime.call({}); } catch (e) { return e.constructor.name; } },
];
export function parseStdoutLine(line, ts) {
  const [i, t] = JSON.parse(line);
  let v;
  try { v = CASES[i](t); } catch (e) { v = "threw " + e.constructor.name; }
  return [{ kind: "stdout", ts: "", text: JSON.stringify(v === undefined ? "undefined" : v) }];
}
"#;

#[test]
fn the_date_constructor_gives_v8s_answers() {
    let stamps = [
        "2026-01-01T00:00:00.000Z",
        "2026-07-04T12:34:56.789123",
        "Sat, 05 Dec 2026 19:03:51 GMT",
        "2026-12-05 19:03:51+02:00",
        "not a date",
        "",
    ];
    let lines = (0..23)
        .flat_map(|case| {
            stamps
                .iter()
                .map(move |t| serde_json::json!([case, t]).to_string())
        })
        .collect();
    assert_agrees(DATE_CONSTRUCTOR_PARSER, lines, "Date constructor calls");
}
