// `parsebox parse` in Node (issue 56: one host): the npm command runs on the package's own two
// modules, each engine in a Node thread as the page has it in a Worker (pkg/cli/). The native
// command runs the same live core with an engine process per parser, so the two must print the
// same thing: for every parser of the hostile corpus on its attack log (hangs, runaway memory,
// throws, invalid entries), for a stored NDJSON run log, and for every misuse. Counted, never
// timed: what is printed, in what order, and the exit code.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNativeCommand } from "./helpers/native-command.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
let native;
const cli = join(root, "pkg/cli.js");
const hostile = join(root, "tests/corpus/hostile");
const attackLog = join(root, "crates/parsebox-cli/tests/fixtures/attack.log");

before(() => {
  native = buildNativeCommand();
});

/** Runs a command; resolves to its exit code and output. */
function run(command, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, NO_COLOR: "1" } });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? `signal ${signal}`, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.on("error", () => {}); // a command that exits before reading it
    child.stdin.end(input ?? "");
  });
}

const ours = (args, input) => run(process.execPath, [cli, ...args], input);
const theirs = (args, input) => run(native, args, input);

/**
 * What may differ between the two: how long parsing took, and how many bytes an engine that
 * ran out of memory was asking for (an engine in wasm grows its memory in other steps than a
 * native one: both say `memory_exceeded` with the same maximum).
 */
const comparable = (text) =>
  text
    .replace(/ in [0-9.]+ s \([^)]*\)/g, " in … s")
    .replace(/\): [0-9.]+ (?:bytes|KiB|MiB) more did not fit/g, "): … more did not fit");

/** Both commands at once; asserts they printed the same; ours. */
async function assertSame(args, input) {
  const [a, b] = await Promise.all([ours(args, input), theirs(args, input)]);
  const what = `parsebox ${args.join(" ")}`;
  assert.equal(a.code, b.code, `${what}: exit code\n${a.stderr}`);
  assert.equal(comparable(a.stdout), comparable(b.stdout), `${what}: stdout`);
  assert.equal(comparable(a.stderr), comparable(b.stderr), `${what}: stderr`);
  return a;
}

test("every hostile parser's attack log prints what the native command prints", async () => {
  const parsers = readdirSync(hostile).filter((n) => n.endsWith(".js"));
  assert.ok(parsers.length >= 30, parsers.join(", "));
  for (const name of parsers) {
    // The parsers that hang in one native step are given up after 1 s. Every other gets the
    // default 10 s: its verdict is the engine's counted work, and a budgeted line on a busy
    // machine (a debug build beside two CPU hogs) took past 1 s of the clock, which turned the
    // native command's verdict into a deadline. `regex_polynomial`'s one native step ends
    // (~1.3 s natively, ~2 s in wasm, idle) but the wasm one took past 10 s in a CI run beside
    // two CPU hogs and the browser tests: 60 s, so both commands give the step's own answer.
    const hangs = /catastrophic/.test(name)
      ? ["--hang-timeout-ms", "1000"]
      : /regex_polynomial/.test(name)
        ? ["--hang-timeout-ms", "60000"]
        : [];
    const a = await assertSame(["parse", "--parser", join(hostile, name), "--format", "jsonl", ...hangs, attackLog]);
    if (a.code !== 0) continue; // refused at load (imports, a start that never ends): said alike
    // The lines around the attack are the parser's own, whatever the attack did.
    const texts = a.stdout.trim().split("\n").map((l) => JSON.parse(l).text);
    assert.equal(texts.length, 3, `${name}: ${a.stdout}`);
    assert.match(texts[0], /^a\b/, name);
    assert.match(texts[2], /^b\b/, name);
  }
});

test("a stored NDJSON run log, its malformed rows counted, prints what the native command prints", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-parse-"));
  const parser = join(dir, "ui-parser.js");
  writeFileSync(parser, "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }\n");
  const rows = [
    { ts: "2026-02-01T10:00:00.000Z", stream: "stdout", chunk: "one\n", seq: 1 },
    "not json",
    { ts: "2026-02-01T10:00:01.000Z", stream: "video", chunk: "x" },
    "",
    { ts: "2026-02-01T10:00:02.000Z", stream: "stderr", chunk: "oops\n" },
    { ts: "2026-02-01T10:00:03.000Z", stream: "stdout", chunk: "two\nthr" },
    { ts: "2026-02-01T10:00:04.000Z", stream: "stdout", chunk: "ee\n" },
    { ts: "2026-02-01T10:00:05.000Z", stream: "stdout" },
  ];
  const log = join(dir, "run.ndjson");
  writeFileSync(log, rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n");
  for (const format of ["jsonl", "pretty", "timeline"]) {
    const a = await assertSame(["parse", "--parser", parser, "--ndjson", "--format", format, log]);
    assert.match(a.stderr, /3 malformed NDJSON rows skipped/);
  }
  // Home paths masked, as the page masks them.
  writeFileSync(log, JSON.stringify({ ts: "2026-02-01T10:00:00.000Z", stream: "stdout", chunk: "/Users/alice/x\n" }) + "\n");
  const masked = await assertSame(["parse", "--parser", parser, "--ndjson", "--redact-home-paths", "--format", "jsonl", log]);
  assert.doesNotMatch(masked.stdout, /alice/);
});

test("misuse and unreadable inputs get the native command's words and exit codes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-parse-"));
  const good = join(dir, "good.js");
  writeFileSync(good, "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }\n");
  const bad = join(dir, "bad.js");
  writeFileSync(bad, "export function parseStdoutLine( {\n");
  const log = join(dir, "run.log");
  writeFileSync(log, "one\n");
  for (const args of [
    ["parse", "--parser", good, dir], // a directory for a log
    ["parse", "--parser", join(dir, "missing.js"), log],
    ["parse", "--parser", bad, log], // does not load
    ["parse", "--parser", good, "--bogus", log],
    ["parse", "--parser", good, "--format", "yaml", log],
    ["parse", "--parser", good, "--hang-timeout-ms", "0", log],
    ["parse", log],
    ["parse", "--parser", "/dev/zero", log], // refused before it is read whole
  ]) {
    const a = await assertSame(args);
    assert.notEqual(a.code, 0, args.join(" "));
  }
});

test("a line over --max-line-bytes shows as its generic entry, and the summary says how long it was", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-parse-"));
  const parser = join(dir, "ui-parser.js");
  writeFileSync(parser, "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }\n");
  const log = join(dir, "run.log");
  writeFileSync(log, `short\n${"x".repeat(100)}\n${"é".repeat(60)}\nend\n`);
  const a = await ours(["parse", "--parser", parser, "--format", "jsonl", "--max-line-bytes", "50", log]);
  assert.equal(a.code, 0, a.stderr);
  const entries = a.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(entries.map((e) => e.kind), ["assistant", "stdout", "stdout", "assistant"]);
  // Kept just past the limit (whole characters), never the whole line.
  assert.equal(Buffer.byteLength(entries[1].text), 51);
  assert.equal(Buffer.byteLength(entries[2].text), 52);
  assert.match(a.stderr, /2 lines fell back to the generic parser \(line_too_long ×2\)/);
  assert.match(a.stderr, /line_too_long: line is 100 bytes, over --max-line-bytes 50/);
  assert.match(a.stderr, /line_too_long: line is 120 bytes, over --max-line-bytes 50/);
});

test("a log on standard input is printed as it comes, before the input ends", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-parse-"));
  const parser = join(dir, "ui-parser.js");
  writeFileSync(parser, "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }\n");
  const child = spawn(process.execPath, [cli, "parse", "--parser", parser, "--format", "jsonl", "-"], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let waiting = null;
  child.stdout.on("data", (d) => {
    out += d;
    waiting?.();
  });
  /** Resolves once `n` entries are out. */
  const printed = (n) =>
    new Promise((resolve) => {
      waiting = () => {
        if (out.split("\n").filter(Boolean).length < n) return;
        waiting = null;
        resolve();
      };
      waiting();
    });
  // Entries print once a later one exists (a delta could still grow the last): two lines in,
  // the first is out while standard input stays open.
  child.stdin.write("first\nsecond\n");
  await printed(1);
  assert.equal(JSON.parse(out.split("\n")[0]).text, "first");
  child.stdin.end("third\n");
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0);
  assert.deepEqual(out.trim().split("\n").map((l) => JSON.parse(l).text), ["first", "second", "third"]);
});

test("a reader that leaves early (`| head`) ends the command quietly", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-parse-"));
  const parser = join(dir, "ui-parser.js");
  writeFileSync(parser, "export function parseStdoutLine(line, ts) { return [{ kind: 'assistant', ts, text: line }]; }\n");
  const log = join(dir, "run.log");
  writeFileSync(log, Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n"));
  const r = spawnSync("bash", ["-c", `set -o pipefail; "${process.execPath}" "${cli}" parse --parser "${parser}" --format jsonl -q "${log}" | head -n 2`], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split("\n").length, 2);
  assert.equal(r.stderr, "");
});
