// Seeded randomness for the differential fuzzer: a small PRNG and the random data it draws
// (doubles from random bit patterns, number literals, Unicode text, keys, nested JSON values).
// Everything here is a pure function of the seed, so a case is reproduced from its seed alone.

/** A seeded generator (mulberry32 on a 32-bit state; the seed is any integer). */
export class Rng {
  #s;
  constructor(seed) {
    this.#s = (Number(seed) >>> 0) ^ 0x9e3779b9;
  }
  /** A uniform 32-bit unsigned integer. */
  u32() {
    let a = (this.#s = (this.#s + 0x6d2b79f5) | 0);
    a = Math.imul(a ^ (a >>> 15), a | 1);
    a ^= a + Math.imul(a ^ (a >>> 7), a | 61);
    return (a ^ (a >>> 14)) >>> 0;
  }
  /** A float in [0, 1). */
  float() {
    return this.u32() / 4294967296;
  }
  /** An integer in [lo, hi). */
  int(lo, hi) {
    return lo + Math.floor(this.float() * (hi - lo));
  }
  /** True with probability p. */
  chance(p) {
    return this.float() < p;
  }
  pick(items) {
    return items[this.int(0, items.length)];
  }
  /** `[weight, value]` pairs: a value drawn in proportion to its weight. */
  weighted(pairs) {
    let total = 0;
    for (const [w] of pairs) total += w;
    let x = this.float() * total;
    for (const [w, v] of pairs) if ((x -= w) < 0) return v;
    return pairs[pairs.length - 1][1];
  }
  /** A shuffled copy. */
  shuffle(items) {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
  /** A new generator whose stream depends on this one (for independent sub-draws). */
  fork() {
    return new Rng(this.u32());
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

const bits = new DataView(new ArrayBuffer(8));

/** The double whose IEEE-754 bits are two random 32-bit words; NaN and ±Infinity redrawn. */
export function bitDouble(rng) {
  for (;;) {
    bits.setUint32(0, rng.u32());
    bits.setUint32(4, rng.u32());
    const x = bits.getFloat64(0);
    if (Number.isFinite(x)) return x;
  }
}

/** A double with a random exponent in a narrower range (values of everyday size). */
function everydayDouble(rng) {
  bits.setUint32(0, (rng.u32() & 0x800fffff) | ((rng.int(1023 - 30, 1023 + 40) << 20) >>> 0));
  bits.setUint32(4, rng.u32());
  return bits.getFloat64(0);
}

export const SPECIAL_DOUBLES = [
  0, -0, 1, -1, 0.1, 0.2, 0.30000000000000004, 1.9927242086268961, 5e-324, -5e-324, 2.2250738585072014e-308,
  2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308, 9007199254740991, 9007199254740992,
  9007199254740993, -9007199254740993, 2 ** 63, 2 ** 64, 1e21, 1e-7, 123456789012345680000, 0.000001, 1e-6, 4.35,
  0.1 + 0.7, 100, 1e16, 2 ** 53 * 3, 4294967295, 4294967296, -2147483648, 0.5, 1.5, 2.5, 1 / 3, Math.PI, Math.E,
];

/**
 * A finite double: mostly random bit patterns, the rest everyday magnitudes, short decimals,
 * integers past 2^53 and the edge values above.
 */
export function double(rng) {
  return rng.weighted([
    [6, () => bitDouble(rng)],
    [3, () => everydayDouble(rng)],
    [2, () => Number((rng.float() * 10 ** rng.int(0, 8)).toFixed(rng.int(0, 12)))],
    [1, () => rng.int(-1e9, 1e9) * 2 ** rng.int(20, 60)],
    [2, () => rng.pick(SPECIAL_DOUBLES)],
  ])();
}

/**
 * A JSON number literal as text, not always the shortest form: long digit strings (integers
 * past 2^53, more digits than a double holds), exponents, `-0`, values that underflow to 0.
 */
export function numberLiteral(rng) {
  const digits = (n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += String(rng.int(0, 10));
    return s;
  };
  return rng.weighted([
    [4, () => JSON.stringify(double(rng))],
    [2, () => (rng.chance(0.3) ? "-" : "") + String(rng.int(1, 10)) + digits(rng.int(15, 26))],
    [2, () => `${rng.chance(0.3) ? "-" : ""}${rng.int(0, 10)}.${digits(rng.int(1, 30))}`],
    [2, () => `${rng.chance(0.3) ? "-" : ""}${rng.int(1, 10)}${rng.chance(0.5) ? "." + digits(rng.int(1, 20)) : ""}${rng.pick(["e", "E"])}${rng.pick(["", "+", "-"])}${rng.int(0, 330)}`],
    [1, () => rng.pick(["-0", "-0.0", "0e5", "-0E-3", "1e-400", "2.4703282292062328e-324", "2.4703282292062327e-324", "9007199254740993", "18446744073709551615", "1.00000000000000011102230246251565404236316680908203125"])],
  ])();
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

const WORDS = ["ok", "read", "file", "the", "build", "tool", "error", "done", "src/main.rs", "npm", "λ", "naïve", "café", "über", "ß"];
const PIECES = [
  // CJK, Hangul, Japanese
  "漢字", "日本語のテキスト", "中文", "한국어", "カタカナ",
  // RTL
  "مرحبا", "שלום",
  // emoji: presentation, text-default, ZWJ sequences, skin tones, flags, keycaps, newer ones
  "😀", "🚀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "1️⃣", "⚠", "⚠️", "❤", "🫨", "🪿", "☕", "✔", "💬",
  // combining marks and look-alikes
  "e\u0301", "a\u0308\u0304", "\u1100\u1161\u11a8", "İ", "ﬁ", "ǅ", "Σ", "ς", "ﬃ",
  // escapes JSON must carry
  '"quoted"', "back\\slash", "tab\there", "\u0000", "\u0001", "\u001f", "\u007f", "\u2028", "\u2029",
  // spaces JS treats specially
  "\u00a0", "\u3000", "\u2009", "\u200b", "\u0085", "\ufeff", "\ufffd",
  // astral non-emoji
  "𝔘𝔫𝔦", "𐍈", "𠜎",
];

/** A short Unicode text (no line breaks): words, emoji, CJK, combining marks, escapes. */
export function text(rng, { maxParts = 6, loneSurrogates = false } = {}) {
  const n = rng.int(0, maxParts + 1);
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      rng.weighted([
        [5, () => rng.pick(WORDS)],
        [5, () => rng.pick(PIECES)],
        [1, () => String(rng.int(0, 100000))],
        [1, () => String.fromCodePoint(rng.int(0x20, 0x7f))],
        [1, () => String.fromCodePoint(rng.pick([rng.int(0xa0, 0xd800), rng.int(0xe000, 0xfffe), rng.int(0x10000, 0x10ffff)]))],
        [loneSurrogates ? 1 : 0, () => String.fromCharCode(rng.int(0xd800, 0xe000))],
      ])(),
    );
  }
  return parts.join(rng.pick([" ", " ", "", "-", "  "]));
}

// Keys of nested data: integer-like ones (JS lists them first, ascending), ones that only look
// integer-like, Unicode, empty, and names with meaning elsewhere (`__proto__`, `toJSON`).
const KEYS = [
  "a", "b", "id", "name", "value", "items", "nested", "ключ", "键", "🔑", "e\u0301", "", " ", "0", "1", "2", "10", "01", "-1",
  "1.5", "4294967294", "4294967295", "9007199254740993", "constructor", "toJSON", "__proto__", "hasOwnProperty", "length",
  "a b", "a\"b", "x\\y", "\u2028", "$ref", "@type",
];

/** A key for nested data; `plain` leaves out the ones with meaning to JS objects. */
export function key(rng, { plain = false } = {}) {
  const k = rng.chance(0.7) ? rng.pick(KEYS) : text(rng, { maxParts: 2 });
  if (plain && (k === "__proto__" || k === "toJSON")) return "k_" + k;
  return k;
}

// ---------------------------------------------------------------------------------------------
// JSON values with exact literals
// ---------------------------------------------------------------------------------------------

/** A number written as this exact literal in JSON text. */
export class Literal {
  constructor(text) {
    this.text = text;
  }
}

/** An object written with these key/value pairs in order, duplicates included. */
export class Pairs {
  constructor(pairs) {
    this.pairs = pairs;
  }
}

/**
 * JSON text of a value that may hold `Literal`s and `Pairs`; `space` is what goes after `:`
 * and `,` (JSON allows spaces and tabs there).
 */
export function toJsonText(value, space = "") {
  if (value instanceof Literal) return value.text;
  if (value instanceof Pairs) return `{${value.pairs.map(([k, v]) => `${JSON.stringify(k)}:${space}${toJsonText(v, space)}`).join("," + space)}}`;
  if (Array.isArray(value)) return `[${value.map((v) => toJsonText(v, space)).join("," + space)}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${space}${toJsonText(v, space)}`).join("," + space)}}`;
  }
  return JSON.stringify(value);
}

/**
 * A random nested JSON value (objects may repeat a key, numbers may be exact literals); depth
 * and breadth bounded well inside the package's entry limits.
 */
export function nested(rng, depth = 0, opts = {}) {
  const leaf = depth >= (opts.maxDepth ?? 5) || rng.chance(0.35 + depth * 0.1);
  if (leaf) {
    return rng.weighted([
      [4, () => double(rng)],
      [2, () => new Literal(numberLiteral(rng))],
      [4, () => text(rng, opts)],
      [1, () => rng.chance(0.5)],
      [1, () => null],
    ])();
  }
  const n = rng.int(0, opts.maxBreadth ?? 6);
  if (rng.chance(0.45)) return Array.from({ length: n }, () => nested(rng, depth + 1, opts));
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const k = i > 0 && rng.chance(0.08) ? pairs[rng.int(0, pairs.length)][0] : key(rng, opts);
    pairs.push([k, nested(rng, depth + 1, opts)]);
  }
  return new Pairs(pairs);
}
