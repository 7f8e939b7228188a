// The native `parsebox` command the command-line tests compare the npm command with, built
// every time, so a test never compares with a binary older than the source. It is built as the
// host's tests build it (`cargo test --workspace`, whose features the workspace's dev-dependencies
// unify): `cargo build -p parsebox-cli` would pick other features and compile boa and its
// dependencies again. After tests/run.sh's host stage, which these tests run after, it is a no-op.
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

// The target dir cargo builds in, as tests/run.sh sets it.
const targetDir = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/parsebox/target");

/** Builds the native command (dev profile) if its source changed; returns its path, or throws cargo's error. */
export function buildNativeCommand() {
  const built = spawnSync("cargo", ["test", "--workspace", "--no-run", "-q", "--locked"], { cwd: root, encoding: "utf8", env: { ...process.env, CARGO_TARGET_DIR: targetDir } });
  if (built.status !== 0) throw new Error(`the Rust command could not be built: ${built.error?.message ?? built.stderr}`);
  return join(targetDir, "debug/parsebox");
}
