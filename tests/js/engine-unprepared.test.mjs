// A module given as the engine that is not parsebox_engine.wasm as build.sh builds it (no
// `parsebox_initial_pages` section, which says how much memory an instance starts with): a
// clear ParseboxInitError, from initSync at once, and from engineReady() and in each sandboxed
// parser's status after init(). (Its own process: the modules are set once per process.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import init, { engineReady, initSync, ParseboxInitError, ParserRegistry } from "../../pkg/index.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
// The smallest valid wasm module: magic and version, no sections.
const EMPTY_MODULE = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const PARSER = `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line }]; }`;

test("an engine module without its initial-pages section is refused with a clear error", async () => {
  assert.throws(() => initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: EMPTY_MODULE }), (e) => e instanceof ParseboxInitError && /parsebox_initial_pages/.test(e.message));
  await init(pkg("parsebox_wasm_bg.wasm"), EMPTY_MODULE);
  await assert.rejects(engineReady(), (e) => e instanceof ParseboxInitError && /parsebox_initial_pages/.test(e.message));
  const registry = new ParserRegistry({ loadSource: null, host: "inline" });
  const status = registry.registerSource("t", PARSER);
  assert.equal(status.state, "failed");
  assert.equal(status.error.code, "engine_fault");
  assert.match(status.error.message, /parsebox_initial_pages/);
  assert.deepEqual(registry.parseLine("t", "x", "t"), [{ kind: "stdout", ts: "t", text: "x" }], "the generic parser answers");
  registry.dispose();
});
