#!/usr/bin/env bash
# The differential corpus and the fuzzer's fixed slice again, with two CPU hogs running (issue 54):
# budgets count the engine's work, so every line, the compatibility corpus's line at 95 % of
# the default line budget among them, must get the answer it gets on an idle machine, which is
# Node's. Run by tests/run.sh after the idle runs; alone: `bash tests/busy.sh` (needs pkg/).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
export TZ=UTC

hogs=()
for _ in 1 2; do
  node -e 'for (;;) {}' &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT

# The sandbox natively: every corpus parser against Node, and the near-budget line's share.
# --workspace, as tests/run.sh builds the tests: `-p parsebox-sandbox` alone unifies other
# features and compiled boa and its dependencies again (11 of a cold run's minutes with hogs).
cargo test --workspace --locked --test differential --test budgets
# The engine module (what a Worker and an inline host run) under the default line budget, and
# the fuzzer's corpus cases and fixed-seed slice through the package, inline and in a Worker.
node --test --test-name-pattern='real parsers|^corpus |fixed seed' tests/js/engine.test.mjs tests/js/fuzz.test.mjs
