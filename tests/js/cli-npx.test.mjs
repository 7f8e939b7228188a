// `npx parsebox` as an adapter author runs it (issue 44): in a fresh directory with only Node,
// the package installed from its packed tarball, `npx parsebox check` and `npx parsebox parse`
// work, and give what the Rust command gives for every parser of the compatibility corpus: the
// same report (text and --json), the same transcript (pretty and JSON lines) and the same exit
// codes. The npm command runs on the package's own modules (cli/, engines in Node threads); the
// native command runs the same live core with engine processes, so any difference is a rule one
// of them has and the other lacks. Help, version and usage errors are read as clap reads them
// (cli/args.js; tests/js/cli-args.test.mjs holds them equal over generated command lines).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNativeCommand } from "./helpers/native-command.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const corpus = join(root, "tests/corpus/compat");
let native;

let dir;
let app;

/** Runs `command args` in `cwd`; its exit code and output. */
function run(command, args, cwd, input) {
  const env = { ...process.env, NO_COLOR: "1" };
  const r = spawnSync(command, args, { cwd, encoding: "utf8", input, env, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { code: r.status ?? `signal ${r.signal}`, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The installed command run as `npx parsebox` runs it (its bin script under this Node), with V8
 * compiling the engine module to its baseline tier only (`--liftoff-only`). Which tier runs
 * the code changes no output; optimising the engine's hot functions, which a log of a few
 * dozen lines never earns back, was two thirds of what these comparisons cost: 108 runs of
 * the corpus test took 187 s of CPU, 58 s with Liftoff alone (the first test runs `npx`
 * itself, tiers and all).
 */
const installed = (args, cwd) => run(process.execPath, ["--liftoff-only", join(app, "node_modules/.bin/parsebox"), ...args], cwd);

/** What the clock says: how long `parse` took (its summary on stderr). The rest must match. */
const withoutTimings = (text) => text.replace(/ in [0-9.]+ s \([^)]*\)/g, " in … s");

before(() => {
  native = buildNativeCommand();
  dir = mkdtempSync(join(tmpdir(), "parsebox-npx-"));
  const packed = run("npm", ["pack", "--silent", "--pack-destination", dir], join(root, "pkg"));
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = packed.stdout.trim().split("\n").pop();
  app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "an-adapter", private: true, type: "module" }));
  const installed = run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", join(dir, tarball)], app);
  assert.equal(installed.code, 0, installed.stderr);
});

after(() => dir && rmSync(dir, { recursive: true, force: true }));

test("in a fresh directory, npx parsebox check and parse work as the README shows", () => {
  copyFileSync(join(corpus, "claude-stream-json/ui-parser.js"), join(app, "parser.js"));
  copyFileSync(join(corpus, "claude-stream-json/sample.log"), join(app, "run.log"));
  const check = run("npx", ["parsebox", "check", "parser.js", "--log", "run.log"], app);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^parsebox check parser\.js/);
  assert.match(check.stdout, /PASS/);
  const parse = run("npx", ["parsebox", "parse", "--parser", "parser.js", "run.log"], app);
  assert.equal(parse.code, 0, parse.stderr);
  assert.ok(parse.stdout.length > 0, "the transcript is printed");
  const jsonl = run("npx", ["parsebox", "parse", "--parser", "parser.js", "--format", "jsonl", "run.log"], app);
  const entries = jsonl.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(entries.some((e) => e.kind === "tool_call"), "the parser's own entries");
  // Standard input, as `tail -f run.log | npx parsebox parse --parser parser.js` reads it.
  const piped = run("npx", ["parsebox", "parse", "--parser", "parser.js", "--format", "jsonl", "-"], app, "plain text\n");
  assert.equal(piped.code, 0, piped.stderr);
  // Misuse: the Rust command's usage error and exit code 2.
  const usage = run("npx", ["parsebox", "check"], app);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Usage/);
});

test("npx parsebox gives the Rust command's report, transcript and exit code for every corpus parser", () => {
  const parsers = readdirSync(corpus).filter((name) => existsSync(join(corpus, name, "ui-parser.js")));
  assert.ok(parsers.length >= 10, parsers.join(", "));
  for (const name of parsers) {
    const cwd = join(corpus, name);
    // A hang limit of 2 s, in case a parser's line outlives its budget in one native step.
    const commands = [
      ["check", "ui-parser.js", "--log", "sample.log", "--hang-timeout-ms", "2000"],
      ["check", "--json", "ui-parser.js", "--log", "sample.log", "--hang-timeout-ms", "2000"],
      ["check", "--strict", "ui-parser.js", "--hang-timeout-ms", "2000"],
      ["parse", "--parser", "ui-parser.js", "sample.log"],
      ["parse", "--parser", "ui-parser.js", "--format", "jsonl", "sample.log"],
      ["parse", "--parser", "ui-parser.js", "--format", "timeline", "sample.log"],
    ];
    for (const args of commands) {
      const ours = installed(args, cwd);
      const rust = run(native, args, cwd);
      const what = `${name}: parsebox ${args.join(" ")}`;
      assert.equal(ours.code, rust.code, `${what}: exit code\n${ours.stderr}`);
      assert.equal(withoutTimings(ours.stdout), withoutTimings(rust.stdout), what);
      assert.equal(withoutTimings(ours.stderr), withoutTimings(rust.stderr), `${what}: stderr`);
    }
  }
});

test("a call the sandbox cannot interrupt is given up after --hang-timeout-ms, as the Rust command gives it up", () => {
  // A catastrophic regex on one line: boa backtracks for ever in one native step, which no
  // budget stops. The core ends its engine at the hard deadline and the lines around it are
  // parsed as usual, on standard input too; check stops at it and says so.
  const source = `export function parseStdoutLine(line, ts) {
    if (line.startsWith("hang")) /^(a+)+$/.test("a".repeat(40) + "b");
    return [{ kind: "assistant", ts, text: line }];
  }`;
  writeFileSync(join(app, "hangs.js"), source);
  const log = "one\ntwo\nhang here\nthree\n";
  writeFileSync(join(app, "hangs.log"), log);
  const bin = join(app, "node_modules/.bin/parsebox");
  for (const [args, input] of [
    [["parse", "--parser", "hangs.js", "--format", "jsonl", "--hang-timeout-ms", "1000", "-"], log],
    [["parse", "--parser", "hangs.js", "--hang-timeout-ms", "1000", "hangs.log"], undefined],
    [["check", "hangs.js", "--log", "hangs.log", "--hang-timeout-ms", "1000"], undefined],
    [["check", "--json", "hangs.js", "--log", "hangs.log", "--hang-timeout-ms", "1000"], undefined],
  ]) {
    const ours = run(bin, args, app, input);
    const rust = run(native, args, app, input);
    const what = `parsebox ${args.join(" ")}`;
    assert.equal(ours.code, rust.code, `${what}: exit code\n${ours.stderr}`);
    assert.equal(withoutTimings(ours.stdout), withoutTimings(rust.stdout), what);
    assert.equal(withoutTimings(ours.stderr), withoutTimings(rust.stderr), `${what}: stderr`);
    if (args[0] === "parse" && args.includes("jsonl")) {
      const texts = ours.stdout.trim().split("\n").map((l) => JSON.parse(l).text);
      assert.deepEqual(texts, ["one", "two", "hang here", "three"], "the hung line shows generic, the rest parsed");
    }
    if (args[0] === "check") assert.match(ours.stdout, /unstoppable/);
  }
});

test("a module whose evaluation never ends fails its module check after the start deadline, as in the Rust command", () => {
  // One native step at the top level (a catastrophic regex): both commands start the parser on
  // the live core, which ends it at its start deadline (10 s), and report that.
  writeFileSync(join(app, "never-loads.js"), `/^(a+)+$/.test("a".repeat(40) + "b");\nexport function parseStdoutLine(line, ts) { return []; }\n`);
  const bin = join(app, "node_modules/.bin/parsebox");
  const args = ["check", "--json", "never-loads.js"];
  const ours = run(bin, args, app);
  const rust = run(native, args, app);
  assert.equal(ours.code, 1, ours.stderr);
  assert.equal(ours.code, rust.code);
  assert.equal(withoutTimings(ours.stdout), withoutTimings(rust.stdout));
  const load = JSON.parse(ours.stdout).checks.find((c) => c.id === "load");
  assert.equal(load.status, "fail");
  assert.match(load.summary, /did not start within/);
});

test("npx parsebox check gives the Rust command's report for every kind of finding, text and JSON", () => {
  // `check` runs on the package's registry here and on the live core with engine processes in
  // the Rust command: each finding below is one rule the two reports must share, from the
  // module's shape to the package.json checks.
  const dir = join(app, "findings");
  mkdirSync(dir, { recursive: true });
  const files = {
    // Each line's length and a hash of its text, thrown: the report lists every awkward line
    // (99 examples), so the two commands must feed the very same set.
    "awkward-echo.js": `export function parseStdoutLine(line) { let h = 0; for (const c of line) h = (h * 31 + c.codePointAt(0)) | 0; throw new Error(line.length + ":" + h); }`,
    "invalid-entries.js": `export function parseStdoutLine(line, ts) { return [{ kind: "nope", ts, text: line.slice(0, 300) }, { kind: "assistant", ts, text: line.slice(0, 20) }, { kind: "tool_call", ts }]; }`,
    "counter.js": `let n = 0;\nexport function createStdoutParser() { return { parseLine(line, ts) { return [{ kind: "assistant", ts, text: "#" + n++ }]; }, reset() {} }; }`,
    "stateless-counter.js": `let n = 0;\nexport function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: "#" + n++ }]; }`,
    "throwing-reset.js": `export function createStdoutParser() { let first = true; return { parseLine(line, ts) { if (!first) throw new Error("after reset"); return [{ kind: "stdout", ts, text: line }]; }, reset() { first = false; throw new Error("no reset"); } }; }`,
    "syntax.js": `export function parseStdoutLine(line, ts {`,
    "imports.js": `import x from "y";\nexport function parseStdoutLine(line, ts) { return [x]; }`,
    "common.cjs": `module.exports = { parseStdoutLine(line, ts) { return [{ kind: "stdout", ts, text: line }]; }, createStdoutParser() { return { parseLine: (l, ts) => [{ kind: "stdout", ts, text: l }], reset() {} }; }, helper() {} };`,
    "ok.js": `export function parseStdoutLine(line, ts) { return [{ kind: "stdout", ts, text: line }]; }`,
    "empty.log": "\n   \n\t\n",
    "sample.log": `{"type":"assistant"}\nplain text\n\n${"x".repeat(400)}\n`,
    "pkg-ok.json": JSON.stringify({ name: "a", paperclip: { adapterUiParser: "1.0.0" }, exports: { "./ui-parser": "./ok.js" } }),
    "pkg-v2.json": JSON.stringify({ name: "a", paperclip: { adapterUiParser: "^2.1" }, exports: { "./ui-parser": { import: "./ok.js", default: "./missing.js" } } }),
    "pkg-none.json": JSON.stringify({ name: "a", exports: { ".": "./index.js" } }),
    "pkg-odd.json": JSON.stringify({ name: "a", paperclip: { adapterUiParser: 1 }, exports: { "./ui-parser": ["ok.js", "./counter.js"] } }),
    "pkg-noversion.json": JSON.stringify({ paperclip: { adapterUiParser: "one" }, exports: { "./ui-parser": 7 } }),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // Not UTF-8: a Latin-1 byte in a comment.
  writeFileSync(join(dir, "latin1.js"), Buffer.concat([Buffer.from("// caf"), Buffer.from([0xe9]), Buffer.from("\nexport function parseStdoutLine(line, ts) { return []; }\n")]));
  const cases = [
    ["check", "--strict", "--max-examples", "99", "awkward-echo.js"],
    ["check", "invalid-entries.js", "--log", "sample.log", "--max-examples", "9"],
    ["check", "invalid-entries.js"],
    ["check", "counter.js", "--log", "sample.log"],
    ["check", "stateless-counter.js"],
    ["check", "throwing-reset.js", "--log", "sample.log"],
    ["check", "syntax.js"],
    ["check", "imports.js", "--package", "pkg-ok.json"],
    ["check", "common.cjs"],
    ["check", "ok.js", "--log", "empty.log"],
    ["check", "latin1.js"],
    ["check", "ok.js", "--max-source-bytes", "40"],
    ["check", "ok.js", "--package", "pkg-ok.json"],
    ["check", "ok.js", "--package", "pkg-v2.json"],
    ["check", "ok.js", "--package", "pkg-none.json", "--strict"],
    ["check", "ok.js", "--package", "pkg-odd.json"],
    ["check", "ok.js", "--package", "pkg-noversion.json"],
    // Misuse and unreadable inputs: the same error and exit code.
    ["check", "missing.js"],
    ["check", "ok.js", "--log", "missing.log"],
  ];
  for (const args of cases.flatMap((c) => [c, [...c, "--json"]])) {
    const ours = installed(args, dir);
    const rust = run(native, args, dir);
    const what = `parsebox ${args.join(" ")}`;
    assert.equal(ours.code, rust.code, `${what}: exit code\n${ours.stderr}`);
    assert.equal(ours.stdout, rust.stdout, what);
    assert.equal(ours.stderr, rust.stderr, `${what}: stderr`);
  }
  // A limit out of range: both refuse it with a usage error naming the flag (the npm command in
  // the registry's words, as `parse` does).
  for (const command of [installed, (args, cwd) => run(native, args, cwd)]) {
    const refused = command(["check", "ok.js", "--line-budget-ms", "0"], dir);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^parsebox: error: .*--line-budget-ms.* got 0\n$/);
  }
  // What the report found, so the comparison above is not of two empty reports.
  const report = (args) => JSON.parse(installed([...args, "--json"], dir).stdout);
  const status = (r, id) => r.checks.find((c) => c.id === id)?.status;
  const awkward = report(["check", "--max-examples", "99", "awkward-echo.js"]).checks.find((c) => c.id === "awkward_lines");
  assert.equal(awkward.details.length, 32, "every awkward line and the closing sentence");
  assert.equal(status(report(["check", "invalid-entries.js", "--log", "sample.log"]), "entries"), "fail");
  const counter = report(["check", "counter.js", "--log", "sample.log"]);
  assert.deepEqual([status(counter, "determinism"), status(counter, "reset_replay")], ["pass", "warn"], "each fresh run has its own module; reset() does not undo the counter");
  assert.equal(status(report(["check", "imports.js"]), "imports"), "fail");
  assert.equal(status(report(["check", "latin1.js"]), "encoding"), "fail");
  assert.equal(status(report(["check", "ok.js", "--package", "pkg-ok.json"]), "exports_entry"), "pass");
  assert.equal(report(["check", "common.cjs"]).module.format, "commonjs");
});

test("npx parsebox check says a package.json that is not JSON, as the Rust command does", () => {
  // The one sentence the two commands word differently: the JSON reader's own error.
  writeFileSync(join(app, "broken.json"), "{ not json");
  writeFileSync(join(app, "ok.js"), `export function parseStdoutLine(line, ts) { return []; }`);
  const args = ["check", "--json", "ok.js", "--package", "broken.json"];
  const ours = run(join(app, "node_modules/.bin/parsebox"), args, app);
  const rust = run(native, args, app);
  assert.equal(ours.code, rust.code);
  const version = (r) => JSON.parse(r.stdout).checks.find((c) => c.id === "contract_version");
  assert.equal(version(ours).status, "fail");
  assert.match(version(ours).summary, /^broken\.json is not valid JSON: /);
  assert.match(version(rust).summary, /^broken\.json is not valid JSON: /);
});
