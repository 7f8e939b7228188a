#!/usr/bin/env bash
# Builds the npm command's argument reader: this crate for WASI (wasm32-wasip1, wasi-cli
# profile), which is clap and nothing else, as OUT/parsebox_cli.wasm (default pkg/). `npx
# parsebox` runs `check` and `parse` on the package's own modules in Node (js/cli/); the
# package's cli.js runs this build only for what those do not take (help, version, usage
# errors), so they read exactly as the native command's.
#
#   bash crates/parsebox-cli/npm.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
out=${1:-pkg}
target="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
CARGO_TARGET_DIR="$target" cargo build -p parsebox-cli --target wasm32-wasip1 --profile wasi-cli --locked
mkdir -p "$out"
tests/node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --strip-debug --strip-producers \
  "$target/wasm32-wasip1/wasi-cli/parsebox.wasm" -o "$out/parsebox_cli.wasm"
ls -l "$out/parsebox_cli.wasm"
