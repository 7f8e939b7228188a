// The native `parsebox` command the command-line tests compare the npm command with: built
// with cargo, every time, so a test never compares with a binary older than the source (a
// no-op once tests/run.sh's host stage, which these tests run after, has built it).
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

// The target dir cargo builds in, as tests/run.sh sets it.
const targetDir = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/parsebox/target");

/** Builds the native command (dev profile) if its source changed; returns its path, or throws cargo's error. */
export function buildNativeCommand() {
  const built = spawnSync("cargo", ["build", "-q", "-p", "parsebox-cli", "--locked"], { cwd: root, encoding: "utf8", env: { ...process.env, CARGO_TARGET_DIR: targetDir } });
  if (built.status !== 0) throw new Error(`the Rust command could not be built: ${built.error?.message ?? built.stderr}`);
  return join(targetDir, "debug/parsebox");
}
