#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently: safe to run on a fresh
# machine and cheap to run again. Called by tests/run.sh and www/serve.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# Rust: the toolchain comes with the machine (rustup); add what we use on top of it.
if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust with rustup first (https://rustup.rs)" >&2
  exit 1
fi
have_target() { rustup target list --installed 2>/dev/null | grep -qx "$1"; }
have_target wasm32-unknown-unknown || { say "rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }
for c in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$c" || { say "rustup component add $c"; rustup component add "$c"; }
done

# Node runs the differential tests (the same parser natively and in parsebox).
if ! command -v node >/dev/null; then
  say "apt-get install nodejs npm"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi
