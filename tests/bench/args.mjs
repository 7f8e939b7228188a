// The bench scripts' command line: `--name value` options, and the package they measure.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The value after `--name` on the command line, or `dflt`. */
export const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** `--pkg DIR`, resolved; the repository's `pkg/` by default. */
export const packageDir = () => resolve(arg("pkg", join(dirname(fileURLToPath(import.meta.url)), "../../pkg")));

/** The package built in `dir`, imported and initialised with both its modules (each build's own module graph). */
export async function loadPackage(dir) {
  const pb = await import(pathToFileURL(join(dir, "index.js")).href);
  pb.initSync({ module: readFileSync(join(dir, "parsebox_wasm_bg.wasm")), engine: readFileSync(join(dir, "parsebox_engine.wasm")) });
  return pb;
}
