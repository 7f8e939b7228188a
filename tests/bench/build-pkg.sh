#!/usr/bin/env bash
# Builds the npm package like crates/parsebox-wasm/package.sh, but into a directory of your
# choice, with a Cargo profile and wasm-opt flags of your choice for the core module: the
# build-profile experiments of BENCHMARKS.md "Side by side (issue 7)". pkg/ is never touched.
#
#   bash tests/bench/build-pkg.sh OUT [PROFILE] [WASM_OPT_FLAGS]
#   PARSEBOX_BENCH_PKG=OUT bash tests/bench/run.sh
#
# PROFILE defaults to bench-wasm (= wasm-release, own output dir); WASM_OPT_FLAGS to "-O3".
# KEEP_NAMES=1 keeps the name section of both modules (profiling: tests/bench/profile-line.mjs);
# NO_CARGO=1 reuses the last cargo build of PROFILE.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
export PATH="$HOME/.cargo/bin:$PATH"
out=$1
profile=${2:-bench-wasm}
opt=${3:--O3}
js=crates/parsebox-wasm/js

[ -n "${NO_CARGO:-}" ] || cargo build -p parsebox-wasm --target wasm32-unknown-unknown --profile "$profile" --locked
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/parsebox_wasm.wasm"
mkdir -p "$out"
find "$out" -mindepth 1 -delete
wasm-bindgen --target web --out-dir "$out" --out-name parsebox_wasm "$wasm"
node crates/parsebox-wasm/renewable-glue.mjs "$out/parsebox_wasm.js"  # as package.sh does
names=--strip-debug
[ -z "${KEEP_NAMES:-}" ] || names=-g
# shellcheck disable=SC2086
tests/node_modules/.bin/wasm-opt $opt --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-multivalue --enable-mutable-globals $names --strip-producers \
  "$out/parsebox_wasm_bg.wasm" -o "$out/parsebox_wasm_bg.wasm"
# The engine module (always the wasm-release profile: the profile experiments are the core's).
bash crates/parsebox-engine-wasm/build.sh "$out" >&2
cp "$js"/*.js "$js/index.d.ts" "$js/package.json" "$js/LICENSE" "$out/"
ls -l "$out" >&2
