// The fuzzer's corpus on disk: tests/fuzz/corpus/<name>.json, each `{ name, note, seed, shape,
// style, source, log, chunks? }`. Two kinds: the named shapes below (written from the
// generator with fixed seeds by `run.mjs --write-corpus`) and findings (a shrunk case the
// fuzzer saved when the package and Node disagreed). Every file is a test (fuzz.test.mjs).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { generateCase } from "./generate.mjs";

export const CORPUS_DIR = fileURLToPath(new URL("./corpus/", import.meta.url));

/**
 * The named shapes: `[name, seed, force, note]`. Every line format with every entry point and
 * export form, then one feature at a time (state, throws, numbers, Unicode, determinism,
 * JSON-only values, return shapes).
 */
export const NAMED = [
  // JSON.parse of the whole line
  ["json-esm-direct", 101, { format: "json", entry: "direct", form: "esm-function", stateful: false }, "JSON lines, a stateless ES module"],
  ["json-esm-direct-module-counter", 102, { format: "json", entry: "direct", form: "esm-const", stateful: true }, "JSON lines, module-level state in a stateless parser (fresh per run)"],
  ["json-esm-factory-totals", 103, { format: "json", entry: "factory", form: "esm-function", types: ["usage", "result"] }, "token totals kept across lines, reported in result entries"],
  ["json-cjs-both-tools", 104, { format: "json", entry: "both", form: "cjs-object", types: ["tool_call", "tool_result"] }, "both exports: parseLine and builders use the factory's instance"],
  ["json-cjs-define-factory", 105, { format: "json", entry: "factory", form: "cjs-define" }, "esbuild-style getter exports"],
  ["json-tsc-direct", 106, { format: "json", entry: "direct", form: "cjs-tsc" }, "tsc-style CommonJS with void 0 exports"],
  ["json-cjs-exports-both", 107, { format: "json", entry: "both", form: "cjs-exports" }, "exports.x = … with both entry points"],
  ["json-esm-list-factory", 108, { format: "json", entry: "factory", form: "esm-list" }, "export { a as b } list"],
  // A char-by-char scan for the JSON object after a prefix
  ["charscan-esm-factory", 201, { format: "prefixed", entry: "factory", form: "esm-function" }, "brace matching by charCodeAt/[] loops after a prefix"],
  ["charscan-cjs-direct", 202, { format: "prefixed", entry: "direct", form: "cjs-object" }, "char scan, stateless CommonJS"],
  ["charscan-esm-both", 203, { format: "prefixed", entry: "both", form: "esm-list" }, "char scan, both exports"],
  ["charscan-nested-data", 204, { format: "prefixed", entry: "factory", form: "cjs-exports", types: ["data"] }, "nested values with odd keys passed through, spread into entries"],
  ["charscan-nums", 205, { format: "prefixed", entry: "direct", form: "esm-const", types: ["nums"] }, "arrays of doubles and arithmetic on them"],
  ["charscan-tsc-throws", 206, { format: "prefixed", entry: "factory", form: "cjs-tsc", types: ["boom"] }, "thrown values of every kind, parse-error entries"],
  // Unicode regexes
  ["regex-tagged-esm-direct", 301, { format: "tagged", entry: "direct", form: "esm-function" }, "\\p{Lu} tags with the u flag"],
  ["regex-tagged-cjs-factory-init", 302, { format: "tagged", entry: "factory", form: "cjs-object", types: ["init"] }, "init reported once per run"],
  ["regex-tagged-both", 303, { format: "tagged", entry: "both", form: "esm-const" }, "tagged lines, both exports"],
  ["regex-tagged-diff", 304, { format: "tagged", entry: "factory", form: "cjs-define", types: ["diff"] }, "diff lines classified by their first characters"],
  ["regex-tagged-thinking", 305, { format: "tagged", entry: "direct", form: "esm-list", types: ["thinking"] }, "streamed thinking deltas merged by the builder"],
  // split/map/filter chains
  ["split-pipe-esm-direct", 401, { format: "pipe", entry: "direct", form: "esm-function" }, "pipe-separated fields, numbers read with Number()"],
  ["split-pipe-cjs-factory-usage", 402, { format: "pipe", entry: "factory", form: "cjs-object", types: ["usage", "result"] }, "usage totals from split fields"],
  ["split-pipe-both", 403, { format: "pipe", entry: "both", form: "esm-list" }, "pipe fields, both exports"],
  ["split-pipe-multi", 404, { format: "pipe", entry: "factory", form: "esm-const", types: ["multi"] }, "content blocks mapped and filtered"],
  ["split-pipe-tsc", 405, { format: "pipe", entry: "direct", form: "cjs-tsc" }, "pipe fields, tsc CommonJS"],
  // key=value pairs
  ["kv-esm-factory", 511, { format: "kv", entry: "factory", form: "esm-function" }, "key=value pairs by matchAll, quoted values JSON.parse'd"],
  ["kv-cjs-direct", 522, { format: "kv", entry: "direct", form: "cjs-exports" }, "key=value pairs, stateless"],
  ["kv-both-throws", 513, { format: "kv", entry: "both", form: "esm-list", types: ["boom"] }, "key=value, both exports, thrown values"],
  ["kv-result-costs", 504, { format: "kv", entry: "factory", form: "cjs-define", types: ["result"] }, "costs as bare number literals"],
  // Features, one at a time
  ["state-reset-full", 601, { format: "json", entry: "factory", form: "esm-function", reset: "full", types: ["boom", "tool_call", "tool_result"] }, "reset() after a failed line clears all state"],
  ["state-reset-partial", 602, { format: "json", entry: "factory", form: "cjs-object", reset: "partial", types: ["boom", "init", "usage"] }, "reset() clears part of the state"],
  ["state-no-reset", 603, { format: "prefixed", entry: "factory", form: "esm-const", reset: "none", types: ["boom", "tool_call"] }, "an instance without reset() keeps its state after a failure"],
  ["throws-direct", 604, { format: "json", entry: "direct", form: "esm-function", types: ["boom"] }, "stateless parser throwing errors, strings, numbers, objects, null, undefined"],
  ["throws-both", 605, { format: "tagged", entry: "both", form: "cjs-object", types: ["boom"] }, "throws with both exports"],
  ["bad-returns", 606, { format: "json", entry: "factory", form: "esm-function", types: ["bad"] }, "strings, numbers, booleans returned: bad_return"],
  ["invalid-entries", 607, { format: "json", entry: "direct", form: "cjs-exports", types: ["junk"] }, "invalid entries dropped; none valid shows the raw line"],
  ["return-single", 608, { format: "json", entry: "factory", form: "esm-function", wrap: "single" }, "a single entry object returned for one entry"],
  ["return-null", 609, { format: "prefixed", entry: "direct", form: "esm-function", wrap: "null" }, "null for nothing"],
  ["return-undefined", 610, { format: "tagged", entry: "factory", form: "cjs-object", wrap: "undefined" }, "undefined for nothing"],
  ["numbers-json", 611, { format: "json", entry: "direct", form: "esm-function", types: ["nums", "result"] }, "doubles from random bit patterns, integers past 2^53, -0, long literals"],
  ["numbers-kv", 612, { format: "kv", entry: "factory", form: "esm-const", types: ["nums", "usage"] }, "numbers read from text with Number()"],
  ["numbers-pipe", 613, { format: "pipe", entry: "factory", form: "cjs-object", types: ["nums", "result", "usage"] }, "numbers from split fields"],
  ["nested-keys-json", 614, { format: "json", entry: "direct", form: "esm-function", types: ["data"] }, "nested values, integer-like keys, duplicate keys, __proto__"],
  ["nested-keys-tagged", 615, { format: "tagged", entry: "factory", form: "esm-list", types: ["data", "tool_call"] }, "tool inputs and data with Unicode keys"],
  ["determinism-json", 616, { format: "json", entry: "factory", form: "esm-function", determinism: true }, "Date.now(), new Date(), Math.random() under the sandbox's rules"],
  ["determinism-direct", 617, { format: "prefixed", entry: "direct", form: "cjs-object", determinism: true }, "determinism in a stateless parser"],
  ["determinism-both", 618, { format: "kv", entry: "both", form: "esm-const", determinism: true }, "determinism with both exports"],
  ["exotic-values-json", 619, { format: "json", entry: "factory", form: "esm-function", exotic: true }, "NaN, undefined, functions, Maps, Dates, toJSON, getters, typed arrays in extra fields"],
  ["exotic-values-direct", 620, { format: "tagged", entry: "direct", form: "cjs-define", exotic: true }, "JSON-only values, stateless"],
  ["exotic-values-both", 621, { format: "pipe", entry: "both", form: "esm-list", exotic: true }, "JSON-only values, both exports"],
  ["deltas-merge", 622, { format: "json", entry: "factory", form: "esm-function", types: ["thinking", "multi"] }, "assistant and thinking deltas merged across lines and chunks"],
  ["unicode-text-json", 623, { format: "json", entry: "direct", form: "esm-const", types: ["user", "diff"] }, "emoji, CJK, combining marks, case mapping, normalization"],
  ["unicode-text-tagged", 624, { format: "tagged", entry: "factory", form: "cjs-exports", types: ["user", "thinking"] }, "Unicode text through \\p{…} regexes"],
  ["everything-json", 625, { format: "json", entry: "both", form: "esm-function", types: ["usage", "result", "init", "data", "nums", "multi", "boom", "junk", "diff"] }, "every event type at once"],
  ["everything-prefixed", 626, { format: "prefixed", entry: "factory", form: "cjs-tsc", types: ["usage", "result", "init", "data", "nums", "multi", "boom", "bad", "diff"] }, "every event type after a prefix"],
];

/**
 * Writes one corpus file. The source is stored as its lines and the log as its lines with
 * their endings (`\n`, `\r\n`, none for a last partial line), so a diff reads well.
 */
export function writeCase(name, c, note, extra = {}) {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const source = c.source.split("\n");
  const log = c.log.split(/(?<=\n)/);
  const doc = { name, note, seed: c.seed, shape: c.shape, style: c.style, ...extra, source, log, ...(c.chunks ? { chunks: c.chunks } : {}) };
  const file = `${CORPUS_DIR}${name}.json`;
  writeFileSync(file, JSON.stringify(doc, null, 1) + "\n");
  return file;
}

/** Writes the named shapes from the generator (their chunks come from their seeds at run time). */
export function writeNamedCorpus() {
  return NAMED.map(([name, seed, force, note]) => {
    const c = generateCase(seed, { force, name, lines: 40 });
    return writeCase(name, { ...c, chunks: undefined }, note);
  });
}

/** Every corpus case, by file name order. */
export function readCorpus() {
  let files = [];
  try {
    files = readdirSync(CORPUS_DIR).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const doc = JSON.parse(readFileSync(CORPUS_DIR + f, "utf8"));
    const join = (v, sep) => (Array.isArray(v) ? v.join(sep) : v);
    return { file: f, ...doc, source: join(doc.source, "\n"), log: join(doc.log, "") };
  });
}
