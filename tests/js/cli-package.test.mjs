// One host (issue 56): `parsebox parse`, the native command, runs its parser on the live core
// the package runs (crates/parsebox-cli/src/native/hosted), so for every parser of the compatibility
// corpus it prints the transcript the package builds from the same log, and the same lines fall
// back for the same reasons; so does every case of the differential fuzzer's corpus and a slice
// of its generated parsers and logs (tests/fuzz). Any difference is a rule one of them has and
// the other lacks.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNativeCommand } from "./helpers/native-command.mjs";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";
import { readCorpus } from "../fuzz/corpus.mjs";
import { generateCase } from "../fuzz/generate.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const corpus = join(root, "tests/corpus/compat");
let native;
initSync({ module: readFileSync(join(root, "pkg/parsebox_wasm_bg.wasm")), engine: readFileSync(join(root, "pkg/parsebox_engine.wasm")) });

before(() => {
  native = buildNativeCommand();
});

/** Longer than any line of the logs here, for both (each cuts a longer line its own way). */
const MAX_LINE_BYTES = 4 << 20;

/** The command's timestamp of the `i`th line it hands the parser (crates/parsebox-cli/src/native/lines.rs). */
const lineTs = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

/** What the command printed: its entries (JSON lines) and its fallbacks by code (its summary). */
function command(dir) {
  const r = spawnSync(native, ["parse", "--parser", "ui-parser.js", "--format", "jsonl", "--max-line-bytes", String(MAX_LINE_BYTES), "sample.log"], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const entries = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const fallbacks = {};
  const summary = /fell back to the generic parser \(([^)]*)\)/.exec(r.stderr);
  for (const part of summary ? summary[1].split(", ") : []) {
    const [code, n] = part.split(" ×");
    fallbacks[code] = Number(n);
  }
  return { entries, fallbacks };
}

/** What the package builds from the same log, fed as the command feeds it: a chunk a line. */
async function pkg(dir) {
  const registry = new ParserRegistry({ loadSource: async () => null, maxLineBytes: MAX_LINE_BYTES });
  try {
    registry.registerSource("corpus", readFileSync(join(dir, "ui-parser.js"), "utf8"));
    while (registry.status("corpus").state === "loading") await new Promise((r) => setTimeout(r, 5));
    if (registry.status("corpus").state !== "ready") return { failed: registry.status("corpus").error };
    // The command shows a failed line as its raw line (docs/cli.md), one of the package's two styles.
    const builder = new TranscriptBuilder(registry, "corpus", { failedLineEntry: "generic" });
    const text = readFileSync(join(dir, "sample.log"), "utf8");
    const lines = text.split(/(?<=\n)/);
    let fed = 0;
    for (const chunk of lines) {
      builder.push({ ts: lineTs(fed), stream: "stdout", chunk });
      const raw = chunk.replace(/\n$/, "").replace(/\r$/, "");
      if (raw.trim() !== "") fed++;
    }
    builder.finish();
    await registry.idle();
    return { entries: builder.entries(), fallbacks: registry.diagnostics("corpus").fallbacks };
  } finally {
    registry.dispose();
  }
}

test("parsebox parse gives every corpus parser's transcript and fallbacks as the package does", async () => {
  const parsers = readdirSync(corpus).filter((name) => existsSync(join(corpus, name, "ui-parser.js")));
  assert.ok(parsers.length >= 10, parsers.join(", "));
  for (const name of parsers) {
    const dir = join(corpus, name);
    const ours = command(dir);
    const theirs = await pkg(dir);
    assert.deepEqual(ours.entries, theirs.entries, `${name}: entries`);
    assert.deepEqual(ours.fallbacks, theirs.fallbacks, `${name}: fallbacks`);
  }
});

/** Both sides of one parser and log, written to a directory of their own. */
async function compare(name, source, log) {
  const dir = mkdtempSync(join(tmpdir(), "parsebox-cli-package-"));
  try {
    writeFileSync(join(dir, "ui-parser.js"), source);
    writeFileSync(join(dir, "sample.log"), log);
    const theirs = await pkg(dir);
    if (theirs.failed) {
      // A parser the package refuses is refused by the command too, for the same reason.
      const r = spawnSync(native, ["parse", "--parser", "ui-parser.js", "sample.log"], { cwd: dir, encoding: "utf8" });
      assert.equal(r.status, 1, `${name}: the command ran a parser the package refused (${theirs.failed.code})`);
      assert.match(r.stderr, new RegExp(`did not load: ${theirs.failed.code}:`), name);
      return;
    }
    const ours = command(dir);
    assert.deepEqual(ours.entries, theirs.entries, `${name}: entries`);
    assert.deepEqual(ours.fallbacks, theirs.fallbacks, `${name}: fallbacks`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("parsebox parse gives the fuzzer's corpus and generated cases what the package gives", async () => {
  const cases = readCorpus();
  assert.ok(cases.length >= 10, `${cases.length} fuzz corpus cases`);
  for (const c of cases) await compare(`fuzz corpus ${c.name}`, c.source, c.log);
  // Generated parsers and logs from fixed seeds (tests/fuzz/generate.mjs).
  for (let seed = 1; seed <= 25; seed++) {
    const c = generateCase(seed);
    await compare(`generated case seed ${seed} (${c.name})`, c.source, c.log);
  }
});
