#!/usr/bin/env bash
# Side-by-side benchmark (issue 7): parsebox vs quickjs-emscripten vs unsandboxed eval, in Node
# and in headless Chromium, in one run. A benchmark command, not a test.
#
#   bash tests/bench/run.sh [--trials N] [--baseline-trials N] [--quick] [--only node|chromium]
#
# PARSEBOX_BENCH_PKG=dir measures another build of the package (default: pkg/, built when
# missing). Whatever is measured is first copied to a private temp dir, so a rebuild of pkg/
# during the run cannot change what is measured. Results JSON: $PARSEBOX_BENCH_OUT or the temp dir.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -d tests/node_modules/playwright-core ]; then
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -f tests/bench/node_modules/.package-lock.json ] || [ tests/bench/package-lock.json -nt tests/bench/node_modules/.package-lock.json ]; then
  (cd tests/bench && npm ci --no-audit --no-fund --loglevel=error)
fi

src="${PARSEBOX_BENCH_PKG:-pkg}"
if [ ! -f "$src/parsebox_wasm_bg.wasm" ]; then
  [ "$src" = pkg ] || { echo "run.sh: no parsebox_wasm_bg.wasm in $src" >&2; exit 1; }
  bash crates/parsebox-wasm/package.sh
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/parsebox-bench.XXXXXX")
cp -r "$src/." "$tmp/pkg/" 2>/dev/null || { mkdir -p "$tmp/pkg" && cp -r "$src/." "$tmp/pkg/"; }
echo "run.sh: measuring a copy of $src (wasm $(stat -c '%y' "$src/parsebox_wasm_bg.wasm" | cut -d. -f1)) in $tmp/pkg" >&2

out="${PARSEBOX_BENCH_OUT:-$tmp/results.json}"
node --expose-gc tests/bench/node.mjs --pkg "$tmp/pkg" --json "$out" "$@"
echo "run.sh: results JSON in $out" >&2
