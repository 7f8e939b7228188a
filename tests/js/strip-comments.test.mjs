// The package build's comment stripper (crates/parsebox-wasm/strip-comments.mjs): it removes
// comments only, never code that looks like one.
import { test } from "node:test";
import assert from "node:assert/strict";

import { strip } from "../../crates/parsebox-wasm/strip-comments.mjs";

test("comments go, with the lines they stood alone on", () => {
  const src = ["// header", "/**", " * doc", " */", "export const a = 1; // trailing", "  /* inline */ const b = 2;", "", "const c = 3;", ""].join("\n");
  assert.equal(strip(src), ["export const a = 1;", " const b = 2;", "", "const c = 3;", ""].join("\n"));
});

test("strings, template literals and regex literals that look like comments stay", () => {
  const src = [
    'const url = "http://x"; const s = \'/* no */\';',
    "const t = `// kept ${a /* gone */ + `/* kept */`} // kept`;",
    "const r = /\\/\\/ kept [/*]/g.test(x) ? 1 / 2 : 3; // gone",
    "return x / y / z; // gone",
    "import(/* @vite-ignore */ name); /*! licence */",
  ].join("\n");
  assert.equal(
    strip(src),
    [
      'const url = "http://x"; const s = \'/* no */\';',
      "const t = `// kept ${a + `/* kept */`} // kept`;",
      "const r = /\\/\\/ kept [/*]/g.test(x) ? 1 / 2 : 3;",
      "return x / y / z;",
      "import(/* @vite-ignore */ name); /*! licence */",
    ].join("\n"),
  );
});
