#!/usr/bin/env bash
# The demo. Until the browser viewer lands (www/ issue), this shows the closest real thing:
# the shared hermes-style sample run turned into a transcript by the incremental builder.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/parsebox/target}"
log="$(mktemp)"
if [ -f ../shared/bench/gen-log.js ]; then node ../shared/bench/gen-log.js 40 > "$log"; else printf 'hello\nworld\n' > "$log"; fi
cargo run --quiet --release -p parsebox-transcript --example transcript -- "$log"
cargo run --quiet --release -p parsebox-transcript --example replay_bench -- 100000
