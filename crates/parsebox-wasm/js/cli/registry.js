// The command's registry: the package's ParserRegistry with the command line's limits, its
// parser's load awaited, and a load error said in one line.
import { ParseboxOptionsError } from "../index.js";
import { registryDefaults } from "../parsebox_wasm.js";
import { CommandError, EXIT_USAGE } from "./errors.js";

/** Each limit flag and the registry option it sets. */
const FLAGS = {
  lineBudgetMs: "--line-budget-ms",
  initBudgetMs: "--init-budget-ms",
  maxSourceBytes: "--max-source-bytes",
  maxLineBytes: "--max-line-bytes",
  hardDeadlineMs: "--hang-timeout-ms",
};

/**
 * The registry options the command line asks for: the page's defaults, its limits, and
 * `--hang-timeout-ms` as the core's hard deadline (a line stuck in one native step is ended
 * there, at least the line budget). No loader: the parser is registered from its file. The
 * package must be initialised (the defaults are the core's).
 * @param {import("./args.js").SharedArgs} args
 */
export function registryOptions(args) {
  const o = { loadSource: null, host: "worker", ...JSON.parse(registryDefaults()) };
  for (const key of ["lineBudgetMs", "initBudgetMs", "maxSourceBytes", "maxLineBytes"]) if (args[key] !== undefined) o[key] = args[key];
  o.hardDeadlineMs = Math.max(args.hangTimeoutMs, o.lineBudgetMs);
  return o;
}

/**
 * The command's registries, held for as long as the process lives. A registry is reached from
 * its driver and engines only weakly (so a page that drops one has it collected), and a command
 * that awaits its parser's load holds it only from its own suspended frame, which the
 * registry's listener holds in turn: unheld, the garbage collector took the registry during a
 * long start, its status change went nowhere, and Node exited mid-command (code 13).
 * @type {unknown[]}
 */
const held = [];

/** A registry with `options`; an option the core refuses is a usage error naming its flag. */
export function openRegistry(Registry, options) {
  try {
    const registry = new Registry(options);
    held.push(registry);
    return registry;
  } catch (e) {
    if (!(e instanceof ParseboxOptionsError)) throw e;
    let message = e.message;
    for (const [key, flag] of Object.entries(FLAGS)) message = message.replaceAll(key, flag);
    throw new CommandError(message, EXIT_USAGE);
  }
}

/** Resolves with `type`'s status once it is no longer loading. */
export function waitForLoad(registry, type) {
  return new Promise((resolve) => {
    const settled = () => registry.status(type).state !== "loading";
    if (settled()) return resolve(registry.status(type));
    const off = registry.onChange((t, status, lines) => {
      if (t !== type || lines !== null || !settled()) return;
      off();
      resolve(registry.status(type));
    });
  });
}

/** One line for a load error: `code: message`, then where, unless the message says it. */
export function describeLoadError(e) {
  let s = `${e.code}: ${e.message}`;
  if (e.line != null && e.column != null && !e.message.includes(`${e.line}:${e.column}`)) s += ` (at ${e.line}:${e.column})`;
  return s;
}
