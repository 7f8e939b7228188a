// The `parsebox` command in Node, on the package's own two modules: engines in Node threads
// (node-worker.js) as the page has them in Workers, so a command's line gets what the page
// gives it. `parse` and `check` run here; help, version and usage errors are still the Rust
// command built for WASI, which cli.js runs.
import { readFileSync } from "node:fs";

import { NodeWorker } from "./node-worker.js";
import { checkArgs, parseArgs } from "./args.js";
import { CommandError, EXIT_INTERNAL } from "./errors.js";

/** The package, initialised, with engines in Node threads. */
async function openPackage() {
  // Before the package looks: where Workers exist, engines run in them.
  globalThis.Worker ??= NodeWorker;
  const pkg = await import("../index.js");
  pkg.initSync({
    module: readFileSync(new URL("../parsebox_wasm_bg.wasm", import.meta.url)),
    engine: readFileSync(new URL("../parsebox_engine.wasm", import.meta.url)),
  });
  return pkg;
}

/** The commands run here: how each reads its arguments, and the module and function that run it. */
const COMMANDS = new Map([
  ["parse", [parseArgs, "./parse.js", "runParse"]],
  ["check", [checkArgs, "./check.js", "runCheck"]],
]);

/**
 * Runs the command for `argv` (the arguments after `parsebox`); resolves to the exit code, or
 * to null when the Rust command is to answer.
 * @param {string[]} argv
 * @returns {Promise<number | null>}
 */
export async function main(argv) {
  const command = COMMANDS.get(argv[0]);
  if (command === undefined) return null;
  const [read, file, name] = command;
  const args = read(argv.slice(1));
  if (args === null) return null;
  await openPackage();
  const run = (await import(file))[name];
  try {
    return await run(args);
  } catch (e) {
    if (e instanceof CommandError) {
      process.stderr.write(`parsebox: error: ${e.message}\n`);
      return e.code;
    }
    process.stderr.write(`parsebox: internal error (a bug in parsebox, please report it): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_INTERNAL;
  }
}
