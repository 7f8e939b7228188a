// The npm command reads its command line as the native command's clap does (issue 56: the
// package carries the page's two modules and nothing else, so the WASI build of clap that said
// help, version and usage errors is gone). Over hand-picked and generated command lines, the
// npm command's reader (pkg/cli/args.js) says what the native command says, byte for byte and
// with its exit code, or takes the arguments where the native command takes them and runs.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { readCommandLine } from "../../pkg/cli/args.js";
import { COMMAND_LINE } from "../../pkg/cli/command-line.js";
import { mulberry32 } from "../../www/chunks.js";
import { buildNativeCommand } from "./helpers/native-command.mjs";

let native;
/** An empty directory: every path a command line names is missing, so a taken one fails fast. */
let empty;

before(() => {
  native = buildNativeCommand();
  empty = mkdtempSync(join(tmpdir(), "parsebox-cli-args-"));
});

/** What the native command does with `argv`, run where no file exists, with empty input. */
function nativeSays(argv) {
  const r = spawnSync(native, argv, { cwd: empty, encoding: "utf8", input: "", timeout: 30_000, env: { ...process.env, NO_COLOR: "1" } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Holds the two readers equal on `argv`; returns whether the npm reader took the arguments. */
function assertSame(argv) {
  const ours = readCommandLine(argv);
  const theirs = nativeSays(argv);
  const what = `parsebox ${argv.map((a) => JSON.stringify(a)).join(" ")}`;
  if ("said" in ours) {
    const { to, text, code } = ours.said;
    assert.deepEqual(
      { code: theirs.code, stdout: theirs.stdout, stderr: theirs.stderr },
      { code, stdout: to === "stdout" ? text : "", stderr: to === "stderr" ? text : "" },
      what,
    );
    return false;
  }
  // Taken: the native command took them too, and ran (and failed on the missing file).
  assert.doesNotMatch(theirs.stderr, /^error: /, `${what}: the native command refused what the npm reader took`);
  assert.doesNotMatch(theirs.stdout, /^Usage: |\nUsage: |^parsebox(-\w+)? \d/, `${what}: the native command said help or its version`);
  return true;
}

test("help, version and every usage error read as the native command's", () => {
  const lines = [
    [], ["--help"], ["-h"], ["--version"], ["-V"], ["help"], ["help", "check"], ["help", "parse"], ["help", "help"],
    ["help", "foo"], ["help", "check", "extra"], ["check", "-h"], ["check", "--help"], ["parse", "-h"], ["parse", "--help"],
    ["check", "--version"], ["parse", "-V"], ["foo"], ["chek"], ["hepl"], ["--bogus"], ["-q"], ["--"], ["--", "check"],
    ["--json", "check", "a"], ["parsebox", "check"], ["-"], ["--help=1"], ["--version=x"], ["-xh"], ["-Vh"],
    ["check"], ["check", "a", "b"], ["check", "--jsn", "a"], ["check", "a", "--json", "--json"], ["check", "a", "--max-examples"],
    ["check", "a", "--max-examples", "x"], ["check", "a", "--color", "blue"], ["check", "a", "--hang-timeout-ms", "0"],
    ["check", "a", "--hang-timeout-ms", "00"], ["check", "a", "--hang-timeout-ms", "+0"], ["check", "a", "--hang-timeout-ms=-1"],
    ["check", "-q", "a"], ["check", ""], ["check", "a", "--log="], ["check", "a", "--log", ""], ["check", "--json"],
    ["check", "--json", "--strict"], ["check", "a", "--", "b"], ["check", "-h", "--bogus"], ["check", "--bogus", "-h"],
    ["check", "a", "--max-examples", "-h"], ["check", "--json=true", "a"], ["check", "--lo", "a"], ["check", "---json", "a"],
    ["check", "a", "--color="], ["check", "a", "--color", ""], ["check", "--max-examples", "3"], ["check", "--hang-timeout-ms", "5"],
    ["check", "a", "--max-examples", "99999999999999999999999"], ["check", "a", "--max-line-bytes", ""], ["check", "a", "--max-examples", "+"],
    ["parse"], ["parse", "-q"], ["parse", "-q", "-q"], ["parse", "--parser"], ["parse", "--parser", "a", "-qq"], ["parse", "--parser", "a", "--quiet=yes"],
    ["parse", "--parser", "a", "-qx"], ["parse", "--parser", "-x"], ["parse", "--parser", "a", "--format"], ["parse", "--parser", "a", "--format="],
    ["parse", "--format", "yml", "--parser", "a"], ["parse", "--parser", "a", "--format", "pret"], ["parse", "--parser", "a", "--format", "Pretty"],
    ["parse", "--parser", "a", "--color", "nevr"], ["parse", "--parser", "a", "--line-budget-ms", "abc"], ["parse", "--parser", "a", "--line-budget-ms", ""],
    ["parse", "--parser", "a", "--max-line-bytes", "-5"], ["parse", "--json", "--parser", "a"], ["parse", "--parser", "a", "b", "c"],
    ["parse", "--parser", "a", "-", "-"], ["parse", "--redact-home-path", "--parser", "a"], ["parse", "--parser", "a", "--log", "x"],
    ["parse", "--parser=a", "x", "--quiet=1"], ["parse", "x", "--parser"], ["parse", "--parser", "a", "--", "--parser"],
  ];
  for (const argv of lines) assertSame(argv);
});

test("command lines the native command takes are taken, with clap's values", () => {
  const taken = [
    ["check", "a"], ["check", "--", "-"], ["check", "a", "--log", "-"], ["check", "--log=a=b", "a"], ["check", "a", "--max-examples", "+3"],
    ["check", "a", "--max-examples", "00"], ["parse", "--parser", "a", "--line-budget-ms", "5."], ["parse", "--parser", "a", "--line-budget-ms", "inf"],
    ["parse", "--parser=a", "-q", "--format=jsonl", "x"], ["parse", "-q", "--parser", "a", "--", "-"],
  ];
  for (const argv of taken) assert.equal(assertSame(argv), true, argv.join(" "));
  const line = readCommandLine(["parse", "--parser", "p.js", "--line-budget-ms", "5.", "--max-line-bytes", "+12", "-q", "run.log"]);
  assert.deepEqual(line, {
    command: "parse",
    args: { parser: "p.js", log: "run.log", format: "pretty", ndjson: false, redactHomePaths: false, quiet: true, hangTimeoutMs: 10000, lineBudgetMs: 5, maxLineBytes: 12, color: "auto" },
  });
  assert.deepEqual(readCommandLine(["check", "p.js"]), {
    command: "check",
    args: { parser: "p.js", package: null, log: null, json: false, strict: false, maxExamples: 5, hangTimeoutMs: 10000, color: "auto" },
  });
});

test("generated command lines read as the native command reads them", () => {
  // Seeded, so a failure names a line that can be run again.
  const next = mulberry32(Number(process.env.PARSEBOX_ARGS_SEED ?? 56));
  const pick = (list) => list[Math.floor(next() * list.length)];
  const longs = [...new Set(Object.values(COMMAND_LINE).flatMap((c) => c.args.map((a) => a.long).filter((l) => l !== null)))];
  const values = ["a", "b", "-", "", "x", "0", "1", "+5", "-5", "1.5", "5.", "inf", "NaN", "1e3", ".", "99999999999999999999", "pretty", "jsonl", "Pretty", "pret", "auto", "nevr", "never"];
  const odd = ["--", "-qq", "-qx", "-x", "-q", "-h", "-V", "--bogus", "--jsn", "--lo", "---json", "--quiet=yes", "--json=true", "--format=", "--color=", "--log=", "--parser=a", "-q=yes", "check", "parse", "help", "--redact-home-path", "--max-example", "--formt", "--help=1"];
  const firsts = ["check", "check", "check", "parse", "parse", "parse", "help", "chek", "prse", "--help", "-h", "-V", "--json", "--", "-", "foo"];
  /** A value `arg` takes, mostly one it accepts. */
  const valueFor = (arg) => {
    if (next() < 0.2) return pick(values);
    if (arg.possible) return pick(arg.possible);
    return { path: "a", f64: "2.5", unsigned: "7", "unsigned-from-1": "3" }[arg.value] ?? "a";
  };
  let taken = 0;
  const count = 500;
  for (let n = 0; n < count; n++) {
    const first = pick(firsts);
    const argv = [first];
    const spec = COMMAND_LINE[first];
    // Half of a subcommand's lines start with what it requires.
    if (spec && first !== "help" && next() < 0.5) {
      for (const arg of spec.args.filter((a) => a.required)) argv.push(...(arg.positional ? ["a"] : [`--${arg.long}`, "a"]));
    }
    const length = Math.floor(next() * 5);
    for (let i = 0; i < length; i++) {
      const r = next();
      const own = spec?.args.filter((a) => a.long !== null && a.action !== "help" && a.action !== "version") ?? [];
      if (r < 0.6 && own.length > 0) {
        const arg = pick(own);
        if (arg.action !== "set") argv.push(`--${arg.long}`);
        else if (next() < 0.3) argv.push(`--${arg.long}=${valueFor(arg)}`);
        else argv.push(`--${arg.long}`, valueFor(arg));
      } else if (r < 0.65) argv.push(`--${pick(longs)}`);
      else if (r < 0.85) argv.push(pick(values));
      else argv.push(pick(odd));
    }
    if (assertSame(argv)) taken++;
  }
  // Both kinds were drawn: lines refused in many ways, and lines taken.
  assert.ok(taken >= count / 20 && taken < count - count / 10, `${taken} of ${count} taken`);
});
