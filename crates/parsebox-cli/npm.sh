#!/usr/bin/env bash
# Builds `npx parsebox`: this crate's command for WASI (wasm32-wasip1, wasi-cli profile, 64 MiB
# of stack: .cargo/config.toml), its debug names stripped, as OUT/parsebox_cli.wasm (default
# pkg/). The package's cli.js runs it with Node's node:wasi, so the npm command and the Rust one
# are the same code: every check, the line rule, the output and the exit codes.
#
#   bash crates/parsebox-cli/npm.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
out=${1:-pkg}
target="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
CARGO_TARGET_DIR="$target" cargo build -p parsebox-cli --target wasm32-wasip1 --profile wasi-cli --locked
# Every loop calls env.parsebox_poll now and then, as in the engine module: cli.js gives up a
# call the sandbox cannot interrupt there (src/given_up.rs says how). A host build.
CARGO_TARGET_DIR="$target" env -u RUSTFLAGS cargo run -q -p parsebox-preempt --locked -- \
  "$target/wasm32-wasip1/wasi-cli/parsebox.wasm" "$target/parsebox_cli.polled.wasm"
mkdir -p "$out"
# Stripping only: wasm-opt -O3 saved 5 % more and took minutes (LLVM has optimised it already).
tests/node_modules/.bin/wasm-opt --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --strip-debug --strip-producers \
  "$target/parsebox_cli.polled.wasm" -o "$out/parsebox_cli.wasm"
ls -l "$out/parsebox_cli.wasm"
