// A lone surrogate a parser returns reaches the page as it is (issue 54, SPEC §2): what the
// page gets equals `JSON.parse(JSON.stringify(value))` in Node, which keeps it. Before, it became
// U+FFFD in a text, a tool input and a key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder } from "../../pkg/index.js";

const pkg = (p) => readFileSync(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url)));
initSync({ module: pkg("parsebox_wasm_bg.wasm"), engine: pkg("parsebox_engine.wasm") });

// Cuts every surrogate pair of the line in half, in a text, a tool input's value and key, and
// an extra field; and keeps a noncharacter of the text's own (U+FDD0).
const PARSER = `export function parseStdoutLine(line, ts) {
  const half = line.slice(0, line.length - 1);
  const low = line.slice(line.length - 1);
  return [
    { kind: "assistant", ts, text: "a" + half + "b\\ufdd0c" + low },
    { kind: "tool_call", ts, name: "t", input: { [half]: low, list: [half, "\\ud800\\udc00", "\\udbff"] }, note: low + half },
  ];
}`;

const expected = (line, ts) => {
  const parse = new Function(`${PARSER.replace("export ", "")}; return parseStdoutLine;`)();
  return JSON.parse(JSON.stringify(parse(line, ts)));
};

for (const host of ["inline"]) {
  test(`lone surrogates in texts, tool inputs, keys and extra fields arrive as Node keeps them (${host})`, async (t) => {
    const registry = new ParserRegistry({ loadSource: null, host });
    t.after(() => registry.dispose());
    registry.registerSource("s", PARSER);
    await registry.idle();
    const lines = ["x🚀", "plain 🧪", "🙂"];
    for (const line of lines) {
      assert.deepEqual(registry.parseLine("s", line, "t"), expected(line, "t"), line);
    }
    const builder = new TranscriptBuilder(registry, "s");
    builder.push({ ts: "t", stream: "stdout", chunk: lines.join("\n") + "\n" });
    assert.deepEqual(builder.entries(), lines.flatMap((l) => expected(l, "t")));
    const item = builder.timeline().find((i) => i.type === "assistant");
    assert.equal(item.content, expected(lines[0], "t")[0].text, "the timeline's copy too");
    assert.ok(builder.entries()[0].text.includes("\ud83d"), "a lone high surrogate");
    builder.dispose();
  });
}
