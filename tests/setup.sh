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

# Debian packages: Chromium and its driver, Firefox ESR and WebKitGTK, for the browser tests.
# They download while wasm-bindgen-cli compiles (below): on a fresh machine the two are most of
# the set-up's time, one waiting on the network and the other on the CPU.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v firefox-esr >/dev/null || missing+=(firefox-esr)
# WebKit: WebKitGTK's WebDriver (it brings the MiniBrowser) and a virtual display for it.
command -v WebKitWebDriver >/dev/null || missing+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || missing+=(xvfb)
apt_pid=
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]} (in the background)"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}") &
  apt_pid=$!
fi

# wasm-bindgen-cli must be exactly the wasm-bindgen version in Cargo.lock.
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ -n "$want" ] && [ "$want" != "$have" ]; then
  say "cargo install wasm-bindgen-cli --version $want"
  cargo install wasm-bindgen-cli --version "$want"
fi

if [ -n "$apt_pid" ]; then
  wait "$apt_pid" || { echo "apt-get install ${missing[*]} failed" >&2; exit 1; }
fi

# npm tools: binaryen (wasm-opt) for the package build, typescript for the type test,
# playwright-core to drive the browsers, publint and @arethetypeswrong/cli for the packed
# tarball, typedoc for the API reference.
if [ ! -d tests/node_modules ] || [ tests/package-lock.json -nt tests/node_modules/.package-lock.json ]; then
  say "npm ci (tests/)"
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
fi
