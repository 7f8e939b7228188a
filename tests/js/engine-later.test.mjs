// The page's first entries wait for the core alone: `init()` resolves before the engine module
// is compiled, lines get the generic entry meanwhile, and parsers start by themselves when the
// engine arrives. (One process per test file: the modules are loaded once per process.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import init, { engineReady, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
const PARSER = `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line.toUpperCase() }]; }`;

test("init() resolves with the core alone; a parser registered before the engine arrives starts when it does", async () => {
  let release;
  const engineBytes = new Promise((resolve) => (release = resolve));
  await init(pkg("parsebox_wasm_bg.wasm"), engineBytes);
  let engineSettled = false;
  const waiting = engineReady().then(() => (engineSettled = true));

  const registry = new ParserRegistry({ loadSource: null, host: "inline" });
  const changes = [];
  registry.onChange((type, status) => changes.push(status.state));
  assert.equal(registry.registerSource("shout", PARSER).state, "loading");
  registry.registerBuiltin("builtin", { parseStdoutLine: (line, ts) => [{ kind: "system", ts, text: `builtin ${line}` }] });
  // Generic entries at once, a built-in answers, nothing is lost while the engine downloads.
  assert.deepEqual(registry.parseLine("shout", "hello", "t"), [{ kind: "stdout", ts: "t", text: "hello" }]);
  assert.deepEqual(registry.parseLine("builtin", "x", "t"), [{ kind: "system", ts: "t", text: "builtin x" }]);
  const builder = new TranscriptBuilder(registry, "shout");
  builder.push({ ts: "t1", stream: "stdout", chunk: "one\ntwo\n" });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(engineSettled, false);
  assert.equal(registry.status("shout").state, "loading");

  release(pkg("parsebox_engine.wasm"));
  await waiting;
  await registry.idle();
  assert.equal(registry.status("shout").state, "ready");
  assert.ok(changes.includes("ready"), "onChange says the parser is ready");
  assert.deepEqual(registry.parseLine("shout", "hello", "t"), [{ kind: "assistant", ts: "t", text: "HELLO" }]);
  assert.deepEqual(builder.rebuild().map((e) => e.text), ["ONE", "TWO"]);
  // A registry made now starts its parsers at once.
  const later = new ParserRegistry({ loadSource: null, host: "inline" });
  assert.equal(later.registerSource("shout", PARSER).state, "ready");
  later.dispose();
  builder.dispose();
  registry.dispose();
});
