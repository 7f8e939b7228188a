// An engine module that cannot be loaded: sandboxed parsers fail with a load error that says
// why, built-in parsers and the generic parser carry on. (Its own process: see engine-later.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import init, { engineReady, ParserRegistry } from "../../pkg/index.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
const PARSER = `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line }]; }`;

test("an engine module that cannot be loaded fails sandboxed parsers with the reason; built-ins go on", async () => {
  let fail;
  const engineBytes = new Promise((_, reject) => (fail = reject));
  await init(pkg("parsebox_wasm_bg.wasm"), engineBytes);
  const registry = new ParserRegistry({ loadSource: null, host: "inline" });
  assert.equal(registry.registerSource("waiting", PARSER).state, "loading");
  registry.registerBuiltin("builtin", { parseStdoutLine: (line, ts) => [{ kind: "system", ts, text: line }] });

  fail(new Error("GET /pkg/parsebox_engine.wasm: 404 Not Found"));
  await assert.rejects(engineReady(), /404 Not Found/);
  await registry.idle();
  const status = registry.status("waiting");
  assert.equal(status.state, "failed");
  assert.equal(status.error.code, "engine_fault");
  assert.match(status.error.message, /engine module could not be loaded: GET \/pkg\/parsebox_engine.wasm: 404 Not Found/);
  assert.deepEqual(registry.parseLine("waiting", "x", "t"), [{ kind: "stdout", ts: "t", text: "x" }]);
  assert.deepEqual(registry.parseLine("builtin", "x", "t"), [{ kind: "system", ts: "t", text: "x" }]);
  // A registration after the failure fails the same way, at once.
  const later = registry.registerSource("later", PARSER);
  assert.equal(later.state, "failed");
  assert.equal(later.error.code, "engine_fault");
  registry.dispose();
});
