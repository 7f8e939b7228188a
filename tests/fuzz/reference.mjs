// The fuzzer's reference: runs a parser natively in Node under the sandbox's determinism rules
// and says what the page must get, exactly, for each line and for a TranscriptBuilder (SPEC §2,
// §4, §5): the parser's return value as `JSON.parse(JSON.stringify(value ?? null))` gives it,
// invalid entries dropped, a failed line's fallback entry, a stateful instance reset after a
// failure, streamed deltas merged.
//
// Determinism (tests/corpus/README.md): a run is a fresh evaluation of the module; while a
// parser runs, `Date.now()` / `new Date()` read the current line's ts (0 before the first line)
// and `Math.random()` is mulberry32 seeded with 0x5EED at the start of the run.

const RealDate = Date;
const realRandom = Math.random;

// ---------------------------------------------------------------------------------------------
// Module evaluation
// ---------------------------------------------------------------------------------------------

const ESM_LINE = /^export\s+(?:(function|const|let|class)\s+([A-Za-z_$][\w$]*)|\{([^}]*)\};?)/;

/**
 * A function that evaluates `source` afresh and returns its exports. ES modules are turned
 * into a strict function body (the generator's export forms only: `export function|const`,
 * `export { a as b }`), so every run is a new evaluation without leaking module records.
 */
export function compileModule(source) {
  if (!/^export\s/m.test(source)) {
    const body = new Function("module", "exports", "require", source);
    return () => {
      const module = { exports: {} };
      const require = (name) => {
        throw new Error(`require(${JSON.stringify(String(name))}) is not available to ui-parser modules`);
      };
      body.call(module.exports, module, module.exports, require);
      return module.exports;
    };
  }
  const names = [];
  const lines = source.split("\n").map((line) => {
    const m = ESM_LINE.exec(line);
    if (!m) {
      if (/^export\b/.test(line)) throw new Error(`the reference cannot evaluate this export form: ${line.slice(0, 80)}`);
      return line;
    }
    if (m[2]) {
      names.push([m[2], m[2]]);
      return line.replace(/^export\s+/, "");
    }
    for (const spec of m[3].split(",").map((s) => s.trim()).filter(Boolean)) {
      const [local, , exported = local] = spec.split(/\s+/);
      names.push([exported, local]);
    }
    return "";
  });
  const body = new Function(`"use strict";\n${lines.join("\n")}\nreturn { ${names.map(([e, l]) => `${JSON.stringify(e)}: ${l}`).join(", ")} };`);
  return () => body();
}

// ---------------------------------------------------------------------------------------------
// Determinism while a parser runs
// ---------------------------------------------------------------------------------------------

function mulberry32(state) {
  let a = (state.seed = (state.seed + 0x6d2b79f5) | 0);
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// Triage (differential.mjs): while `formatRisk` is a Set, the lines on which a parser formats a
// number where boa is known to be inexact (toPrecision/toExponential/toFixed of tiny values or
// with many digits) are added to it.
let formatRisk = null;
let currentLine = null;
const NUMBER_FORMATS = ["toPrecision", "toExponential", "toFixed"];
const realFormats = NUMBER_FORMATS.map((name) => Number.prototype[name]);

/** Runs `fn`; returns the lines on which it formatted numbers where boa is inexact. */
export function collectFormatRisk(fn) {
  formatRisk = new Set();
  try {
    fn();
    return formatRisk;
  } finally {
    formatRisk = null;
  }
}

function watchFormats() {
  NUMBER_FORMATS.forEach((name, i) => {
    const real = realFormats[i];
    Number.prototype[name] = function (digits) {
      const x = Number(this);
      if (x !== 0 && Number.isFinite(x) && (Math.abs(x) < 1e-40 || Number(digits) > 16)) formatRisk?.add(currentLine);
      return real.call(this, digits);
    };
  });
}

function unwatchFormats() {
  NUMBER_FORMATS.forEach((name, i) => (Number.prototype[name] = realFormats[i]));
}

/** Runs `fn` with Date and Math.random as the sandbox has them for `clock` (a run's state). */
function deterministic(clock, fn) {
  if (formatRisk) watchFormats();
  function FakeDate(...args) {
    if (!new.target) return new RealDate(clock.now).toString();
    return args.length === 0 ? Reflect.construct(RealDate, [clock.now], new.target) : Reflect.construct(RealDate, args, new.target);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = () => clock.now;
  FakeDate.parse = RealDate.parse;
  FakeDate.UTC = RealDate.UTC;
  globalThis.Date = FakeDate;
  Math.random = () => mulberry32(clock);
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
    Math.random = realRandom;
    if (formatRisk) unwatchFormats();
  }
}

// ---------------------------------------------------------------------------------------------
// A run: one evaluation of the module, its entry point, the outcome of each line
// ---------------------------------------------------------------------------------------------

/**
 * One run of a parser. `entry`: `"auto"` (createStdoutParser when exported, as a registry's
 * run and a TranscriptBuilder use it) or `"direct"` (the module's own parseStdoutLine, as
 * `adapter(type).parseStdoutLine` is).
 */
export class ReferenceRun {
  #clock = { now: 0, seed: 0x5eed };
  #parse;
  #instance = null;
  #quirks;

  /** `quirks`: a known package bug to model (classification only, see QUIRKS). */
  constructor(evaluate, entry = "auto", quirks = {}) {
    this.#quirks = quirks;
    const exports = deterministic(this.#clock, evaluate);
    const factory = exports.createStdoutParser;
    const direct = exports.parseStdoutLine;
    if (entry === "auto" && typeof factory === "function") {
      const instance = deterministic(this.#clock, () => factory());
      this.#instance = instance;
      this.#parse = (line, ts) => instance.parseLine(line, ts);
      this.entryPoint = "createStdoutParser";
    } else if (typeof direct === "function") {
      this.#parse = (line, ts) => direct(line, ts);
      this.entryPoint = "parseStdoutLine";
    } else {
      throw new Error("module has no usable export");
    }
  }

  /** The outcome of one line: `{ value }` (plain data) or `{ threw: true, thrown }`. */
  outcome(line, ts) {
    this.#clock.now = RealDate.parse(ts) || 0;
    currentLine = line;
    try {
      return deterministic(this.#clock, () => {
        const value = this.#parse(line, ts);
        const failing = this.#quirks.failing?.get(line) ?? this.#quirks.failingPrefixes?.find(([prefix]) => line.startsWith(prefix))?.[1];
        if (failing !== undefined) return { threw: true, thrown: failing };
        if (this.#quirks.toJSONKey && hasToJSONDataKey(value)) return { threw: true, thrown: "converted value is not plain data" };
        return { value: toPlain(value) };
      });
    } catch (e) {
      return { threw: true, thrown: this.#quirks.thrownNumbers ? thrownTextAsPackage(e) : thrownText(e) };
    } finally {
      this.#clock.now = 0;
    }
  }

  /** What the host does after a failed line: the instance's reset(), if it has one. */
  reset() {
    const instance = this.#instance;
    if (instance && typeof instance.reset === "function") deterministic(this.#clock, () => instance.reset());
  }
}

/**
 * Known package bugs a reference run can model, so the fuzzer can say which one explains a
 * mismatch (differential.mjs): `toJSONKey` (a returned object with a data key named `toJSON`
 * fails the line), `emptyChunkPair` (an empty stdout chunk between the halves of a surrogate
 * pair makes both U+FFFD), `failing` (a Map: these lines fail with this error text, as the
 * package said they did), `failingPrefixes` (`[prefix, error]`: lines that start so) and
 * `thrownNumbers` (a thrown value's numbers are worded as the package words them).
 */
export const QUIRKS = ["toJSONKey", "emptyChunkPair", "failing", "failingPrefixes", "thrownNumbers"];

/**
 * `thrownText` as the package words a thrown value's numbers: integers below 2^64 with all
 * their digits (2^63 is 9223372036854775808, not 9223372036854776000) and values from 2^64 to
 * 1e21 with an exponent (1e20 is 1e+20).
 */
function thrownTextAsPackage(e) {
  if (e instanceof Error || typeof e === "string" || e === undefined || typeof e === "function" || typeof e === "symbol" || typeof e === "bigint") return thrownText(e);
  const marks = [];
  const text = JSON.stringify(e, (_k, v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return v;
    const a = Math.abs(v);
    if (Number.isInteger(v) && a >= 2 ** 53 && a < 2 ** 64) return marks.push(BigInt(v).toString()) && `\u0000${marks.length - 1}\u0000`;
    if (a >= 2 ** 64 && a < 1e21) return marks.push(v.toExponential()) && `\u0000${marks.length - 1}\u0000`;
    return v;
  });
  return text?.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i) => marks[Number(i)]);
}

/** Whether JSON.stringify meets an object with an own `toJSON` that is not a function. */
function hasToJSONDataKey(value) {
  let found = false;
  JSON.stringify(value ?? null, function (_key, v) {
    if (v !== null && typeof v === "object" && Object.hasOwn(v, "toJSON") && typeof v.toJSON !== "function") found = true;
    return v;
  });
  return found;
}

/** A value as the page receives it: JavaScript's JSON round trip (`undefined` is `null`). */
export function toPlain(value) {
  const text = JSON.stringify(value ?? null);
  return text === undefined ? null : JSON.parse(text);
}

/**
 * A thrown value as Paperclip's parse-error entry words it: an Error's message (`{}` when
 * empty), a string (`""` when empty), else its JSON; undefined for `undefined`, functions and
 * symbols.
 */
export function thrownText(e) {
  if (e instanceof Error) return e.message === "" ? "{}" : e.message;
  if (typeof e === "string") return e === "" ? '""' : e;
  if (e === undefined || typeof e === "function" || typeof e === "symbol") return undefined;
  if (typeof e === "bigint") return String(e);
  return JSON.stringify(e);
}

// ---------------------------------------------------------------------------------------------
// Entries: validation (SPEC §2) and the line rule
// ---------------------------------------------------------------------------------------------

const CHANGE_TYPES = new Set(["add", "remove", "context", "hunk", "file_header", "truncation"]);
const isString = (v) => typeof v === "string";
const isBool = (v) => typeof v === "boolean";
const isNumber = (v) => typeof v === "number";
const REQUIRED = {
  assistant: { text: isString },
  thinking: { text: isString },
  user: { text: isString },
  stderr: { text: isString },
  system: { text: isString },
  stdout: { text: isString },
  tool_call: { name: isString },
  tool_result: { toolUseId: isString, content: isString, isError: isBool },
  init: { model: isString, sessionId: isString },
  result: {
    text: isString,
    inputTokens: isNumber,
    outputTokens: isNumber,
    cachedTokens: isNumber,
    costUsd: isNumber,
    subtype: isString,
    isError: isBool,
    errors: (v) => Array.isArray(v) && v.every(isString),
  },
  diff: { changeType: (v) => CHANGE_TYPES.has(v), text: isString },
};
const LIMITS = { stringBytes: 1 << 20, arrayLen: 10_000, objectKeys: 1_000, depth: 32 };
const utf8 = new TextEncoder();

/** Whether a plain value fits the package's default entry limits (the entry is depth 1). */
function fits(v, depth) {
  if (typeof v === "string") return v.length <= LIMITS.stringBytes / 3 || utf8.encode(v).length <= LIMITS.stringBytes;
  if (Array.isArray(v)) return depth + 1 <= LIMITS.depth && v.length <= LIMITS.arrayLen && v.every((x) => fits(x, depth + 1));
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v);
    return depth + 1 <= LIMITS.depth && keys.length <= LIMITS.objectKeys && keys.every((k) => fits(k, 0) && fits(v[k], depth + 1));
  }
  return true;
}

/** Whether a plain value is a valid TranscriptEntry (unknown kinds, bad fields are dropped). */
export function isValidEntry(e) {
  if (e === null || typeof e !== "object" || Array.isArray(e)) return false;
  const required = REQUIRED[e.kind];
  if (!Object.hasOwn(REQUIRED, e.kind) || !isString(e.ts)) return false;
  for (const [field, ok] of Object.entries(required)) if (!ok(e[field])) return false;
  const keys = Object.keys(e);
  return keys.length <= LIMITS.objectKeys && keys.every((k) => fits(k, 0) && fits(e[k], 1));
}

/** The generic parser's entry: the raw line. */
export const genericEntry = (line, ts) => ({ kind: "stdout", ts, text: line });

/** `line` as Paperclip's parse-error entry quotes it: 157 UTF-16 units and `...` past 160. */
function preview(line) {
  return line.length <= 160 ? line : line.slice(0, 157).toWellFormed() + "...";
}

/** Paperclip's parse-error entry, key order included. */
export function parseErrorEntry(line, ts, error) {
  return {
    kind: "result",
    ts,
    text: `Chat transcript error: ${error || "unknown parser error"}. Falling back for line: ${preview(line)}`,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    costUsd: 0,
    subtype: "transcript_parse_error",
    isError: true,
    errors: [],
  };
}

const jsonType = (v) => (v === null ? "null" : typeof v === "boolean" ? "a boolean" : typeof v === "number" ? "a number" : typeof v === "string" ? "a string" : Array.isArray(v) ? "an array" : "an object");

/**
 * The line rule (crates/parsebox-transcript/src/line_rule.rs): what one outcome gives the
 * page, and whether the run's instance is reset before its next line. `style` is what a
 * failed line shows: `"generic"` (parseLine) or `"parseError"` (a TranscriptBuilder).
 */
export function settle(line, ts, outcome, style) {
  const failed = (error) => ({ entries: [style === "generic" ? genericEntry(line, ts) : parseErrorEntry(line, ts, error)], resets: true, failed: true });
  if (outcome.threw) return failed(outcome.thrown);
  const v = outcome.value;
  let items;
  if (v === null) items = [];
  else if (Array.isArray(v)) items = v;
  else if (typeof v === "object") items = [v];
  else return failed(`parser returned ${jsonType(v)}, expected an array of entries`);
  const entries = items.filter(isValidEntry);
  // Every entry invalid: the line ran to completion and shows the raw line, whatever the style.
  if (items.length > 0 && entries.length === 0) return { entries: [genericEntry(line, ts)], resets: false, failed: true };
  return { entries, resets: false, failed: false };
}

/** The page's answer for each `[line, ts]` of one run (registry.parseLine, an adapter run). */
export function expectedLines(evaluate, lines, { entry = "auto", style = "generic", quirks = {} } = {}) {
  const run = new ReferenceRun(evaluate, entry, quirks);
  return lines.map(([line, ts]) => {
    const settled = settle(line, ts, run.outcome(line, ts), style);
    if (settled.resets) run.reset();
    return settled.entries;
  });
}

/**
 * Each `[line, ts]` parsed by the stateless export alone, independently (the module evaluated
 * once): `adapter(type).parseStdoutLine`.
 */
export function expectedStateless(evaluate, lines, { quirks = {} } = {}) {
  const run = new ReferenceRun(evaluate, "direct", quirks);
  return lines.map(([line, ts]) => settle(line, ts, run.outcome(line, ts), "generic").entries);
}

// ---------------------------------------------------------------------------------------------
// A TranscriptBuilder (SPEC §5)
// ---------------------------------------------------------------------------------------------

/** JavaScript truthiness of a plain value (what makes a `delta` streamed). */
const truthy = (v) => Boolean(v);

/** Appends `entry` to `out`, merging consecutive streamed assistant/thinking deltas. */
function fold(out, entry) {
  const last = out[out.length - 1];
  if (last && last.kind === entry.kind && (entry.kind === "assistant" || entry.kind === "thinking") && truthy(last.delta) && truthy(entry.delta)) {
    last.text += entry.text;
    last.ts = entry.ts;
    return;
  }
  out.push(JSON.parse(JSON.stringify(entry)));
}

/** Splits complete stdout lines off `pending`: `[lines, rest]` (split on \r?\n, trimmed, non-empty). */
function takeLines(pending) {
  const pieces = pending.split(/\r?\n/);
  const rest = pieces.pop();
  return [pieces.map((l) => l.trim()).filter((l) => l.length > 0), rest];
}

/**
 * What a TranscriptBuilder over a fresh run of the parser holds after pushing `chunks` and
 * `finish()`; `style` as the builder's `failedLineEntry`.
 */
export function expectedTranscript(evaluate, chunks, { style = "parseError", quirks = {} } = {}) {
  const run = new ReferenceRun(evaluate, "auto", quirks);
  const out = [];
  let pending = "";
  let pairCut = false; // quirks.emptyChunkPair: an empty chunk came after a high surrogate
  const parse = (line, ts) => {
    const settled = settle(line, ts, run.outcome(line, ts), style);
    if (settled.resets) run.reset();
    for (const e of settled.entries) fold(out, e);
  };
  for (const c of chunks) {
    if (c.stream === "stdout") {
      let text = c.chunk;
      if (quirks.emptyChunkPair) {
        if (text === "" && /[\uD800-\uDBFF]$/.test(pending)) pairCut = true;
        else if (text !== "" && pairCut) {
          pairCut = false;
          if (/^[\uDC00-\uDFFF]/.test(text)) {
            pending = pending.slice(0, -1) + "\uFFFD";
            text = "\uFFFD" + text.slice(1);
          }
        }
      }
      const [lines, rest] = takeLines(pending + text);
      pending = rest;
      for (const line of lines) parse(line, c.ts);
    } else {
      fold(out, { kind: c.stream, ts: c.ts, text: c.chunk });
    }
  }
  // A line that ended in "\r" without its "\n" yet keeps the "\r" pending; at the end it is trimmed.
  const last = pending.trim();
  if (last.length > 0) parse(last, chunks[chunks.length - 1].ts);
  return out;
}

/** The log's complete lines, as a builder feeds them (for parseLine-style checks). */
export function logLines(log) {
  const pieces = log.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  return pieces;
}
