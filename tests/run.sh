#!/usr/bin/env bash
# Every test of the project, from a fresh clone: installs what is missing, then checks format
# and lints, and runs every test suite. Exit code 0 only when everything passes.
#
# Stages that do not need each other's output run side by side (issue 56: a cold run on a
# machine whose cores are busy with other work should take under 30 minutes): the host's
# tests, the package and the binding's wasm tests build together (cargo builds of different
# profiles or target dirs do not wait for each other's lock); once the package is there, the
# Node tests and the type and tarball checks run beside what is left of them, and the
# command-line tests once the host's tests have built the native command they compare with.
# The browsers run one at a time (below, why). Each stage's output is kept in a file and printed
# whole when the stage ends, so the log reads stage by stage. The first stage that fails ends
# the run: its output is printed and the other stages are stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh

# Build output outside the clone, so repeated runs (and CI on the same machine) reuse it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
export TZ=UTC

# Each line says how long the run has taken so far (set-up included), so a slow stage shows.
say() { printf '\033[1m==> %s\033[0m (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
# Clippy lints the workspace's crates as they are built, for every target and build below (the
# host's tests, examples and binaries; the core and its tests for wasm32; the engine module),
# and fails the build on any warning: `cargo clippy` would check each crate
# a second time, boa three times over (13 of a cold run's minutes). Dependencies are built by
# rustc as before. tests/lint-while-building.sh says how.
source tests/lint-while-building.sh

# Stages: `stage KEY TITLE FUNCTION [ARG...]` starts one in the background, its output in
# $logs/KEY.log; `finish KEY...` waits for each, prints its output and how long it took, and on a
# failure exits 1, which stops every stage still running. A stage that passed leaves
# $logs/KEY.passed, which `after KEY... -- FUNCTION [ARG...]` (a stage's body) waits for. Cargo
# commands of different profiles or target dirs build side by side; two of one profile in one
# target dir take turns on its lock.
logs=$(mktemp -d)
export logs
declare -A pids titles started
trap 'for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
stage() {
  local key=$1 title=$2
  shift 2
  say "start: $title"
  titles[$key]=$title
  started[$key]=$SECONDS
  # In a session of its own (setsid), so stopping the stage stops what it started: browsers,
  # Workers, cargo. The stage functions below are exported to it.
  setsid bash -c 'set -euo pipefail; key=$1; shift; "$@"; touch "$logs/$key.passed"' stage "$key" "$@" >"$logs/$key.log" 2>&1 &
  pids[$key]=$!
}
finish() {
  local key status took
  for key; do
    status=0
    wait "${pids[$key]}" || status=$?
    unset "pids[$key]"
    took=$((SECONDS - started[$key]))
    printf '\033[1m----- %s -----\033[0m\n' "${titles[$key]}"
    cat "$logs/$key.log"
    if [ "$status" -ne 0 ]; then
      say "FAILED: ${titles[$key]} (exit $status, after $((took / 60))m$((took % 60))s)"
      exit 1
    fi
    say "passed: ${titles[$key]} (in $((took / 60))m$((took % 60))s)"
  done
}

# The stages' bodies.
#
# A cold run keeps both cores busy from end to end, so what it waits for is the order the work
# gets the CPU in: the package, then the Node tests, then the browsers, one after another, are
# its longest path; the host's tests and the binding's wasm tests only have to be done before
# busy.sh. So those two are *compiled* at a lower priority (`nice`), taking the CPU the path
# leaves, and a browser test never competes with rustc on equal terms; their tests *run* at
# the usual priority, since some (the command's --hang-timeout-ms) read the clock.
cargo_test() {
  nice -n 10 cargo test "$@" --no-run
  cargo test "$@"
}
host_tests() {
  cargo_test --workspace --locked
}
wasm_tests() {
  # The binding's tests compiled for wasm32 and run inside wasm (Node, then headless Chromium),
  # in a target dir of their own: in the shared one they would take turns with the host's
  # tests on the dev profile's lock, which `cargo test` holds until its tests end.
  export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/wasm-tests" CHROMEDRIVER=/usr/bin/chromedriver
  cargo_test -p parsebox-wasm --target wasm32-unknown-unknown --locked
}
package() {
  bash crates/parsebox-wasm/package.sh >/dev/null
}
checks() {
  node tests/corpus/check-corpus.mjs
}
package_checks() {
  echo "== type test (tsc)"
  tests/node_modules/.bin/tsc -p tests/types/tsconfig.json
  echo "== no 'any' in the published types"
  # Declarations only: doc comments may say "any".
  if grep -nwH 'any' pkg/*.d.ts | grep -vE '^[^:]+:[0-9]+:\s*(\*|//|/\*)'; then
    echo "the published .d.ts must not use 'any'" >&2
    exit 1
  fi
  echo "== the packed tarball: publint, are-the-types-wrong (the package is ESM only)"
  packed=$(mktemp -d)
  (cd pkg && npm pack --silent --pack-destination "$packed" >/dev/null)
  tests/node_modules/.bin/publint run --strict "$packed"/parsebox-*.tgz
  tests/node_modules/.bin/attw --profile esm-only "$packed"/parsebox-*.tgz
  rm -rf "$packed"
  echo "== API reference (typedoc, from the published .d.ts)"
  bash tests/api-docs/build.sh "$CARGO_TARGET_DIR/api-docs" >/dev/null
}
after() {
  while [ "$1" != "--" ]; do
    until [ -e "$logs/$1.passed" ]; do sleep 1; done
    shift
  done
  shift
  "$@"
}
node_tests() {
  # Two files at a time: several wait on child processes and Workers most of their time.
  local files=()
  for f in tests/js/*.test.mjs; do
    case $f in tests/js/cli-*) ;; *) files+=("$f") ;; esac
  done
  node --test --test-concurrency=2 "${files[@]}"
}
cli_tests() {
  # The command's tests (tests/js/cli-*) compare the npm command with the native one, which
  # each builds with cargo: run before the host's tests end, they would wait for the dev
  # profile's lock (`cargo test` holds it until its tests end), two files at a time, and keep
  # the other Node tests waiting behind them.
  node --test --test-concurrency=2 tests/js/cli-*.test.mjs
}
# Chromium (README example, Vite consumer, ...), Debian's Firefox ESR over WebDriver BiDi
# (issue 42), WebKitGTK (Debian's MiniBrowser over WebDriver classic, tests/browser/webkit.mjs,
# each page behind a proxy of its own for routes and early scripts): every browser test, as in
# the other two engines.
browser() {
  PARSEBOX_BROWSER=$1 node --test tests/browser/
}
export -f cargo_test host_tests wasm_tests package checks package_checks after node_tests cli_tests browser

say "cargo fmt --check"
cargo fmt --all --check

stage host "host tests (cargo test; clippy lints as it builds)" host_tests
stage pkg "build pkg/" package
stage wasm "binding tests inside wasm (Node, then headless Chromium)" wasm_tests
stage corpus "compatibility corpus (Node)" checks
stage cli "command-line tests (Node; npm command beside the native one)" after host pkg -- cli_tests
finish pkg
stage node "package tests (Node)" node_tests
stage types "type test, no 'any' in the published types, the packed tarball, API reference" package_checks
finish corpus types wasm node
# The browsers one at a time, beside what is left of the host and command-line tests. Side by
# side with each other, the Node tests and two outside hogs, a Worker went unscheduled past its
# 200 ms hard deadline (worker.test.mjs, a line at 95 % of its budget, and a Worker ended at
# work): the page's deadline is a clock, and a starved Worker moves no work it could count.
# Chromium, the shortest, goes last, when the command-line tests are likely over.
stage webkit "browser tests in WebKitGTK" browser webkit
finish webkit
finish host
# busy.sh runs two CPU hogs of its own, and the host's differential tests (the dev profile).
stage busy "the differential corpus and the fuzzer's slice with two CPU hogs (the same answers as idle)" bash tests/busy.sh
finish busy
stage firefox "browser tests in headless Firefox ESR" browser firefox
finish firefox
stage chromium "browser tests (README example, Vite consumer) in headless Chromium" browser chromium
finish chromium cli

say "every test passed"
