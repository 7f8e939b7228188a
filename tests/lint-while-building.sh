# Sourced by tests/run.sh: every cargo command after it lints the workspace's own crates with
# clippy (`-D warnings`, the lints of Cargo.toml's [workspace.lints]) as it builds them.
#
# Cargo runs a RUSTC_WORKSPACE_WRAPPER in place of rustc for the workspace's members only; with
# clippy-driver there, each member is linted and then compiled as rustc would (the same
# artefacts), while dependencies go to rustc untouched. CLIPPY_ARGS is how `cargo clippy` hands
# clippy-driver its arguments (separated by __CLIPPY_HACKERY__). A lint fails the build that
# met it, with clippy's message, as `cargo clippy -- -D warnings` fails.
#
# The wrapper is part of each artefact's fingerprint: a build without it (a plain `cargo test`,
# package.sh alone) rebuilds the workspace's crates once, not their dependencies.
driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
if [ -z "$driver" ]; then
  echo "clippy-driver not found: rustup component add clippy" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER="$driver"
export CLIPPY_ARGS="-Dwarnings__CLIPPY_HACKERY__"
unset driver
