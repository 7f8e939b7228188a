// What a page downloads before parsebox can show its first (generic) entry, and what it
// downloads after: the core module and the JS modules `index.js` imports (followed statically)
// before; the engine module after (`init()` resolves with the core alone). Sizes raw, gzip -9
// and brotli -11, each file compressed on its own, as a server sends them. A benchmark, not a
// test (issue 14's target: ≤ 200 KB brotli before the first entry).
//
//   node tests/bench/first-bytes.mjs [PKG_DIR]      (default: pkg/)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dir = process.argv[2] ?? new URL("../../pkg/", import.meta.url).pathname;

/** The package's JS files that `entry` reaches through static relative imports. */
function imported(entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = readFileSync(join(dir, entry), "utf8");
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"\.\/([^"]+)"/gms)) imported(m[1], seen);
  return seen;
}

function sizes(file) {
  const bytes = readFileSync(join(dir, file));
  const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
  return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotli.length };
}

const kb = (n) => (n / 1024).toFixed(1);
const before = [...imported("index.js"), "parsebox_wasm_bg.wasm"].map(sizes);
const after = ["parsebox_engine.wasm"].map(sizes);
const sum = (rows, k) => rows.reduce((a, r) => a + r[k], 0);
console.log("| downloaded | files | raw KB | gzip KB | brotli KB |");
console.log("|---|---|---|---|---|");
for (const [what, rows] of [["before the first entry", before], ["after it, in the background", after]]) {
  console.log(`| ${what} | ${rows.map((r) => r.file).join(", ")} | ${kb(sum(rows, "raw"))} | ${kb(sum(rows, "gzip"))} | ${kb(sum(rows, "brotli"))} |`);
}
