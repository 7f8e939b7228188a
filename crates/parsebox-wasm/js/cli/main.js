// The `parsebox` command in Node, on the package's own two modules: engines in Node threads
// (node-worker.js) as the page has them in Workers, so a command's line gets what the page
// gives it. `parse` runs here. `check` (and help, version and usage errors) is still the Rust
// command built for WASI, which cli.js runs; its parser is started here first, as the native
// `check` starts it on the live core: a module whose evaluation never ends is ended at the
// core's start deadline here, and the WASI command is told so (PARSEBOX_CLI_ENDED_AT_START)
// rather than loading it in a thread where nothing could end it.
import { readFileSync } from "node:fs";

import { NodeWorker } from "./node-worker.js";
import { checkLimits, parseArgs } from "./args.js";
import { CommandError, EXIT_INTERNAL } from "./errors.js";

/** Set for the WASI `check`: the parser's engine ended while starting, as this sentence says. */
export const ENDED_AT_START = "PARSEBOX_CLI_ENDED_AT_START";

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

/**
 * Runs the command for `argv` (the arguments after `parsebox`); resolves to the exit code, or
 * to null when the Rust command is to answer.
 * @param {string[]} argv
 * @returns {Promise<number | null>}
 */
export async function main(argv) {
  if (argv[0] === "check") {
    await startCheckedParser(argv.slice(1));
    return null;
  }
  if (argv[0] !== "parse") return null;
  const args = parseArgs(argv.slice(1));
  if (args === null) return null;
  await openPackage();
  const { runParse } = await import("./parse.js");
  try {
    return await runParse(args);
  } catch (e) {
    if (e instanceof CommandError) {
      process.stderr.write(`parsebox: error: ${e.message}\n`);
      return e.code;
    }
    process.stderr.write(`parsebox: internal error (a bug in parsebox, please report it): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_INTERNAL;
  }
}

/**
 * Starts `check`'s parser on the package's registry, its size limit lifted (as for the load
 * check); when its engine ended while starting (the start deadline, or a death), sets
 * ENDED_AT_START for the Rust command. Anything unclear (arguments, an unreadable file) is left
 * to the Rust command, which says it.
 */
async function startCheckedParser(argv) {
  const limits = checkLimits(argv);
  if (limits === null) return;
  const { ParserRegistry } = await openPackage();
  const { readCapped } = await import("./lines.js");
  const { describeLoadError, openRegistry, registryOptions, waitForLoad } = await import("./registry.js");
  const options = registryOptions(limits);
  let source;
  try {
    source = readCapped(limits.parser, options.maxSourceBytes * 16, "a parser", "").toString("utf8");
  } catch {
    return;
  }
  let registry;
  try {
    registry = openRegistry(ParserRegistry, { ...options, maxSourceBytes: Math.max(options.maxSourceBytes, Buffer.byteLength(source)) });
    registry.registerSource("parser", source);
    const status = await waitForLoad(registry, "parser");
    if (status.state === "failed" && status.error?.code === "engine_fault") process.env[ENDED_AT_START] = describeLoadError(status.error);
  } catch {
    // The Rust command checks everything again, and says what is wrong.
  } finally {
    registry?.dispose();
    NodeWorker.terminateAll();
  }
}
