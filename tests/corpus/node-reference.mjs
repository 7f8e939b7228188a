#!/usr/bin/env node
// Reference runner: evaluates an adapter `ui-parser.js` natively in Node under the same
// determinism rules as the parsebox sandbox and prints one JSON document to stdout.
//
//   TZ=UTC node tests/corpus/node-reference.mjs <ui-parser.js> <sample.log> \
//       [--format esm|cjs|auto] [--runs N]
//
// Exit codes: 0 ok, 1 runs differ (with --runs > 1), 2 usage / missing file / unusable module.
// Nothing but the JSON document is written to stdout.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const OrigDate = Date;
const stdoutWrite = process.stdout.write.bind(process.stdout);
const stderrWrite = process.stderr.write.bind(process.stderr);

function fail(code, message) {
  stderrWrite(`node-reference: ${message}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const positional = [];
  let format = "auto";
  let runs = 1;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--format" || arg.startsWith("--format=")) {
      format = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      if (!["esm", "cjs", "auto"].includes(format)) fail(2, `--format must be esm, cjs or auto (got ${format})`);
    } else if (arg === "--runs" || arg.startsWith("--runs=")) {
      const v = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      runs = Number(v);
      if (!Number.isInteger(runs) || runs < 1) fail(2, `--runs must be a positive integer (got ${v})`);
    } else if (arg === "-h" || arg === "--help") {
      stderrWrite("usage: TZ=UTC node node-reference.mjs <ui-parser.js> <sample.log> [--format esm|cjs|auto] [--runs N]\n");
      process.exit(0);
    } else if (arg.startsWith("--")) {
      fail(2, `unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 2) {
    fail(2, "usage: TZ=UTC node node-reference.mjs <ui-parser.js> <sample.log> [--format esm|cjs|auto] [--runs N]");
  }
  return { parserPath: resolve(positional[0]), logPath: resolve(positional[1]), format, runs };
}

function readText(path, what) {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    fail(2, `cannot read ${what} ${path}: ${e.code || e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Determinism: Date and Math.random (same rules as the sandbox)
// ---------------------------------------------------------------------------------------------

let currentTime = 0; // ms since epoch of the line being parsed; 0 outside of any line
let seedState = 0x5eed;

function installDeterminism() {
  function FakeDate(...args) {
    if (!new.target) return new OrigDate(currentTime).toString();
    if (args.length === 0) return Reflect.construct(OrigDate, [currentTime], new.target);
    return Reflect.construct(OrigDate, args, new.target);
  }
  Object.defineProperty(FakeDate, "length", { value: 7 });
  Object.defineProperty(FakeDate, "name", { value: "Date" });
  FakeDate.prototype = OrigDate.prototype;
  FakeDate.now = function now() { return currentTime; };
  FakeDate.parse = OrigDate.parse;
  FakeDate.UTC = OrigDate.UTC;
  Object.defineProperty(OrigDate.prototype, "constructor", { value: FakeDate, writable: true, configurable: true });
  globalThis.Date = FakeDate;

  Math.random = function random() {
    let a = seedState;
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    seedState = a;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  // `console` may be a no-op in the sandbox; keep stdout clean whatever a parser does.
  const noop = () => {};
  for (const k of Object.keys(console)) {
    if (typeof console[k] === "function") console[k] = noop;
  }
}

function resetRun() {
  currentTime = 0;
  seedState = 0x5eed;
}

// ---------------------------------------------------------------------------------------------
// Module loading
// ---------------------------------------------------------------------------------------------

// Top-level `export` statement at the start of a line (outside obvious strings is good enough
// for adapter bundles; an explicit --format overrides).
const ESM_EXPORT_RE = /^[ \t]*export[ \t]*(?:\{|\*|default\b|(?:async[ \t]+)?function\b|const\b|let\b|var\b|class\b)/m;

function detectFormat(src) {
  return ESM_EXPORT_RE.test(src) ? "esm" : "cjs";
}

let importCounter = 0;

async function loadEsm(parserPath, src) {
  const n = ++importCounter;
  const url = `${pathToFileURL(parserPath).href}?run=${n}`;
  try {
    return await import(url);
  } catch (e) {
    // A typeless `.js` file inside a `"type": "commonjs"` package cannot be imported as ESM by
    // file URL; a data: URL is always ESM and equally fresh.
    if (e instanceof SyntaxError && /export|import/.test(String(e.message))) {
      const data = `data:text/javascript;base64,${Buffer.from(`${src}\n//# parsebox-run=${n}\n`).toString("base64")}`;
      return await import(data);
    }
    throw e;
  }
}

function loadCjs(src) {
  const module = { exports: {} };
  const require = (name) => {
    throw new Error(`require(${JSON.stringify(String(name))}) is not available to ui-parser modules`);
  };
  const fn = new Function("module", "exports", "require", src);
  fn.call(module.exports, module, module.exports, require);
  return module.exports;
}

// ---------------------------------------------------------------------------------------------
// A run
// ---------------------------------------------------------------------------------------------

function splitLog(text) {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
}

function tsFor(i) {
  return new OrigDate(OrigDate.UTC(2026, 0, 1, 0, 0, 0) + i * 1000).toISOString();
}

function toPlain(value) {
  const s = JSON.stringify(value ?? null);
  return s === undefined ? null : JSON.parse(s);
}

async function oneRun(opts, src, format, lines) {
  resetRun();
  let exp;
  try {
    exp = format === "esm" ? await loadEsm(opts.parserPath, src) : loadCjs(src);
  } catch (e) {
    fail(2, `module evaluation failed (${format}): ${String(e)}`);
  }
  if (exp == null || (typeof exp !== "object" && typeof exp !== "function")) {
    fail(2, `module has no usable export (exports is ${exp === null ? "null" : typeof exp})`);
  }

  let entryPoint;
  let parse;
  let factory;
  let direct;
  try {
    factory = exp.createStdoutParser;
    direct = exp.parseStdoutLine;
  } catch (e) {
    fail(2, `reading the module's exports threw: ${String(e)}`);
  }
  if (typeof factory === "function") {
    entryPoint = "createStdoutParser";
    let instance;
    try {
      instance = factory();
    } catch (e) {
      fail(2, `createStdoutParser() threw: ${String(e)}`);
    }
    if (!instance || typeof instance.parseLine !== "function") {
      fail(2, "createStdoutParser() did not return an object with a parseLine function");
    }
    parse = (line, ts) => instance.parseLine(line, ts);
  } else if (typeof direct === "function") {
    entryPoint = "parseStdoutLine";
    parse = (line, ts) => direct(line, ts);
  } else {
    fail(2, "module has no usable export: neither createStdoutParser nor parseStdoutLine is a function");
  }

  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const ts = tsFor(i);
    currentTime = OrigDate.parse(ts);
    try {
      const result = toPlain(parse(line, ts));
      out.push({ line, ts, result });
    } catch (e) {
      let msg;
      try { msg = String(e); } catch { msg = "<unprintable error>"; }
      out.push({ line, ts, throws: msg });
    }
  }
  currentTime = 0;
  return { entryPoint, lines: out };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (new OrigDate(0).getTimezoneOffset() !== 0) {
    fail(2, "the local time zone is not UTC; start the runner with TZ=UTC (e.g. `TZ=UTC node node-reference.mjs ...`)");
  }
  const src = readText(opts.parserPath, "parser");
  const log = readText(opts.logPath, "log");
  const format = opts.format === "auto" ? detectFormat(src) : opts.format;
  const lines = splitLog(log);

  installDeterminism();
  const docs = [];
  for (let r = 0; r < opts.runs; r++) docs.push(JSON.stringify(await oneRun(opts, src, format, lines), null, 2));

  stdoutWrite(`${docs[0]}\n`);
  for (let r = 1; r < docs.length; r++) {
    if (docs[r] !== docs[0]) {
      stderrWrite(`node-reference: run ${r + 1} differs from run 1 (parser is not deterministic under the sandbox rules)\n`);
      process.exitCode = 1;
      return;
    }
  }
}

main().catch((e) => fail(2, `internal error: ${e && e.stack ? e.stack : String(e)}`));
