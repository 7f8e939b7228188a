#!/usr/bin/env node
// Checks the compatibility corpus: every tests/corpus/compat/<name>/ui-parser.js is run on its
// sample.log by node-reference.mjs (two fresh runs, which must agree), and every returned entry
// must match the TranscriptEntry table of SPEC §2. Also checks the runner's failure exit codes.
//
//   node tests/corpus/check-corpus.mjs [name ...]
//
// Prints one line per failure and finally `N passed, M failed`; exits 1 if anything failed.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const runner = join(here, "node-reference.mjs");
const compatDir = join(here, "compat");

const MAX_SOURCE_BYTES = 50 * 1024;
const THROW_MARKER = "@@parsebox-expect-throw@@";
const KINDS = ["assistant", "thinking", "user", "stderr", "system", "stdout", "tool_call", "tool_result", "init", "result", "diff"];
const CHANGE_TYPES = ["add", "remove", "context", "hunk", "file_header", "truncation"];
// Host globals a parser must not reach for (calls / property reads, not object keys).
const FORBIDDEN_SOURCE = [
  [/^\s*import\s*[\w{*"']/m, "static import"],
  [/\bimport\s*\(/, "dynamic import()"],
  [/\brequire\s*\(/, "require()"],
  [/\bawait\b/, "await (top-level await is not allowed; parsers are synchronous)"],
  [/\b(?:window|document|self|globalThis|localStorage|sessionStorage|indexedDB|navigator|process)\s*\./, "host global"],
  [/\b(?:fetch|setTimeout|setInterval|setImmediate|queueMicrotask|XMLHttpRequest|WebSocket|postMessage|eval)\s*\(/, "host function"],
  [/\bconsole\s*\./, "console"],
  [/\bnew\s+Function\b/, "Function constructor"],
];

let passed = 0;
let failed = 0;
const failures = [];

function fail(where, message) {
  failures.push(`${where}: ${message}`);
}

function runRunner(args) {
  return spawnSync(process.execPath, [runner, ...args], {
    encoding: "utf8",
    env: { ...process.env, TZ: "UTC" },
    maxBuffer: 256 * 1024 * 1024,
  });
}

const isStr = (v) => typeof v === "string";
const isNum = (v) => typeof v === "number" && Number.isFinite(v);
const isBool = (v) => typeof v === "boolean";

// Returns a list of problems with one entry (empty when valid).
function validateEntry(e) {
  const p = [];
  if (e === null || typeof e !== "object" || Array.isArray(e)) return ["entry is not an object"];
  if (!KINDS.includes(e.kind)) return [`unknown kind ${JSON.stringify(e.kind)}`];
  if (!isStr(e.ts)) p.push("ts is not a string");
  const need = (field, check, what) => {
    if (!check(e[field])) p.push(`${e.kind}.${field} must be ${what} (got ${JSON.stringify(e[field])})`);
  };
  const opt = (field, check, what) => {
    if (field in e && !check(e[field])) p.push(`${e.kind}.${field} must be ${what} when present`);
  };
  switch (e.kind) {
    case "assistant":
    case "thinking":
      need("text", isStr, "a string");
      opt("delta", isBool, "a boolean");
      break;
    case "user":
    case "stderr":
    case "system":
    case "stdout":
      need("text", isStr, "a string");
      break;
    case "tool_call":
      need("name", isStr, "a string");
      if (!("input" in e)) p.push("tool_call.input is missing");
      opt("toolUseId", isStr, "a string");
      opt("invocationId", isStr, "a string");
      opt("actionRequestId", isStr, "a string");
      break;
    case "tool_result":
      need("toolUseId", isStr, "a string");
      need("content", isStr, "a string");
      need("isError", isBool, "a boolean");
      opt("toolName", isStr, "a string");
      break;
    case "init":
      need("model", isStr, "a string");
      need("sessionId", isStr, "a string");
      break;
    case "result":
      need("text", isStr, "a string");
      for (const f of ["inputTokens", "outputTokens", "cachedTokens", "costUsd"]) need(f, isNum, "a finite number");
      need("subtype", isStr, "a string");
      need("isError", isBool, "a boolean");
      need("errors", (v) => Array.isArray(v) && v.every(isStr), "an array of strings");
      break;
    case "diff":
      need("changeType", (v) => CHANGE_TYPES.includes(v), `one of ${CHANGE_TYPES.join("|")}`);
      need("text", isStr, "a string");
      break;
  }
  return p;
}

function nonEmptyLines(text) {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
}

const kindsSeen = new Set();
let throwingParsers = 0;

function checkParser(name) {
  const dir = join(compatDir, name);
  const parserPath = join(dir, "ui-parser.js");
  const logPath = join(dir, "sample.log");
  const before = failures.length;
  if (!existsSync(parserPath) || !existsSync(logPath)) {
    fail(name, "missing ui-parser.js or sample.log");
    return false;
  }
  const src = readFileSync(parserPath, "utf8");
  if (statSync(parserPath).size > MAX_SOURCE_BYTES) fail(name, `ui-parser.js is larger than ${MAX_SOURCE_BYTES} bytes`);
  const lead = src.replace(/^"use strict";\s*/, "").split("\n");
  const headerLines = lead.findIndex((l) => !l.startsWith("//"));
  if (headerLines < 2 || headerLines > 4) {
    fail(name, `ui-parser.js must open with a 2–4 line header comment naming the style it imitates (has ${headerLines})`);
  }
  const code = src.replace(/^\s*\/\/.*$/gm, "");
  for (const [re, what] of FORBIDDEN_SOURCE) {
    if (re.test(code)) fail(name, `source uses ${what}`);
  }
  const lines = nonEmptyLines(readFileSync(logPath, "utf8"));
  if (lines.length < 30 || lines.length > 200) fail(name, `sample.log has ${lines.length} non-empty lines (want 30–200)`);

  const res = runRunner([parserPath, logPath, "--runs", "2"]);
  if (res.status !== 0) {
    fail(name, `runner exited ${res.status}: ${res.stderr.trim()}`);
    return false;
  }
  let doc;
  try {
    doc = JSON.parse(res.stdout);
  } catch (e) {
    fail(name, `runner output is not JSON: ${e.message}`);
    return false;
  }
  if (!["createStdoutParser", "parseStdoutLine"].includes(doc.entryPoint)) fail(name, `bad entryPoint ${doc.entryPoint}`);
  if (!Array.isArray(doc.lines) || doc.lines.length !== lines.length) {
    fail(name, `runner reported ${doc.lines?.length} lines, log has ${lines.length}`);
    return false;
  }

  let withEntries = 0;
  let entryCount = 0;
  let throws = 0;
  doc.lines.forEach((l, i) => {
    const where = `${name} line ${i + 1}`;
    if (l.line !== lines[i]) fail(where, "line text differs from the log");
    if ("throws" in l) {
      throws++;
      if (!l.line.includes(THROW_MARKER)) fail(where, `unexpected throw: ${l.throws}`);
      return;
    }
    if (l.line.includes(THROW_MARKER)) fail(where, "line marked to throw did not throw");
    const r = l.result;
    if (r !== null && typeof r !== "object") {
      fail(where, `result is a ${typeof r}, not an array, entry or null`);
      return;
    }
    const entries = r === null ? [] : Array.isArray(r) ? r : [r];
    if (entries.length) withEntries++;
    for (const e of entries) {
      entryCount++;
      const problems = validateEntry(e);
      if (problems.length) fail(where, problems.join("; "));
      else kindsSeen.add(e.kind);
      if (e && e.ts !== l.ts) fail(where, `entry ts ${JSON.stringify(e.ts)} is not the line ts ${l.ts}`);
      if (e && isStr(e.text) && e.text.startsWith("[legacy] ")) fail(where, "parseStdoutLine output used although createStdoutParser exists");
    }
  });
  if (throws) throwingParsers++;
  if (withEntries < Math.ceil(lines.length * 0.25)) fail(name, `only ${withEntries}/${lines.length} lines produced entries`);
  if (entryCount < 20) fail(name, `only ${entryCount} entries in total`);
  return failures.length === before;
}

function checkRunnerErrors() {
  const before = failures.length;
  const tmp = mkdtempSync(join(tmpdir(), "parsebox-corpus-"));
  try {
    const log = join(tmp, "x.log");
    writeFileSync(log, "hello\n");
    const missing = runRunner([join(tmp, "nope.js"), log]);
    if (missing.status !== 2 || missing.stdout !== "") fail("runner", `missing parser: want exit 2 and no stdout, got ${missing.status}`);
    const none = join(tmp, "none.js");
    writeFileSync(none, "export const notAParser = 1;\n");
    const noExport = runRunner([none, log]);
    if (noExport.status !== 2 || !/no usable export/.test(noExport.stderr)) fail("runner", `no usable export: want exit 2, got ${noExport.status} ${noExport.stderr}`);
    const nondet = join(tmp, "nondet.js");
    writeFileSync(nondet, "let n = 0; module.exports.parseStdoutLine = (line, ts) => [{ kind: 'stdout', ts, text: line + (globalThis.__n = (globalThis.__n || 0) + 1) }];\n");
    const differ = runRunner([nondet, log, "--runs", "2"]);
    if (differ.status !== 1) fail("runner", `state leaking across runs must fail --runs 2 with exit 1, got ${differ.status}`);
    const det = join(tmp, "det.cjs.js");
    writeFileSync(det, "\"use strict\";\nexports.parseStdoutLine = (line, ts) => ({ kind: 'system', ts, text: String(Date.now()) + ':' + Math.random() });\n");
    const ok = runRunner([det, log, "--runs", "2", "--format", "cjs"]);
    const okDoc = ok.status === 0 ? JSON.parse(ok.stdout) : null;
    const want = `${Date.UTC(2026, 0, 1)}:0.`;
    if (!okDoc || !okDoc.lines[0].result.text.startsWith(want)) fail("runner", `determinism rules not applied: ${ok.stdout || ok.stderr}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return failures.length === before;
}

const only = process.argv.slice(2);
const names = readdirSync(compatDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .filter((n) => only.length === 0 || only.includes(n))
  .sort();

for (const name of names) {
  if (checkParser(name)) passed++;
  else failed++;
}
if (only.length === 0) {
  if (checkRunnerErrors()) passed++;
  else failed++;
  const corpus = failures.length;
  if (names.length < 16) fail("corpus", `only ${names.length} parsers (want at least 16)`);
  const missingKinds = KINDS.filter((k) => !kindsSeen.has(k));
  if (missingKinds.length) fail("corpus", `no parser produces kinds: ${missingKinds.join(", ")}`);
  if (throwingParsers > 1) fail("corpus", `${throwingParsers} parsers throw on purpose (at most one may)`);
  if (failures.length === corpus) passed++;
  else failed++;
}

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
