// Case generator of the differential fuzzer: from a seed, a ui-parser.js source (one of many
// shapes: JSON lines, a char-by-char scan for JSON after a prefix, Unicode regexes, split/map
// chains, key=value pairs; state across lines; either export or both; ES module or CommonJS;
// thrown values), a log for it, and random chunk splits of that log for a TranscriptBuilder.
//
// A parser and its log share a schema: which events the log writes (by their wire names) and
// how a line encodes one. The parser decodes a line into an event object and maps it to
// TranscriptEntry values (SPEC §2), adding extra plain-data fields along the way.

import { Literal, Pairs, Rng, double, key, nested, numberLiteral, text, toJsonText } from "./random.mjs";

// ---------------------------------------------------------------------------------------------
// Schema: what a parser understands and how its log is written
// ---------------------------------------------------------------------------------------------

/** Each event type's fields, in order (`pipe` lines keep this order; the last takes the rest). */
const FIELDS = {
  assistant: [["delta", "bool"], ["text", "text"]],
  thinking: [["delta", "bool"], ["text", "text"]],
  user: [["text", "text"]],
  tool_call: [["name", "word"], ["id", "word"], ["input", "json"]],
  tool_result: [["id", "word"], ["is_error", "bool"], ["content", "json"]],
  init: [["model", "word"], ["session", "word"]],
  usage: [["input", "num"], ["output", "num"], ["cached", "num"]],
  result: [["cost", "num"], ["subtype", "word"], ["is_error", "bool"], ["errors", "json"]],
  diff: [["text", "text"]],
  data: [["meta", "json"], ["data", "json"]],
  nums: [["v", "json"]],
  multi: [["blocks", "json"]],
  noop: [],
  boom: [["how", "num"], ["n", "num"]],
  bad: [["ret", "json"]],
  junk: [["cut", "num"], ["end", "num"], ["x", "json"]],
};
const TYPES = Object.keys(FIELDS);

// Wire names a log may use for each type (the tagged format needs upper-case letters).
const WIRE = {
  assistant: ["assistant", "text", "msg", "say", "💬", "answer"],
  thinking: ["thinking", "thought", "reasoning", "🤔"],
  user: ["user", "human", "prompt"],
  tool_call: ["tool_call", "tool_use", "call", "🔧"],
  tool_result: ["tool_result", "result_of", "ret", "obs"],
  init: ["init", "start", "session"],
  usage: ["usage", "tokens", "meter"],
  result: ["result", "done", "end", "summary"],
  diff: ["diff", "patch", "hunk"],
  data: ["data", "blob", "payload", "état"],
  nums: ["nums", "vec", "series"],
  multi: ["multi", "message", "batch"],
  noop: ["noop", "ping", "heartbeat", "keepalive"],
  boom: ["boom", "panic", "explode"],
  bad: ["bad", "weird"],
  junk: ["junk", "mixed"],
};
const TAGS = {
  assistant: ["ASSISTANT", "SAY", "ÄNSWER"],
  thinking: ["THINK", "ΣΚΈΨΗ"],
  user: ["USER", "YOU"],
  tool_call: ["CALL", "TOOL"],
  tool_result: ["RESULT", "OBS"],
  init: ["INIT", "START"],
  usage: ["USAGE", "TOKENS"],
  result: ["DONE", "END"],
  diff: ["DIFF", "PATCH"],
  data: ["DATA", "ÉTAT"],
  nums: ["NUMS", "VEC"],
  multi: ["MULTI", "MSG"],
  noop: ["PING", "NOOP"],
  boom: ["BOOM", "PANIC"],
  bad: ["BAD", "ODD"],
  junk: ["JUNK", "MIX"],
};

const FORMATS = ["json", "prefixed", "tagged", "pipe", "kv"];
const ENTRY_POINTS = ["direct", "factory", "both"];
const ESM_FORMS = ["esm-function", "esm-const", "esm-list"];
const CJS_FORMS = ["cjs-object", "cjs-exports", "cjs-define", "cjs-tsc"];
const PREFIXES = ["[agent] ", "data: ", "» ", "📦 ", "evt:", ">> ", "┊ ", "log[7]: "];
// What a thrown value can be, by the log's `how` number.
const THROWS = [
  'throw new Error("boom " + n);',
  'throw "thrown string " + n;',
  "throw n;",
  'throw { code: n, why: "object" };',
  "throw null;",
  "throw undefined;",
  'throw new TypeError("bad value " + n);',
  'throw new RangeError("");',
  'throw "";',
  "throw [1, n];",
  "throw true;",
  'throw new Error("ünïcödé 💥 " + String(n));',
];

/**
 * A parser's schema, drawn from `rng`. `force` pins parts of it (the corpus names its shapes
 * this way): `format`, `entry`, `form`, `types` (extra types to enable), `stateful`, `reset`,
 * `determinism`, `exotic`, `loneSurrogates`, `wrap`.
 */
export function makeSchema(rng, force = {}) {
  const format = force.format ?? rng.pick(FORMATS);
  const entry = force.entry ?? rng.pick(ENTRY_POINTS);
  const esm = force.form ? force.form.startsWith("esm") : rng.chance(0.5);
  const form = force.form ?? rng.pick(esm ? ESM_FORMS : CJS_FORMS);
  const types = new Set(["assistant", "tool_call", "tool_result"]);
  for (const t of TYPES) if (rng.chance(0.5)) types.add(t);
  for (const t of force.types ?? []) types.add(t);
  if (format === "kv") types.delete("multi"); // kv lines carry no arrays of blocks
  const wire = {};
  for (const t of types) wire[t] = format === "tagged" ? rng.pick(TAGS[t]) : rng.pick(WIRE[t]);
  return {
    format,
    entry,
    form,
    types: [...types],
    wire,
    // kv lines name their fields with \w+: an ASCII type key there.
    typeKey: rng.pick(format === "kv" ? ["type", "event", "t", "op"] : ["type", "type", "event", "t", "op", "ключ"]),
    prefix: rng.pick(PREFIXES),
    throws: rng.shuffle(THROWS.map((_, i) => i)).slice(0, rng.int(1, THROWS.length + 1)),
    // State across lines: ids, init once, token totals, tool names, a line counter.
    stateful: force.stateful ?? rng.chance(entry === "direct" ? 0.5 : 0.85),
    reset: force.reset ?? rng.pick(["full", "full", "partial", "none"]),
    wrap: force.wrap ?? rng.pick(["array", "array", "single", "null", "undefined"]),
    unknown: rng.pick(["stdout", "null", "system", "empty"]),
    determinism: force.determinism ?? rng.chance(0.15),
    exotic: force.exotic ?? rng.chance(0.2),
    loneSurrogates: force.loneSurrogates ?? false,
    chaos: rng.chance(0.3) ? rng.float() * 0.15 : 0, // share of events with ill-typed fields
  };
}

// ---------------------------------------------------------------------------------------------
// Parser source
// ---------------------------------------------------------------------------------------------

const q = (s) => JSON.stringify(s); // a JS string literal (JSON strings are JS strings)

/** A JS number literal for `x`, in one of the spellings JS allows. */
function numberSource(rng, x) {
  if (Object.is(x, -0)) return "-0";
  if (Number.isInteger(x) && x >= 0 && x < 2 ** 53 && rng.chance(0.3)) {
    return rng.pick([`0x${x.toString(16)}`, `0o${x.toString(8)}`, `0b${x.toString(2)}`, String(x).replace(/\B(?=(\d{3})+$)/g, "_")]);
  }
  const s = String(x);
  return x < 0 ? `(${s})` : s;
}

/**
 * An object expression (or statements building `name`) with these `[key, expr]` fields, in the
 * given order, in one of the ways parsers build objects.
 */
function buildObject(rng, name, fields) {
  const prop = (k, v) => (/^[A-Za-z_$][\w$]*$/.test(k) ? (k === v ? k : `${k}: ${v}`) : `${q(k)}: ${v}`);
  switch (rng.pick(["literal", "literal", "literal", "assign", "assign-object"])) {
    case "literal":
      return `const ${name} = { ${fields.map(([k, v]) => prop(k, v)).join(", ")} };`;
    case "assign":
      return [`const ${name} = {};`, ...fields.map(([k, v]) => (/^[A-Za-z_$][\w$]*$/.test(k) && rng.chance(0.7) ? `${name}.${k} = ${v};` : `${name}[${q(k)}] = ${v};`))].join(" ");
    default: {
      const cut = rng.int(1, fields.length + 1);
      const a = fields.slice(0, cut).map(([k, v]) => prop(k, v)).join(", ");
      const b = fields.slice(cut).map(([k, v]) => prop(k, v)).join(", ");
      return `const ${name} = Object.assign({ ${a} }, { ${b} });`;
    }
  }
}

// Field names SPEC §2 gives a meaning; an extra field never takes one of them.
const ENTRY_FIELDS = new Set(["kind", "ts", "text", "delta", "name", "input", "toolUseId", "invocationId", "actionRequestId", "content", "isError", "toolName", "model", "sessionId", "inputTokens", "outputTokens", "cachedTokens", "costUsd", "subtype", "errors", "changeType"]);

/** A key for an extra field: any plain key but the entry fields' names. */
function extraKey(rng) {
  for (;;) {
    const k = key(rng, { plain: true });
    if (!ENTRY_FIELDS.has(k)) return k;
  }
}

/** Extra fields an entry may carry beyond SPEC §2: `[key, expr]`, `t` names the text variable. */
function extras(rng, schema, t, count) {
  const pool = [
    () => ["channel", q(rng.pick(["main", "side", "ĉanal", "🛰"]))],
    () => ["label", q(text(rng, { maxParts: 3 }))],
    () => [extraKey(rng), numberSource(rng, double(rng))],
    () => ["len", `${t}.length`],
    () => ["cps", rng.pick([`Array.from(${t}).length`, `[...${t}].length`])],
    () => ["words", `${t}.split(/\\s+/u).filter(Boolean)`],
    () => ["upper", `${t}.toUpperCase()`],
    () => ["lower", `${t}.toLowerCase()`],
    () => ["nfc", `${t}.normalize(${q(rng.pick(["NFC", "NFD", "NFKC", "NFKD"]))})`],
    () => ["emoji", `(${t}.match(/\\p{Extended_Pictographic}/gu) || []).length`],
    () => ["pres", `(${t}.match(/\\p{Emoji_Presentation}/gu) || []).length`],
    () => ["letters", `${t}.replace(/[^\\p{L}\\p{M}]/gu, "")`],
    () => ["first", `Array.from(${t})[0] ?? null`],
    () => ["codes", `Array.from(${t}).slice(0, 4).map((c) => c.codePointAt(0))`],
    () => ["hex", `Array.from(${t}).slice(0, 3).map((c) => c.codePointAt(0).toString(16).padStart(4, "0")).join(" ")`],
    () => ["units", `${t}.length ? ${t}.charCodeAt(0) : -1`],
    () => ["pairs", `countPairs(${t})`],
    () => ["short", `Array.from(${t}).slice(0, ${rng.int(1, 8)}).join("")`],
    () => ["rev", `[...${t}].reverse().join("")`],
    () => ["json", `JSON.stringify(${t})`],
    () => ["raw", "ev"],
    () => ["when", "new Date(ts)"],
  ];
  if (schema.stateful) pool.push(() => ["seq", "++st.lines"]);
  if (schema.determinism) {
    pool.push(() => ["at", "Date.now()"], () => ["iso", "new Date().toISOString()"], () => ["rnd", "Math.random()"]);
    pool.push(() => ["id36", "Math.random().toString(36).slice(2, 10)"], () => ["clock", "new Date().getTime() % 86400000"]);
  }
  if (schema.exotic) {
    pool.push(
      () => ["nan", "NaN"],
      () => ["gone", "undefined"],
      () => ["fn", "function () { return 1; }"],
      () => ["odd", "[1, undefined, () => 2, NaN, -Infinity, -0]"],
      () => ["boxed", "[new Number(1.5), new String(\"s\"), new Boolean(false)]"],
      () => ["coll", "{ map: new Map([[1, 2]]), set: new Set([1]) }"],
      () => ["date0", "new Date(0)"],
      () => ["tj", '{ toJSON() { return "from toJSON"; } }'],
      () => ["tjKey", '{ toJSON: "plain data", v: 1 }'],
      () => ["getter", "{ get g() { return 7; }, h: 8 }"],
      () => ["sym", '{ [Symbol("s")]: 1, k: 2 }'],
      () => ["hidden", 'Object.defineProperty({ a: 1 }, "b", { value: 2 })'],
      () => ["typed", "new Uint8Array([1, 2, 255])"],
      () => ["holes", "[1, , 3]"],
      () => ["inst", "new (class Point { constructor() { this.y = 2; this.x = 1; } })()"],
      () => ["err", 'new Error("not data")'],
      () => ["ints", '{ b: 1, 2: "two", a: 3, 1: "one", "-1": "minus" }'],
    );
  }
  if (schema.loneSurrogates) pool.push(() => ["cut", `${t}.slice(0, ${rng.int(1, 6)})`], () => ["flip", `${t}.split("").reverse().join("")`]);
  const out = [];
  const used = new Set();
  for (let i = 0; i < count; i++) {
    const [k, v] = rng.pick(pool)();
    if (!used.has(k)) out.push([k, v]), used.add(k);
  }
  return out;
}

/** A text expression over `e` (a string) as parsers transform message text. */
function textExpr(rng, schema, e) {
  const forms = [e, e, `${e}.trim()`, `${e}.replace(/\\s+/gu, " ")`, `${e}.replace(/\\p{Extended_Pictographic}/gu, "<e>")`, `Array.from(${e}).join("")`, `${e}.padEnd(${rng.int(0, 12)}, "·")`, `${e}.toUpperCase()`, `${e}.normalize("NFC")`, `copyChars(${e})`, `${q(rng.pick(["› ", "", "🤖 ", "Σ: "]))} + ${e}`];
  if (schema.loneSurrogates) forms.push(`${e}.slice(0, ${rng.int(1, 8)})`, `${e}.split("").reverse().join("")`);
  return rng.pick(forms);
}

/** Entries for one event type: statements ending in `return [...]`. */
function handler(rng, schema, type) {
  const entry = (kind, required, nExtra = rng.int(0, 4)) => {
    const fields = [["kind", q(kind)], ["ts", rng.pick(["ts", "ts", "ts", "String(ts)"])], ...required];
    const all = rng.shuffle([...fields.slice(0, 2), ...required, ...extras(rng, schema, "t", nExtra)]);
    if (rng.chance(0.4)) all.sort((a, b) => (a[0] === "kind" ? -1 : b[0] === "kind" ? 1 : 0));
    return all;
  };
  // `t`, the text extra fields work on, is always a string: an engine's own errors (calling a
  // string method on a number) are worded differently by V8 and boa, and the parse-error entry
  // quotes them. A field may still take the raw value (an ill-typed entry is then dropped).
  const safe = (e) => rng.pick([`String(${e} ?? "")`, `(typeof ${e} === "string" ? ${e} : "")`]);
  const str = (e) => (rng.chance(0.8) ? safe(e) : e);
  const textField = (raw) => (rng.chance(0.85) ? textExpr(rng, schema, "t") : raw);
  const st = schema.stateful;
  switch (type) {
    case "assistant":
    case "thinking": {
      const delta = rng.pick(["ev.delta === true", "!!ev.delta", "ev.delta", null]);
      const fields = entry(type, [["text", textField("ev.text")], ...(delta ? [["delta", delta]] : [])]);
      return [`const t = ${safe("ev.text")};`, buildObject(rng, "e", fields), "return [e];"].join(" ");
    }
    case "user":
      return [`const t = ${safe("ev.text")};`, buildObject(rng, "e", entry("user", [["text", textField("ev.text")]])), "return [e];"].join(" ");
    case "tool_call": {
      const id = st ? 'ev.id ?? "tool-" + ++st.n' : rng.pick(['ev.id ?? "tool"', "String(ev.id)"]);
      const input = rng.pick([["input", "ev.input"], ["input", "ev.input ?? {}"], ["input", "ev.input === undefined ? undefined : ev.input"]]);
      const fields = entry("tool_call", [["name", str("ev.name")], input, ["toolUseId", "id"]]);
      const remember = st ? (rng.chance(0.5) ? "st.tools[id] = e.name;" : "st.toolMap.set(id, e.name);") : "";
      return [`const t = ${safe("ev.name")}; const id = ${id};`, buildObject(rng, "e", fields), remember, "return [e];"].join(" ");
    }
    case "tool_result": {
      const content = rng.pick(['typeof ev.content === "string" ? ev.content : JSON.stringify(ev.content)', 'typeof ev.content === "string" ? ev.content : JSON.stringify(ev.content ?? null, null, 1)', "String(ev.content)"]);
      const toolName = st ? [["toolName", rng.pick(["st.tools[id]", "st.toolMap.get(id)"])]] : [];
      const fields = entry("tool_result", [["toolUseId", "id"], ["content", "t"], ["isError", "ev.is_error === true"], ...toolName]);
      return [`const id = String(ev.id ?? ""); const t = ${content};`, buildObject(rng, "e", fields), "return [e];"].join(" ");
    }
    case "init": {
      const once = st ? (rng.chance(0.5) ? "if (st.seenInit) return null; st.seenInit = true;" : 'if (st.seenInit) return [{ kind: "system", ts, text: "init again" }]; st.seenInit = true;') : "";
      const fields = entry("init", [["model", str("ev.model")], ["sessionId", str("ev.session")]]);
      return [once, "const t = String(ev.model);", buildObject(rng, "e", fields), "return [e];"].join(" ");
    }
    case "usage": {
      if (!st) return 'const t = "usage"; return [{ kind: "system", ts, text: "usage " + [ev.input, ev.output, ev.cached].map(Number).join("/") }];';
      const add = "st.totals.input += Number(ev.input) || 0; st.totals.output += Number(ev.output) || 0; st.totals.cached += +ev.cached || 0;";
      return add + rng.pick([" return null;", " return [];", ' return [{ kind: "system", ts, text: "tokens " + st.totals.input }];']);
    }
    case "result": {
      const tok = st ? ["st.totals.input", "st.totals.output", "st.totals.cached"] : ["0", "Number(ev.input ?? 0)", "1"];
      const fields = entry("result", [
        ["text", rng.pick(['"done"', "String(ev.subtype)", '"cost " + ev.cost', '"cost " + Number(ev.cost).toFixed(4)', '"≈" + Number(ev.cost).toPrecision(6)', '"e" + Number(ev.cost).toExponential(3)'])],
        ["inputTokens", tok[0]],
        ["outputTokens", tok[1]],
        ["cachedTokens", tok[2]],
        ["costUsd", rng.pick(["Number(ev.cost)", "+ev.cost", "parseFloat(ev.cost)", "ev.cost * 1", "Math.round(ev.cost * 1e6) / 1e6", "ev.cost / 3", "ev.cost + 0.1"])],
        ["subtype", `String(ev.subtype ?? "success")`],
        ["isError", "ev.is_error === true"],
        ["errors", "Array.isArray(ev.errors) ? ev.errors.map(String) : []"],
      ]);
      return ['const t = "result";', buildObject(rng, "e", fields), "return [e];"].join(" ");
    }
    case "diff": {
      const change = 'const c = t.charAt(0); const changeType = t.startsWith("@@") ? "hunk" : t.startsWith("diff ") ? "file_header" : c === "+" ? "add" : c === "-" ? "remove" : t.startsWith("…") ? "truncation" : "context";';
      return [`const t = ${safe("ev.text")};`, change, buildObject(rng, "e", entry("diff", [["changeType", "changeType"], ["text", textField("ev.text")]])), "return [e];"].join(" ");
    }
    case "data": {
      const spread = rng.chance(0.5);
      const fields = entry("system", [["text", rng.pick(['"data"', "JSON.stringify(ev.data)", "typeof ev.data"])], ["data", "ev.data"]]);
      if (spread) {
        const body = fields.map(([k, v]) => `${q(k)}: ${v}`).join(", ");
        return `const t = "data"; const meta = ev.meta !== null && typeof ev.meta === "object" && !Array.isArray(ev.meta) ? ev.meta : {}; return [{ ...meta, ${body} }];`;
      }
      return ['const t = "data";', buildObject(rng, "e", fields), rng.chance(0.5) ? "for (const k in ev.meta) if (k !== \"kind\") e[\"m_\" + k] = ev.meta[k];" : "", "return [e];"].join(" ");
    }
    case "nums": {
      const derived = rng.shuffle([
        ["v", "v"],
        ["sum", "v.reduce((a, b) => a + b, 0)"],
        ["scaled", `v.map((x) => x * ${numberSource(rng, rng.pick([3, 0.5, 1.5, -1, 1e-300, 1e300, 0.1]))})`],
        ["halves", "v.map((x) => x / 2)"],
        ["mod", "v.map((x) => x % 7)"],
        ["max", "v.length ? Math.max(...v) : null"],
        ["strs", "v.map(String)"],
        ["fixed", `v.map((x) => x.toFixed(${rng.int(0, 21)}))`],
        ["prec", `v.map((x) => x.toPrecision(${rng.int(1, 22)}))`],
        ["expo", `v.map((x) => x.toExponential(${rng.int(0, 21)}))`],
        ["back", "v.map((x) => Number(String(x)))"],
        ["ints", "v.map((x) => Math.trunc(x))"],
        ["rounded", "v.map((x) => Math.round(x))"],
        ["f32", "v.map((x) => Math.fround(x))"],
        ["sqrt", "v.map((x) => Math.sqrt(Math.abs(x)))"],
        ["hex", "v.map((x) => (x >>> 0).toString(16))"],
        ["parsed", "v.map((x) => parseFloat(String(x) + \"xyz\"))"],
        ["json", "JSON.stringify(v)"],
      ]).slice(0, rng.int(1, 6));
      const fields = entry("system", [["text", '"nums " + v.length'], ...derived], 0);
      return ['const v = (Array.isArray(ev.v) ? ev.v : []).filter((x) => typeof x === "number"); const t = "nums";', buildObject(rng, "e", fields), "return [e];"].join(" ");
    }
    case "multi": {
      const map = [
        "const blocks = Array.isArray(ev.blocks) ? ev.blocks : [];",
        "return blocks",
        "  .map((b, i) => {",
        "    if (b === null || typeof b !== \"object\") return null;",
        '    if (b.t === "text") return { kind: "assistant", ts, text: String(b.text ?? ""), part: i };',
        '    if (b.t === "think") return { kind: "thinking", ts, text: String(b.text ?? ""), delta: true };',
        `    if (b.t === "tool") return { kind: "tool_call", ts, name: String(b.name ?? "?"), input: b.input, toolUseId: ${st ? '"blk-" + ++st.n' : '"blk-" + i'} };`,
        "    return null;",
        "  })",
        "  .filter(Boolean);",
      ];
      return map.join("\n");
    }
    case "noop":
      return rng.pick(["return null;", "return [];", "return undefined;", "return;"]);
    case "boom": {
      const cases = schema.throws.map((i, k) => `case ${k}: ${THROWS[i]}`).join(" ");
      return `const n = ev.n; switch (Number(ev.how) % ${schema.throws.length}) { ${cases} default: return [{ kind: "stderr", ts, text: "no throw " + ev.how }]; }`;
    }
    case "bad":
      return "return ev.ret;";
    case "junk":
      // Invalid entries are dropped; with none valid left the line shows the raw line.
      return 'return [ev.x, { kind: "nonsense", ts }, { kind: "result", ts, text: "half" }, { kind: "user", ts, text: "kept " + typeof ev.x }].slice(Number(ev.cut) || 0, Number(ev.end) || 4);';
    default:
      throw new Error(`no handler for ${type}`);
  }
}

/** The decoder: `function decode(line) { ... }` returning an event object or undefined. */
function decoder(rng, schema) {
  const tk = q(schema.typeKey);
  switch (schema.format) {
    case "json":
      return [
        "function decode(line) {",
        "  let ev;",
        "  try { ev = JSON.parse(line); } catch { return undefined; }",
        '  return ev !== null && typeof ev === "object" ? ev : undefined;',
        "}",
      ].join("\n");
    case "prefixed": {
      const check = rng.chance(0.5) ? `  if (!line.startsWith(${q(schema.prefix.trim())})) return undefined;\n` : "";
      const read = rng.pick([
        ["const c = line.charCodeAt(i);", "c === 123", "c === 125", "c === 34", "c === 92"],
        ["const c = line[i];", 'c === "{"', 'c === "}"', "c === '\"'", 'c === "\\\\"'],
        ["const c = line.charAt(i);", 'c === "{"', 'c === "}"', "c === '\"'", 'c === "\\\\"'],
      ]);
      return [
        "function decode(line) {",
        check + "  let start = -1;",
        "  for (let i = 0; i < line.length; i++) {",
        `    ${read[0]}`,
        `    if (${read[1]}) { start = i; break; }`,
        "  }",
        "  if (start < 0) return undefined;",
        "  let depth = 0, inString = false, escaped = false;",
        "  for (let i = start; i < line.length; i++) {",
        `    ${read[0]}`,
        "    if (inString) {",
        `      if (escaped) escaped = false; else if (${read[4]}) escaped = true; else if (${read[3]}) inString = false;`,
        "      continue;",
        "    }",
        `    if (${read[3]}) inString = true;`,
        `    else if (${read[1]}) depth++;`,
        `    else if (${read[2]} && --depth === 0) {`,
        "      let ev;",
        "      try { ev = JSON.parse(line.slice(start, i + 1)); } catch { return undefined; }",
        '      return ev !== null && typeof ev === "object" ? ev : undefined;',
        "    }",
        "  }",
        "  return undefined;",
        "}",
      ].join("\n");
    }
    case "tagged":
      return [
        "const TAG = /^(\\p{Lu}+)(?:\\[(\\d+)\\])?:\\s?(.*)$/u;",
        "function decode(line) {",
        "  const m = TAG.exec(line);",
        "  if (!m) return undefined;",
        "  let ev;",
        '  if (m[3].startsWith("{")) {',
        "    try { ev = JSON.parse(m[3]); } catch { return undefined; }",
        '    if (ev === null || typeof ev !== "object") return undefined;',
        "  } else ev = { text: m[3] };",
        `  ev[${tk}] = m[1];`,
        "  if (m[2] !== undefined) ev.idx = Number(m[2]);",
        "  return ev;",
        "}",
      ].join("\n");
    case "pipe":
      return [
        "function convert(kind, s) {",
        '  if (s === undefined || s === "") return undefined;',
        '  if (kind === "num") return Number(s);',
        '  if (kind === "bool") return s === "true";',
        '  if (kind === "json") return JSON.parse(s);',
        "  return s;",
        "}",
        "function decode(line) {",
        rng.pick(['  const parts = line.split("|");', '  const parts = line.split(/\\|/);']),
        "  const spec = FIELDS[TYPES[parts[0]]];",
        "  if (!spec) return undefined;",
        `  const ev = { [${tk}]: parts[0] };`,
        "  try {",
        "    spec.forEach(([name, kind], i) => {",
        "      const s = i === spec.length - 1 ? parts.slice(i + 1).join(\"|\") : parts[i + 1];",
        "      const v = convert(kind, s);",
        "      if (v !== undefined) ev[name] = v;",
        "    });",
        "  } catch { return undefined; }",
        "  return ev;",
        "}",
      ].join("\n");
    case "kv":
      return [
        "function decode(line) {",
        "  const ev = {};",
        "  let any = false;",
        // The unrolled string pattern mostly; the common alternation form, which the package's
        // regex screen refuses (a finding), now and then.
        `  for (const m of line.matchAll(${rng.chance(0.9) ? String.raw`/(\w+)=("[^"\\]*(?:\\.[^"\\]*)*"|\S+)/gu` : String.raw`/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/gu`})) {`,
        "    any = true;",
        "    let v = m[2];",
        '    if (v.startsWith("\\"")) { try { v = JSON.parse(v); } catch { return undefined; } }',
        "    else if (/^[-+]?(\\d|\\.\\d)/.test(v)) v = Number(v);",
        '    else if (v === "true" || v === "false") v = v === "true";',
        "    ev[m[1]] = v;",
        "  }",
        "  if (!any) return undefined;",
        "  const spec = FIELDS[TYPES[ev[" + tk + "]]] || [];",
        "  for (const [name, kind] of spec) {",
        '    if (kind === "json" && typeof ev[name] === "string") { try { ev[name] = JSON.parse(ev[name]); } catch { return undefined; } }',
        "  }",
        "  return ev;",
        "}",
      ].join("\n");
    default:
      throw new Error(schema.format);
  }
}

/** What a line the decoder does not understand gives. */
function unknownCode(schema) {
  return {
    stdout: 'return [{ kind: "stdout", ts, text: line }];',
    null: "return null;",
    system: 'return [{ text: "unparsed: " + line, ts, kind: "system", len: line.length }];',
    empty: "return [];",
  }[schema.unknown];
}

/** How a parser hands back its entries. */
function wrapCode(schema) {
  return {
    array: "function wrap(out) { return out; }",
    single: "function wrap(out) { return Array.isArray(out) && out.length === 1 ? out[0] : out; }",
    null: "function wrap(out) { return Array.isArray(out) && out.length === 0 ? null : out; }",
    undefined: "function wrap(out) { if (Array.isArray(out) && out.length === 0) return; return out; }",
  }[schema.wrap];
}

/** The whole ui-parser.js source for `schema`. */
export function parserSource(rng, schema, name) {
  const lines = [];
  const cjs = schema.form.startsWith("cjs");
  if (cjs && (schema.form === "cjs-tsc" || rng.chance(0.3))) lines.push('"use strict";');
  lines.push(`// fuzz parser ${name}: ${schema.format} lines, ${schema.entry}, ${schema.form}.`);
  lines.push("// Generated by tests/fuzz/generate.mjs from a seed: the shapes real ui-parsers have, at random.");
  if (schema.form === "cjs-tsc") lines.push('Object.defineProperty(exports, "__esModule", { value: true });', "exports.parseStdoutLine = exports.createStdoutParser = void 0;");
  const types = {};
  for (const t of schema.types) types[schema.wire[t]] = t;
  lines.push(`const TYPE_KEY = ${q(schema.typeKey)};`);
  lines.push(`const TYPES = { __proto__: null, ${Object.entries(types).map(([w, t]) => `${q(w)}: ${q(t)}`).join(", ")} };`);
  lines.push(`const FIELDS = ${JSON.stringify(FIELDS)};`);
  lines.push(decoder(rng, schema));
  lines.push(wrapCode(schema));
  lines.push("function countPairs(s) { let n = 0; for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); if (c >= 0xd800 && c <= 0xdbff) n++; } return n; }");
  lines.push("function copyChars(s) { let out = \"\"; for (let i = 0; i < s.length; i++) out += String.fromCharCode(s.charCodeAt(i)); return out; }");
  lines.push("function fresh() { return { n: 0, lines: 0, seenInit: false, totals: { input: 0, output: 0, cached: 0 }, tools: {}, toolMap: new Map() }; }");
  // The handler: event -> entries (an array, or null/undefined for nothing).
  lines.push("function handle(ev, ts, line, st) {");
  lines.push("  switch (TYPES[ev[TYPE_KEY]]) {");
  for (const t of schema.types) {
    const body = handler(rng, schema, t).split("\n").map((l) => "      " + l).join("\n");
    lines.push(`    case ${q(t)}: {\n${body}\n    }`);
  }
  lines.push(`    default: ${unknownCode(schema)}`);
  lines.push("  }");
  lines.push("}");
  lines.push("function parseWith(st, line, ts) {");
  if (schema.stateful) lines.push("  st.lines++;");
  lines.push("  const ev = decode(line);");
  lines.push(`  if (ev === undefined) return wrap((() => { ${unknownCode(schema)} })());`);
  lines.push("  return wrap(handle(ev, ts, line, st));");
  lines.push("}");
  // Entry points. A stateless-only parser may keep its state at module level (fresh per run);
  // next to a factory it is pure, so which one answered is plain to see.
  const fns = [];
  if (schema.entry !== "factory") {
    const state = schema.entry === "direct" && schema.stateful ? "moduleState" : "fresh()";
    if (state === "moduleState") lines.push("const moduleState = fresh();");
    const body = `return parseWith(${state}, line, ts);`;
    fns.push(["parseStdoutLine", `function parseStdoutLine(line, ts) { ${body} }`, `(line, ts) => { ${body} }`]);
  }
  if (schema.entry !== "direct") {
    const reset = {
      full: "reset() { st = fresh(); },",
      partial: "reset() { st.n = 0; st.totals = { input: 0, output: 0, cached: 0 }; },",
      none: "",
    }[schema.reset];
    const body = `let st = fresh(); made++; return { parseLine(line, ts) { const out = parseWith(st, line, ts); ${schema.entry === "both" ? "if (Array.isArray(out)) for (const e of out) if (e && typeof e === \"object\") e.run = made + \":\" + st.lines;" : ""} return out; }, ${reset} };`;
    lines.push("let made = 0;");
    fns.push(["createStdoutParser", `function createStdoutParser() { ${body} }`, `() => { ${body} }`]);
  }
  lines.push(...exportCode(rng, schema.form, fns));
  return lines.join("\n") + "\n";
}

/** The export statements of `form` for `fns` (`[name, declaration, arrow]`). */
function exportCode(rng, form, fns) {
  switch (form) {
    case "esm-function":
      return fns.map(([, decl]) => `export ${decl}`);
    case "esm-const":
      return fns.map(([name, , arrow]) => `export const ${name} = ${arrow};`);
    case "esm-list": {
      const inner = fns.map(([name, decl]) => decl.replace(`function ${name}`, `function _${name}`));
      return [...inner, `export { ${fns.map(([name]) => `_${name} as ${name}`).join(", ")} };`];
    }
    case "cjs-object":
      return [...fns.map(([, decl]) => decl), `module.exports = { ${fns.map(([name]) => name).join(", ")}${rng.chance(0.3) ? ", __esModule: true" : ""} };`];
    case "cjs-exports":
      return [...fns.map(([, decl]) => decl), ...fns.map(([name]) => `exports.${name} = ${name};`)];
    case "cjs-define":
      return [
        ...fns.map(([, decl]) => decl),
        'Object.defineProperty(exports, "__esModule", { value: true });',
        ...fns.map(([name]) => `Object.defineProperty(exports, ${q(name)}, { enumerable: true, get: function () { return ${name}; } });`),
      ];
    case "cjs-tsc":
      return [...fns.map(([, decl]) => decl), ...fns.map(([name]) => `exports.${name} = ${name};`)];
    default:
      throw new Error(form);
  }
}

// ---------------------------------------------------------------------------------------------
// Logs
// ---------------------------------------------------------------------------------------------

/** The fields of one event of `type`, as `[name, value]` pairs (values may hold Literal/Pairs). */
function eventFields(rng, schema, type) {
  // Logs stay well-formed: lone surrogates come only from what a parser does to text (with
  // `loneSurrogates`, it cuts pairs in half), so the question is what returned strings keep.
  const opts = {};
  const word = () => rng.weighted([[3, () => rng.pick(["read_file", "bash", "edit", "grep", "web_search", "t1", "toolu_01", "call-9"])], [1, () => text(rng, { maxParts: 2 }).replace(/[\s|]/g, "_") || "w"]])();
  const body = (keyOpts = {}) => nested(rng, 1, { ...opts, ...keyOpts });
  const chaos = () => rng.chance(schema.chaos);
  const ill = () => rng.pick([42, null, true, ["x"], { t: 1 }, new Literal("-0")]);
  const f = {
    assistant: () => [["text", chaos() ? ill() : text(rng, opts)], ...(rng.chance(0.6) ? [["delta", rng.chance(0.6)]] : [])],
    thinking: () => [["text", text(rng, opts)], ...(rng.chance(0.6) ? [["delta", rng.chance(0.7)]] : [])],
    user: () => [["text", text(rng, opts)]],
    tool_call: () => [["name", chaos() ? ill() : word()], ...(rng.chance(0.6) ? [["id", word()]] : []), ...(rng.chance(0.8) ? [["input", body()]] : [])],
    tool_result: () => [["id", word()], ["is_error", chaos() ? ill() : rng.chance(0.2)], ["content", rng.chance(0.5) ? text(rng, opts) : body()]],
    init: () => [["model", rng.pick(["claude-3", "gpt-5", "qwen3-coder", "模型"])], ["session", chaos() ? ill() : word()]],
    usage: () => [["input", new Literal(rng.chance(0.7) ? String(rng.int(0, 5000)) : numberLiteral(rng))], ["output", rng.int(0, 3000)], ["cached", chaos() ? ill() : double(rng)]],
    result: () => [["cost", rng.chance(0.5) ? double(rng) : new Literal(numberLiteral(rng))], ["subtype", rng.pick(["success", "error_max_turns", "ok"])], ["is_error", rng.chance(0.2)], ["errors", Array.from({ length: rng.int(0, 3) }, () => (chaos() ? ill() : text(rng, opts)))]],
    diff: () => [["text", rng.pick(["+", "-", "@@ -1,3 +1,4 @@", "diff --git a/x b/x", " ", "…", ""]) + text(rng, opts)]],
    data: () => [["meta", new Pairs(Array.from({ length: rng.int(0, 5) }, () => [key(rng, { plain: true }), body()]))], ["data", body()]],
    nums: () => [["v", Array.from({ length: rng.int(0, 12) }, () => (rng.chance(0.3) ? new Literal(numberLiteral(rng)) : double(rng)))]],
    multi: () => [["blocks", Array.from({ length: rng.int(0, 5) }, () => rng.pick([{ t: "text", text: text(rng, opts) }, { t: "think", text: text(rng, opts) }, { t: "tool", name: word(), input: body() }, { t: "other" }, 7]))]],
    noop: () => [],
    boom: () => [["how", rng.int(0, 40)], ["n", rng.chance(0.5) ? rng.int(-5, 100) : double(rng)]],
    bad: () => [["ret", rng.pick([text(rng, opts), double(rng), rng.chance(0.5)])]],
    junk: () => [["x", rng.pick([5, "str", null, [], { kind: "user", ts: "t", text: "nested" }])], ...(rng.chance(0.5) ? [["cut", rng.int(0, 4)]] : []), ...(rng.chance(0.4) ? [["end", rng.int(1, 4)]] : [])],
  };
  return f[type]();
}

/** A line for one event of `type`, in the schema's format. */
function eventLine(rng, schema, type) {
  const fields = eventFields(rng, schema, type);
  const wire = schema.wire[type];
  const space = rng.pick(["", "", " ", "\t"]);
  switch (schema.format) {
    case "json":
    case "prefixed": {
      const pairs = rng.shuffle([[schema.typeKey, wire], ...fields]);
      const json = toJsonText(new Pairs(pairs), space);
      if (schema.format === "json") return json;
      return schema.prefix + json + rng.pick(["", "", " ✓", " [12ms]", " (end)"]);
    }
    case "tagged": {
      const idx = rng.chance(0.2) ? `[${rng.int(0, 100)}]` : "";
      const only = fields.length === 1 && fields[0][0] === "text" && typeof fields[0][1] === "string";
      const payload = only ? fields[0][1].replace(/^\{/, "｛") : toJsonText(new Pairs(fields), space);
      return `${wire}${idx}:${rng.chance(0.8) ? " " : ""}${payload}`;
    }
    case "pipe": {
      const byName = Object.fromEntries(fields);
      const clean = (v) => (typeof v === "string" ? v.replace(/\|/g, "¦") : v);
      const cells = FIELDS[type].map(([name, kind], i) => {
        const v = byName[name];
        if (v === undefined) return "";
        if (kind === "json") return toJsonText(v);
        if (v instanceof Literal) return v.text;
        return i === FIELDS[type].length - 1 ? String(v) : String(clean(v));
      });
      return [wire, ...cells].join("|").replace(/\|+$/, (m) => (rng.chance(0.5) ? "" : m));
    }
    case "kv": {
      const cell = (name, v) => {
        const kind = FIELDS[type].find(([n]) => n === name)?.[1];
        if (kind === "json") return `${name}=${JSON.stringify(toJsonText(v))}`;
        if (v instanceof Literal) return `${name}=${v.text}`;
        if (typeof v === "string") return `${name}=${JSON.stringify(v)}`;
        return `${name}=${toJsonText(v)}`;
      };
      return [`${schema.typeKey}=${JSON.stringify(wire)}`, ...rng.shuffle(fields).map(([n, v]) => cell(n, v))].join(rng.pick([" ", " ", "  ", "\t"]));
    }
    default:
      throw new Error(schema.format);
  }
}

/** A line no parser event: text, near misses of the format, JSON that is no event. */
function noiseLine(rng, schema) {
  return rng.weighted([
    [3, () => text(rng)],
    [1, () => rng.pick(["42", "-0", "null", "true", '"str"', "[1,2,3]", "{}", '{"x":1}', "{", "}{", '{"a":"}"}'])],
    [1, () => `${schema.prefix}${text(rng)}`],
    [1, () => `{${JSON.stringify(schema.typeKey)}:"unknown_type"}`],
    [1, () => `${schema.prefix}{"${schema.typeKey}":"${schema.wire.assistant}","text":"unterminated`],
    [1, () => "ASSISTANT: " + text(rng)],
  ])();
}

// How often each event type appears in a log, relative to 1 (failures stay a minority).
const TYPE_WEIGHT = { assistant: 2, boom: 0.4, bad: 0.25, junk: 0.3, noop: 0.5 };

/** Whitespace JS's trim removes (and U+0085 / U+200B, which it keeps). */
const PADS = ["", "", "", " ", "\t", "  ", "\u00a0", "\ufeff", "\u3000", "\u2028", "\u0085", "\u200b", "\u000b", "\u000c"];

/**
 * The log: `n` lines of events (with noise, blank lines, odd padding and CRLF endings); the
 * last line sometimes has no newline (a builder flushes it at `finish()`).
 */
export function makeLog(rng, schema, n = rng.int(5, 60)) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const line = rng.weighted([
      [12, () => eventLine(rng, schema, rng.weighted(schema.types.map((t) => [TYPE_WEIGHT[t] ?? 1, t])))],
      [2, () => noiseLine(rng, schema)],
      [1, () => rng.pick(["", " ", "\t", "\u3000", "\ufeff"])],
    ])();
    const pad = rng.chance(0.15) ? [rng.pick(PADS), rng.pick(PADS)] : ["", ""];
    out.push(pad[0] + line + pad[1] + (rng.chance(0.1) ? "\r\n" : "\n"));
  }
  let log = out.join("");
  if (rng.chance(0.25)) log = log.replace(/\r?\n$/, "");
  return log;
}

// ---------------------------------------------------------------------------------------------
// Chunks
// ---------------------------------------------------------------------------------------------

/** The ISO time of step `i` of a run (ts of lines and chunks). */
export function tsAt(i) {
  return new Date(Date.UTC(2026, 0, 1) + i * 1037).toISOString();
}

/**
 * The log cut into stdout chunks at random places (inside CRLF, inside surrogate pairs, at
 * line ends), with stderr and system chunks between them; each chunk its own ts.
 */
export function splitChunks(rng, log, { interleave = true } = {}) {
  const cuts = new Set();
  const n = rng.int(0, Math.max(1, Math.ceil(log.length / rng.pick([4, 16, 64]))));
  for (let i = 0; i < n; i++) cuts.add(rng.int(1, Math.max(2, log.length)));
  // Cuts between the halves of surrogate pairs, as the server's 8,192-unit cuts can fall.
  for (let i = 0; i < log.length - 1; i++) {
    const c = log.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && rng.chance(0.3)) cuts.add(i + 1);
    if (c === 13 && rng.chance(0.3)) cuts.add(i + 1);
  }
  const at = [...cuts].filter((c) => c > 0 && c < log.length).sort((a, b) => a - b);
  const pieces = [];
  let from = 0;
  for (const c of [...at, log.length]) {
    pieces.push(log.slice(from, c));
    from = c;
  }
  const chunks = [];
  for (const piece of pieces) {
    if (interleave && rng.chance(0.08)) chunks.push({ stream: rng.pick(["stderr", "system"]), chunk: rng.pick(["warn: ", " ", "", "⚠ "]) + text(rng, { maxParts: 3 }) + rng.pick(["", "\n", " \n"]) });
    if (rng.chance(0.03)) chunks.push({ stream: "stdout", chunk: "" });
    chunks.push({ stream: "stdout", chunk: piece });
  }
  return chunks.map((c, i) => ({ ts: tsAt(i), stream: c.stream, chunk: c.chunk }));
}

/** The log as one stdout chunk per line (each with its newline), every chunk its own ts. */
export function lineChunks(log, ts = tsAt) {
  const pieces = log.split("\n");
  const chunks = pieces.map((p, i) => (i < pieces.length - 1 ? p + "\n" : p)).filter((p) => p.length > 0);
  return chunks.map((chunk, i) => ({ ts: ts(i), stream: "stdout", chunk }));
}

// ---------------------------------------------------------------------------------------------
// A case
// ---------------------------------------------------------------------------------------------

/** Whether a generated source is an ES module (it has top-level `export` statements). */
export function isEsm(source) {
  return /^export\s/m.test(source);
}

/**
 * One fuzz case from `seed`: `{ name, seed, source, log, chunks, shape }`. `options.force`
 * pins schema parts (see makeSchema); `options.loneSurrogates` has parsers cut surrogate pairs.
 */
export function generateCase(seed, options = {}) {
  const rng = new Rng(seed);
  const force = { ...options.force };
  if (options.loneSurrogates) force.loneSurrogates = true;
  const schema = makeSchema(rng.fork(), force);
  const name = options.name ?? `${schema.format}-${schema.entry}-${schema.form}-${seed}`;
  const source = parserSource(rng.fork(), schema, name);
  const log = makeLog(rng.fork(), schema, options.lines);
  const chunks = splitChunks(rng.fork(), log);
  return {
    name,
    seed,
    source,
    log,
    chunks,
    shape: { format: schema.format, entry: schema.entry, form: schema.form, types: schema.types, stateful: schema.stateful, reset: schema.reset, determinism: schema.determinism, exotic: schema.exotic, loneSurrogates: schema.loneSurrogates },
  };
}
