#!/usr/bin/env bash
# Every test of the project, from a fresh clone: installs what is missing, then checks format
# and lints, and runs every test suite. Exit code 0 only when everything passes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh

# Build output outside the clone, so repeated runs (and CI on the same machine) reuse it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
export TZ=UTC

# Each step says how long the run has taken so far (set-up included), so a slow step shows.
say() { printf '\033[1m==> %s\033[0m (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
# Clippy lints the workspace's crates as they are built, for every target and build below (the
# host's tests, examples and binaries; the core and its tests for wasm32; the engine module;
# the WASI argument reader), and fails the build on any warning: `cargo clippy` would check each crate
# a second time, boa three times over (13 of a cold run's minutes). Dependencies are built by
# rustc as before. tests/lint-while-building.sh says how.
source tests/lint-while-building.sh

say "cargo fmt --check"
cargo fmt --all --check
say "cargo test (host; clippy lints as it builds)"
cargo test --workspace --locked

say "compatibility corpus (Node)"
node tests/corpus/check-corpus.mjs

say "build pkg/"
bash crates/parsebox-wasm/package.sh >/dev/null

say "package tests (Node)"
node --test tests/js/

say "the differential corpus and the fuzzer's slice with two CPU hogs (the same answers as idle)"
bash tests/busy.sh

say "type test (tsc)"
tests/node_modules/.bin/tsc -p tests/types/tsconfig.json

say "no 'any' in the published types"
# Declarations only: doc comments may say "any".
if grep -nwH 'any' pkg/*.d.ts | grep -vE '^[^:]+:[0-9]+:\s*(\*|//|/\*)'; then
  echo "the published .d.ts must not use 'any'" >&2
  exit 1
fi

say "the packed tarball: publint, are-the-types-wrong (the package is ESM only)"
packed=$(mktemp -d)
(cd pkg && npm pack --silent --pack-destination "$packed" >/dev/null)
tests/node_modules/.bin/publint run --strict "$packed"/parsebox-*.tgz
tests/node_modules/.bin/attw --profile esm-only "$packed"/parsebox-*.tgz
rm -rf "$packed"

say "API reference (typedoc, from the published .d.ts)"
bash tests/api-docs/build.sh "$CARGO_TARGET_DIR/api-docs" >/dev/null

say "binding tests inside wasm (Node, then headless Chromium)"
CHROMEDRIVER=/usr/bin/chromedriver cargo test -p parsebox-wasm --target wasm32-unknown-unknown --locked

say "browser tests (README example, Vite consumer) in headless Chromium"
node --test tests/browser/

# The same tests in Debian's Firefox ESR, over WebDriver BiDi (issue 42).
say "browser tests in headless Firefox ESR"
PARSEBOX_BROWSER=firefox node --test tests/browser/

# WebKitGTK (Debian's MiniBrowser over WebDriver classic, tests/browser/webkit.mjs, each page
# behind a proxy of its own for routes and early scripts): every browser test, as in the other
# two engines.
say "browser tests in WebKitGTK"
PARSEBOX_BROWSER=webkit node --test tests/browser/

say "every test passed"
