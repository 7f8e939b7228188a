// The `parsebox` command in Node, on the package's own two modules: engines in Node threads
// (node-worker.js) as the page has them in Workers, so a command's line gets what the page
// gives it. The command line is read as the native command reads it (args.js).
import { readFileSync } from "node:fs";

import { NodeWorker } from "./node-worker.js";
import { readCommandLine } from "./args.js";
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

/** The module and function that run each command. */
const COMMANDS = new Map([
  ["parse", ["./parse.js", "runParse"]],
  ["check", ["./check.js", "runCheck"]],
]);

/**
 * Runs the command for `argv` (the arguments after `parsebox`); resolves to the exit code.
 * Help, version and usage errors are said here, before the package is loaded.
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
export async function main(argv) {
  const line = readCommandLine(argv);
  if ("said" in line) {
    (line.said.to === "stdout" ? process.stdout : process.stderr).write(line.said.text);
    return line.said.code;
  }
  const [file, name] = /** @type {[string, string]} */ (COMMANDS.get(line.command));
  const args = line.args;
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
