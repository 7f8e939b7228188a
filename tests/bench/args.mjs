// The bench scripts' command line: `--name value` options, and the package they measure.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The value after `--name` on the command line, or `dflt`. */
export const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** `--pkg DIR`, resolved; the repository's `pkg/` by default. */
export const packageDir = () => resolve(arg("pkg", join(dirname(fileURLToPath(import.meta.url)), "../../pkg")));
