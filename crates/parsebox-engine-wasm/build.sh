#!/usr/bin/env bash
# Builds the engine module: parsebox-engine-wasm for wasm32-unknown-unknown (wasm-release
# profile, no wasm-bindgen), with a poll call in every loop (parsebox-preempt), optimised with
# binaryen's wasm-opt -O3 and pre-initialised with a prepared realm (snapshot.mjs), as
# OUT/parsebox_engine.wasm.
#
#   bash crates/parsebox-engine-wasm/build.sh [OUT]      (OUT defaults to pkg)
#   bash crates/parsebox-engine-wasm/build.sh --clippy   (lint the wasm32-only code, same flags)
#   KEEP_NAMES=1 bash crates/parsebox-engine-wasm/build.sh OUT   (function names kept, for profiles)
#
# Memory layout (the built module's initial memory is the prepared instance's, larger than
# INITIAL_MEMORY; snapshot.mjs records it in a custom section engine.js reads):
# - the memory is imported (`env.memory`): the page gives each instance its own
#   `WebAssembly.Memory({ initial, maximum })`, the maximum being the instance's cap; an
#   allocation past it fails, Rust's allocation-error handler aborts, and the instance traps;
# - 8 MiB of stack first (boa needs deep stacks; as .cargo/config.toml gives the other
#   module: RUSTFLAGS replaces that file's wasm32 rustflags, so the flag is repeated here),
#   then the static data, then the heap;
# - the import declares a 4 GiB maximum, so any page-chosen maximum up to 4 GiB links.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
out=${1:-pkg}
# A target dir of its own: different RUSTFLAGS than the wasm-bindgen build, which would
# otherwise rebuild every crate each time the two builds alternate.
target="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}/engine"
# 9 MiB: the 8 MiB stack and the static data (~0.9 MiB), nothing more. Rust's allocator on
# wasm32 takes its heap from memory.grow, above the initial memory, so room given here for the
# heap would never be used. wasm-ld fails the build if the static data outgrows it: then raise
# it by a page or more.
INITIAL_MEMORY=9437184
export RUSTFLAGS="-C link-arg=-zstack-size=8388608 -C link-arg=--import-memory \
-C link-arg=--initial-memory=$INITIAL_MEMORY -C link-arg=--max-memory=4294967296 \
--cfg getrandom_backend=\"custom\""

if [ "$out" = "--clippy" ]; then
  CARGO_TARGET_DIR="$target" exec cargo clippy -p parsebox-engine-wasm --target wasm32-unknown-unknown \
    --profile wasm-release --locked -- -D warnings
fi

# Every loop calls out to the page now and then (crates/parsebox-preempt says why: WebKit stops
# a terminated Worker only where its wasm calls JavaScript). The tool is a host build, so
# without the wasm RUSTFLAGS above, in the dev profile (dependencies at opt-level 2; a release
# build would add a minute of LTO), in this build's target dir: in the shared one it would wait
# for the host's `cargo test`, which tests/run.sh runs beside this build and which holds the dev
# profile's lock until its tests end (in a cold run on a busy machine the package waited for it
# to the end). It compiles beside the engine (the two builds lock different profile dirs): after
# it, it was a minute or more of a cold package build's longest path, whose fat LTO and wasm-opt
# each use one core.
env -u RUSTFLAGS CARGO_TARGET_DIR="$target" cargo build -q -p parsebox-preempt --locked &
preempt=$!
trap 'kill "$preempt" 2>/dev/null || true' EXIT
CARGO_TARGET_DIR="$target" cargo build -p parsebox-engine-wasm --target wasm32-unknown-unknown \
  --profile wasm-release --locked
wasm="$target/wasm32-unknown-unknown/wasm-release/parsebox_engine_wasm.wasm"
wait "$preempt"
env -u RUSTFLAGS CARGO_TARGET_DIR="$target" cargo run -q -p parsebox-preempt --locked -- "$wasm" "$target/parsebox_engine.polled.wasm"

mkdir -p "$out"
# KEEP_NAMES=1 keeps the function names (profiles name boa's functions: tests/bench/profile-line.mjs).
names=--strip-debug
[ -z "${KEEP_NAMES:-}" ] || names=-g
# binaryen from npm (tests/package.json), never Debian's older wasm-opt.
wasm_opt=tests/node_modules/.bin/wasm-opt
opt_flags=(-O3 --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-multivalue --enable-mutable-globals "$names" --strip-producers)
# wasm-opt takes about a minute on this module, and gives the same output for the same input,
# flags and version: its output is kept by those, so a build whose engine did not change (every
# test run after the first) skips it. The last few outputs are kept, the rest removed.
key=$( { sha256sum < "$target/parsebox_engine.polled.wasm"; echo "${opt_flags[*]}"; "$wasm_opt" --version; } | sha256sum | cut -c1-32)
cache="$target/wasm-opt-cache"
mkdir -p "$cache"
if [ ! -f "$cache/$key.wasm" ]; then
  "$wasm_opt" "${opt_flags[@]}" "$target/parsebox_engine.polled.wasm" -o "$cache/$key.wasm.tmp"
  mv "$cache/$key.wasm.tmp" "$cache/$key.wasm"
fi
touch "$cache/$key.wasm"
ls -t "$cache"/*.wasm | tail -n +5 | xargs -r rm -f
# Pre-initialised: every instance starts with a realm made (snapshot.mjs says how and why).
node crates/parsebox-engine-wasm/snapshot.mjs "$cache/$key.wasm" "$out/parsebox_engine.wasm"
ls -l "$out/parsebox_engine.wasm"
