#!/usr/bin/env bash
# Builds the npm package into pkg/: the core module (wasm-bindgen; release profile tuned for
# speed), the engine module (crates/parsebox-engine-wasm/build.sh), wasm-opt, and the
# hand-written JS (js/*.js, js/index.d.ts, js/paperclip.d.ts, js/react.d.ts, js/wasm-asset.d.ts), the JS without
# its comments (strip-comments.mjs).
# `npm pack pkg/` then gives the tarball. Tools come from tests/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
export PATH="$HOME/.cargo/bin:$PATH"
out=pkg
js=crates/parsebox-wasm/js

find "$out" -mindepth 1 ! -name .gitkeep -delete 2>/dev/null || true
mkdir -p "$out"
# The engine module builds beside the core (pkg/parsebox_engine.wasm): in a target dir of its
# own (build.sh), so neither build waits for the other's lock, and its single-threaded steps
# (fat LTO, wasm-opt) leave a core free for the other.
bash crates/parsebox-engine-wasm/build.sh "$out" &
engine=$!
trap 'kill "$engine" 2>/dev/null || true' EXIT

cargo build -p parsebox-wasm --target wasm32-unknown-unknown --profile wasm-release --locked
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/parsebox_wasm.wasm"
wasm-bindgen --target web --out-dir "$out" --out-name parsebox_wasm "$wasm"
# A fresh core after a trap: the glue lets go of its instance (renewable-glue.mjs says how).
node crates/parsebox-wasm/renewable-glue.mjs "$out/parsebox_wasm.js"

# Speed first (-O3), then drop the name section and producers (~1 MB of names). binaryen comes
# from npm (tests/package.json): Debian's wasm-opt 108 rewrites the externref table that
# wasm-bindgen's glue initialises, and the module then fails to instantiate.
wasm_opt=tests/node_modules/.bin/wasm-opt
"$wasm_opt" -O3 --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-multivalue --enable-mutable-globals --strip-debug --strip-producers \
  "$out/parsebox_wasm_bg.wasm" -o "$out/parsebox_wasm_bg.wasm"

mkdir -p "$out/cli"
cp "$js"/cli/*.js "$out/cli/"  # the `parsebox` command's JS (cli.js starts it)
cp "$js"/*.js "$js/index.d.ts" "$js/paperclip.d.ts" "$js/react.d.ts" "$js/wasm-asset.d.ts" "$js/package.json" "$js/LICENSE" "$out/"
# The shipped JS without its comments (the API's docs are in the .d.ts files): ~9 KB of brotli
# less before the first entry. The script checks that nothing but comments changed.
node crates/parsebox-wasm/strip-comments.mjs "$out"/*.js "$out"/cli/*.js
cp crates/parsebox-wasm/README.md "$out/README.md"
wait "$engine"  # its exit status: a failed engine build fails the package
ls -l "$out"
