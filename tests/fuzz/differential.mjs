// One differential case: the same parser and log through the Node reference and through the
// package (inline, in a Worker; in Node, or in Chromium with browser.mjs), every answer compared
// byte for byte as JSON text (values and key order). A mismatch is described (the first
// differing line or entry and the paths that differ), classified (a known bug, or new) and can
// be shrunk to a smaller log.
import { Rng } from "./random.mjs";
import { lineChunks, splitChunks, tsAt } from "./generate.mjs";
import { collectFormatRisk, compileModule, expectedLines, expectedStateless, expectedTranscript, logLines } from "./reference.mjs";
import { nodePackage } from "./package.mjs";

export const HOSTS = ["inline", "worker"];

// ---------------------------------------------------------------------------------------------
// A case's inputs
// ---------------------------------------------------------------------------------------------

/** A stable 32-bit number for a name (the seed of a corpus case's chunk splits). */
export function hashName(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `case` with everything a check reads: chunks (drawn from its seed if absent), style. */
export function complete(c) {
  const rng = new Rng(c.seed ?? hashName(c.name ?? c.source));
  const chunks = c.chunks ?? splitChunks(rng, c.log);
  const style = c.style ?? (rng.chance(0.7) ? "parseError" : "generic");
  return { ...c, chunks, style };
}

/** The log's lines as parseLine gets them, each with its own ts. */
const lineInputs = (c) => logLines(c.log).map((line, i) => [line, tsAt(i)]);
/** The stdout chunks alone, every one with the same ts (a chunking-invariance input). */
const SAME_TS = () => tsAt(0);
const sameTs = (chunks) => chunks.filter((k) => k.stream === "stdout").map((k) => ({ ...k, ts: SAME_TS() }));

// ---------------------------------------------------------------------------------------------
// Checks: what the page gets one way, what it must get
// ---------------------------------------------------------------------------------------------

/**
 * Each check: where it runs, whether it applies to a module (`exp`: its exports), whether it
 * answers per line, whether it needs a registry of its own (the others share one: each
 * TranscriptBuilder and adapter run is a run of its own, and parseLine, first, has the type's
 * default run), and its two sides (`session`: the package side's, answers.mjs).
 * `expected` runs the reference (or, for `chunking`, the package in another way: chunking must
 * not change a transcript).
 */
export const CHECKS = {
  parseLine: {
    hosts: ["inline", "worker"],
    perLine: true,
    expected: (c, evaluate, _session, quirks) => expectedLines(evaluate, lineInputs(c), { quirks }),
    actual: (session, c) => session.parseLines(lineInputs(c)),
  },
  stateless: {
    hosts: ["inline"],
    perLine: true,
    ownRegistry: true, // the type's default run, fresh (parseLine has the other registry's)
    applies: (exp) => typeof exp.parseStdoutLine === "function" && typeof exp.createStdoutParser === "function",
    expected: (c, evaluate, _session, quirks) => expectedStateless(evaluate, lineInputs(c), { quirks }),
    actual: (session, c) => session.adapterStateless(lineInputs(c)),
  },
  adapterRun: {
    hosts: ["inline"],
    perLine: true,
    applies: (exp) => typeof exp.createStdoutParser === "function",
    expected: (c, evaluate, _session, quirks) => expectedLines(evaluate, lineInputs(c), { quirks }),
    actual: (session, c) => session.adapterRun(lineInputs(c)),
  },
  lines: {
    hosts: ["inline"],
    expected: (c, evaluate, _session, quirks) => expectedTranscript(evaluate, lineChunks(c.log), { style: c.style, quirks }),
    actual: (session, c) => session.transcript(lineChunks(c.log), c.style),
  },
  chunks: {
    hosts: ["inline", "worker"],
    expected: (c, evaluate, _session, quirks) => expectedTranscript(evaluate, c.chunks, { style: c.style, quirks }),
    actual: (session, c) => session.transcript(c.chunks, c.style),
  },
  chunking: {
    hosts: ["inline"],
    expected: (c, evaluate, session) => session.transcript(lineChunks(c.log, SAME_TS), c.style),
    actual: (session, c) => session.transcript(sameTs(c.chunks), c.style),
  },
};

/**
 * Runs `case` (`{ name, source, log, chunks?, style?, seed? }`) on `hosts`, the checks named
 * in `only` (default all), with the package in `target` (default: Node). Returns
 * `{ checks, mismatches }`: how many checks ran, and each mismatch
 * `{ check, host, index, expected, actual, diffs, known }`.
 */
export async function runCase(input, { hosts = HOSTS, only = null, target = nodePackage() } = {}) {
  const c = complete(input);
  const evaluate = compileModule(c.source);
  const exports = evaluate();
  const mismatches = [];
  let checks = 0;
  for (const host of hosts) {
    const names = Object.keys(CHECKS).filter((n) => (!only || only.includes(n)) && CHECKS[n].hosts.includes(host) && (CHECKS[n].applies?.(exports) ?? true));
    const groups = [names.filter((n) => !CHECKS[n].ownRegistry), ...names.filter((n) => CHECKS[n].ownRegistry).map((n) => [n])];
    for (const group of groups.filter((g) => g.length > 0)) {
      let session;
      try {
        session = await target.open(host, c.source);
      } catch (e) {
        // Node runs the module; the package must load it too.
        const why = String(e.message ?? e);
        const known = /unsafe_regex/.test(why) ? "unsafe-regex" : null;
        mismatches.push({ check: "load", host, perLine: false, index: 0, expected: "ready", actual: why, diffs: [], known, kinds: { [known ?? "new"]: 1 } });
        break;
      }
      try {
        for (const name of group) {
          const check = CHECKS[name];
          checks++;
          const expected = await check.expected(c, evaluate, session);
          const actual = await check.actual(session, c);
          const m = await mismatch(name, expected, actual, c, evaluate, session, target);
          // The type's counters say why (a line failed, an answer came late or not at all).
          if (m) mismatches.push({ check: name, host, ...m, diagnostics: await session.diagnostics?.() });
        }
      } finally {
        await session.close();
      }
    }
  }
  return { checks, mismatches, case: c };
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
/** Distance in units in the last place between two doubles of the same sign (else Infinity). */
export function ulps(x, y) {
  if (x === y) return 0;
  if (Math.sign(x) !== Math.sign(y)) return Infinity;
  f64[0] = x;
  const a = u64[0];
  f64[0] = y;
  const b = u64[0];
  return Number(a > b ? a - b : b - a);
}

/** Where two plain values differ: `[{ path, expected, actual, what }]` (at most `max`). */
export function diff(e, a, path = "$", out = [], max = 12) {
  if (out.length >= max) return out;
  if (JSON.stringify(e) === JSON.stringify(a)) return out;
  if (typeof e === "number" && typeof a === "number") {
    out.push({ path, expected: e, actual: a, what: `numbers ${ulps(e, a)} ulp apart` });
  } else if (Array.isArray(e) && Array.isArray(a)) {
    if (e.length !== a.length) out.push({ path, what: `array length ${e.length} vs ${a.length}` });
    for (let i = 0; i < Math.min(e.length, a.length); i++) diff(e[i], a[i], `${path}[${i}]`, out, max);
  } else if (e && a && typeof e === "object" && typeof a === "object" && !Array.isArray(e) && !Array.isArray(a)) {
    const ek = Object.keys(e);
    const ak = Object.keys(a);
    if (JSON.stringify(ek) !== JSON.stringify(ak)) out.push({ path, what: `keys ${JSON.stringify(ek)} vs ${JSON.stringify(ak)}` });
    for (const k of ek) if (Object.hasOwn(a, k)) diff(e[k], a[k], `${path}[${JSON.stringify(k)}]`, out, max);
  } else if (typeof e === "string" && typeof a === "string") {
    let i = 0;
    while (i < Math.min(e.length, a.length) && e[i] === a[i]) i++;
    const unit = (s) => (i < s.length ? `U+${s.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0")}` : "end");
    out.push({ path, expected: e, actual: a, what: `strings differ at unit ${i} (${unit(e)} vs ${unit(a)})` });
  } else {
    out.push({ path, expected: e, actual: a, what: "values differ" });
  }
  return out;
}

/** Whether two plain values are equal when numbers may be up to `ulp` apart and lone surrogates are U+FFFD. */
function sameLoosely(e, a, { ulp = 0, wellFormed = false }) {
  if (typeof e === "number" && typeof a === "number") return ulps(e, a) <= ulp;
  if (typeof e === "string" && typeof a === "string") return e === a || (wellFormed && e.toWellFormed() === a);
  if (Array.isArray(e) && Array.isArray(a)) return e.length === a.length && e.every((x, i) => sameLoosely(x, a[i], { ulp, wellFormed }));
  if (e && a && typeof e === "object" && typeof a === "object" && !Array.isArray(e) && !Array.isArray(a)) {
    const ek = Object.keys(e);
    const ak = Object.keys(a);
    return ek.length === ak.length && ek.every((k, i) => (wellFormed ? k.toWellFormed() === ak[i] : k === ak[i]) && sameLoosely(e[k], a[ak[i]], { ulp, wellFormed }));
  }
  return e === a;
}

// What explains a mismatch: the known bugs the Rust side is fixing, and the findings of this
// fuzzer still open (each modelled by a reference quirk, or recognised by its message). A
// mismatch nothing explains is NEW.
export const KNOWN = {
  "float-ulp": "REGRESSION (fixed in session 26): doubles come back 1 ulp off (serde_json float parsing)",
  "parseline-stateless": "REGRESSION (fixed in session 26): registry.parseLine calls parseStdoutLine instead of the createStdoutParser instance for modules exporting both",
  "lone-surrogate": "REGRESSION (fixed in session 37): lone surrogates in returned strings become U+FFFD (SPEC §2 keeps them)",
  "tojson-key": "REGRESSION (fixed in session 26): a returned object with a data key named toJSON fails the line (\"converted value is not plain data\"; SPEC §2: it is plain data)",
  "empty-chunk-pair": "REGRESSION (fixed in session 26): an empty stdout chunk between the halves of a surrogate pair makes both U+FFFD (SPEC §6: it does not separate them)",
  "prelude-rangeerror": "REGRESSION (fixed in session 26): converting a value that is not plain data (Map, getter, Date, toJSON function, …) after two nested containers throws \"RangeError: bad length for array\"",
  "thrown-number": "REGRESSION (fixed in session 26): a thrown value's numbers are worded unlike JavaScript in the parse-error entry: 2^63 as 9223372036854775808 (JS: 9223372036854776000), 1e20 as 1e+20 (JS: 100000000000000000000)",
  "number-format": "REGRESSION (fixed in session 27): toPrecision/toExponential/toFixed are inexact for tiny values or many digits, e.g. (1e-101).toPrecision(2) is \"0.0e+101\", (1e-90).toPrecision(17) is \"1.0000000000000000e-90\" (recognised by the calls a line makes)",
  "unsafe-regex": "REGRESSION (fixed in session 27): the regex screen refuses a repeated alternation of disjoint branches, e.g. /\"(?:[^\"\\\\]|\\\\.)*\"/ (unsafe_regex)",
};

/** Findings still open: a case whose every mismatch is one of these is a TODO, not a failure. */
export const OPEN = new Set([]);

const probed = new WeakMap(); // case -> Map(line -> error) of lines that failed with a RangeError

/**
 * The other expectations a mismatch is compared with, in order, each computed on demand:
 * `{ label, get, lone }` (a unit that matches `get()`'s, numbers up to 2 ulp apart and, with
 * `lone`, lone surrogates as U+FFFD, is explained by `label`) or `{ label, matches(i) }`.
 */
function explanations(name, c, evaluate, base, session, target, actual) {
  const check = CHECKS[name];
  const exp = evaluate();
  const both = typeof exp.parseStdoutLine === "function" && typeof exp.createStdoutParser === "function";
  const model = (quirks) => () => check.expected(c, evaluate, null, quirks);
  const stateless = (quirks) => () => expectedStateless(evaluate, lineInputs(c), { quirks });
  const all = { toJSONKey: true, emptyChunkPair: true, thrownNumbers: true };
  // Chunking changed a transcript (package against package): the same chunks without the
  // empty ones give what one line per chunk gives when the empty chunks were the cause.
  if (name === "chunking") return [{ label: "empty-chunk-pair", get: () => session.transcript(sameTs(c.chunks).filter((k) => k.chunk !== ""), c.style) }];
  const list = [["float-ulp", () => base, false]];
  if (name === "parseLine" && both) list.push(["parseline-stateless", stateless({}), true]);
  list.push(["lone-surrogate", () => base, true]);
  if (!check.perLine) list.push(["thrown-number", model({ thrownNumbers: true }), true]);
  list.push(["tojson-key", model({ toJSONKey: true }), true]);
  if (name === "parseLine" && both) list.push(["tojson-key", stateless({ toJSONKey: true }), true]);
  if (!check.perLine) list.push(["empty-chunk-pair", model({ emptyChunkPair: true }), true], ["empty-chunk-pair", model(all), true]);
  // Lines the package says failed with the prelude's RangeError, failing in the reference too
  // (asked once per case).
  const rangeErrors = async () => {
    let failing = probed.get(c);
    if (!failing) {
      failing = new Map();
      probed.set(c, failing);
      let probe;
      try {
        probe = await target.open("inline", c.source);
      } catch {
        probe = null; // inline refused it (unsafe_regex): no probe
      }
      if (probe) {
        try {
          const errors = await probe.lineErrors(lineInputs(c));
          lineInputs(c).forEach(([line], i) => {
            const m = /^threw: RangeError: (bad length for array)$/.exec(errors[i] ?? "");
            if (m) failing.set(line, m[1]);
          });
        } finally {
          await probe.close();
        }
      }
    }
    // A transcript's parse-error entries name their lines too (cut to 157 units).
    const said = "Chat transcript error: bad length for array. Falling back for line: ";
    const failingPrefixes = check.perLine ? [] : actual.filter((e) => e?.subtype === "transcript_parse_error" && e.text.startsWith(said)).map((e) => [e.text.slice(said.length).replace(/\.\.\.$/, ""), "bad length for array"]);
    return { ...all, failing, failingPrefixes };
  };
  list.push(["prelude-rangeerror", async () => check.expected(c, evaluate, null, await rangeErrors()), true]);
  if (name === "parseLine" && both) list.push(["prelude-rangeerror", async () => expectedStateless(evaluate, lineInputs(c), { quirks: await rangeErrors() }), true]);
  const out = list.map(([label, get, lone]) => {
    let value;
    return { label, lone, get: async () => (value ??= await get()) };
  });
  // Numbers formatted where boa was inexact: a unit that formats one is explained by that,
  // whatever its value (the wrong digits cannot be modelled).
  let risky = null;
  const formats = () => (risky ??= collectFormatRisk(() => (both && name === "parseLine" ? [check.expected(c, evaluate, null, {}), expectedStateless(evaluate, lineInputs(c))] : check.expected(c, evaluate, null, {}))));
  out.push({ label: "number-format", matches: (i) => (check.perLine ? formats().has(lineInputs(c)[i]?.[0]) : formats().size > 0) });
  return out;
}

/**
 * Compares a check's two sides as JSON text (values, key order); null when equal. Each unit
 * that differs (a line's entries, or the whole transcript) is explained by a known bug or is
 * new; the mismatch shows the first new unit (else the first unit): for a transcript, its
 * first entry that differs. `kinds` counts the units by explanation.
 */
async function mismatch(name, expected, actual, c, evaluate, session, target) {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return null;
  const perLine = Boolean(CHECKS[name].perLine);
  const others = explanations(name, c, evaluate, expected, session, target, actual);
  const explain = async (e, a, i) => {
    for (const { label, lone, get, matches } of others) {
      if (matches) {
        if (matches(i)) return label;
        continue;
      }
      const other = perLine ? (await get())[i] : await get();
      const same = name === "chunking" ? JSON.stringify(other) === JSON.stringify(e) : sameLoosely(other, a, { ulp: 2, wellFormed: lone });
      if (same) return label;
    }
    return null;
  };
  const units = perLine ? expected.map((e, i) => [e, actual[i], i]).filter(([e, a]) => JSON.stringify(e) !== JSON.stringify(a)) : [[expected, actual, 0]];
  const kinds = {};
  let first = null;
  for (const [e, a, i] of units) {
    const known = await explain(e, a, i);
    kinds[known ?? "new"] = (kinds[known ?? "new"] ?? 0) + 1;
    if (!first || (known === null && first.known !== null)) first = { index: i, known };
  }
  let index = first.index;
  if (!perLine) {
    // A transcript: its first entry that differs (when new: that no explanation matches).
    const unexplained = async (i) => {
      if (JSON.stringify(expected[i]) === JSON.stringify(actual[i])) return false;
      if (first.known) return true;
      for (const { lone, get } of others) if (get && sameLoosely((await get())[i], actual[i], { ulp: 2, wellFormed: lone })) return false;
      return true;
    };
    index = 0;
    while (index < Math.max(expected.length, actual.length) && !(await unexplained(index))) index++;
  }
  return { perLine, index, expected: expected[index], actual: actual[index], diffs: diff(expected[index], actual[index]), known: first.known, kinds };
}

/** A mismatch as text: check, host, the first differing line or entry, the paths that differ. */
export function describe(m, c) {
  const where = m.check === "load" ? "load" : m.perLine ? `line ${m.index + 1}: ${JSON.stringify(logLines(c.log)[m.index])?.slice(0, 300)}` : `entry ${m.index}`;
  const counts = m.perLine && (Object.keys(m.kinds).length > 1 || Object.values(m.kinds)[0] > 1) ? ` (lines differing, by kind: ${JSON.stringify(m.kinds)})` : "";
  const lines = [`${m.check} (${m.host}) differs at ${where}${m.known ? `  [${KNOWN[m.known]}]` : "  [NEW]"}${counts}`];
  const show = (v) => {
    const s = JSON.stringify(v);
    return s === undefined ? "(none)" : s.length > 600 ? s.slice(0, 600) + "…" : s;
  };
  lines.push(`  expected: ${show(m.expected)}`, `  actual:   ${show(m.actual)}`);
  for (const d of m.diffs) lines.push(`  ${d.path}: ${d.what}${"expected" in d ? `: ${show(d.expected)} vs ${show(d.actual)}` : ""}`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Shrinking
// ---------------------------------------------------------------------------------------------

/** Delta debugging: a smaller list of `items` for which `fails` still holds (within `budget` tries). */
async function ddmin(items, fails, budget) {
  let n = 2;
  let tries = 0;
  while (items.length >= 2 && tries < budget) {
    const size = Math.ceil(items.length / n);
    let reduced = false;
    for (let start = 0; start < items.length && tries < budget; start += size) {
      const rest = [...items.slice(0, start), ...items.slice(start + size)];
      tries++;
      if (rest.length > 0 && (await fails(rest))) {
        items = rest;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= items.length) break;
      n = Math.min(items.length, n * 2);
    }
  }
  return items;
}

/**
 * A smaller case that still shows mismatch `m` (same check, host and classification): log
 * lines removed for line-based checks, chunks removed for the chunked ones.
 */
export async function shrink(c, m, { budget = 120, target } = {}) {
  const still = async (candidate) => {
    try {
      const { mismatches } = await runCase(candidate, { hosts: [m.host], only: [m.check], target });
      return mismatches.some((x) => x.known === m.known);
    } catch {
      return false;
    }
  };
  // Loading does not depend on the log: one line keeps the case whole.
  if (m.check === "load") return { ...c, log: c.log.split(/(?<=\n)/)[0], chunks: undefined };
  if (m.check === "chunks" || m.check === "chunking") {
    const chunks = await ddmin(c.chunks, (list) => still({ ...c, chunks: list, log: stdoutText(list) }), budget);
    return { ...c, chunks, log: stdoutText(chunks) };
  }
  const pieces = c.log.split(/(?<=\n)/);
  const kept = await ddmin(pieces, (list) => still({ ...c, log: list.join(""), chunks: undefined }), budget);
  return { ...c, log: kept.join(""), chunks: undefined };
}

const stdoutText = (chunks) => chunks.filter((k) => k.stream === "stdout").map((k) => k.chunk).join("");
