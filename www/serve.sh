#!/usr/bin/env bash
# The demo: installs what is missing, builds pkg/ when it is missing or older than the sources it
# is built from, then serves the repository root on 127.0.0.1:${PORT:-8080} and prints the
# viewer's URL (/www/). A restart with nothing changed skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh

# The crates the wasm is built from: parsebox-wasm and its path dependencies, transitively.
wasm_crates() {
  cargo metadata --no-deps --format-version 1 --offline 2>/dev/null | node -e '
    const m = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const byName = new Map(m.packages.map((p) => [p.name, p]));
    const seen = new Set();
    const stack = ["parsebox-wasm"];
    while (stack.length) {
      const p = byName.get(stack.pop());
      if (!p || seen.has(p.name)) continue;
      seen.add(p.name);
      for (const d of p.dependencies) if (d.path && d.kind !== "dev") stack.push(d.name);
    }
    for (const n of seen) console.log(require("path").relative(process.cwd(), require("path").dirname(byName.get(n).manifest_path)));
  ' || echo crates/parsebox-wasm
}

# A source newer than pkg/index.js means pkg/ is stale (tests and examples do not count).
stale_source() {
  [ -f pkg/index.js ] || { echo "pkg/index.js is missing"; return; }
  local dirs=()
  for c in $(wasm_crates); do dirs+=("$c/src" "$c/Cargo.toml"); done
  local newer
  newer="$(find "${dirs[@]}" crates/parsebox-wasm/js crates/parsebox-wasm/package.sh Cargo.toml Cargo.lock \
    -type f -newer pkg/index.js -print -quit 2>/dev/null || true)"
  [ -z "$newer" ] || echo "$newer changed since the last build"
}

changed="$(stale_source)"
if [ -n "$changed" ]; then
  printf '\033[1m==> building pkg/: %s\033[0m\n' "$changed"
  bash crates/parsebox-wasm/package.sh >/dev/null
fi

exec node www/server.mjs
