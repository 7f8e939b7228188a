// The command line of `parsebox parse`: its flags, their defaults, and what each value may be.
// What this file does not take (help, version, a flag it does not know, a value it cannot
// read) it leaves to the Rust command's parser, which says so as it always has: `null`.

/**
 * @typedef {object} SharedArgs
 * @property {number} hangTimeoutMs
 * @property {number} [lineBudgetMs]
 * @property {number} [initBudgetMs]
 * @property {number} [maxSourceBytes]
 * @property {number} [maxLineBytes]
 * @property {"auto" | "always" | "never"} color
 *
 * @typedef {SharedArgs & {
 *   parser: string,
 *   log: string | null,
 *   format: "pretty" | "jsonl" | "timeline",
 *   ndjson: boolean,
 *   redactHomePaths: boolean,
 *   quiet: boolean,
 * }} ParseArgs
 */

/** A whole number from 1 up, as its flag takes it; NaN otherwise. */
const whole = (text) => (/^[0-9]+$/.test(text) && Number(text) >= 1 && Number.isSafeInteger(Number(text)) ? Number(text) : NaN);
/** A number of milliseconds as a budget flag takes it (the core checks its range); NaN otherwise. */
const float = (text) => (/^[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : NaN);
const oneOf = (...values) => (text) => (values.includes(text) ? text : NaN);

/** The flags that take a value: the key each sets and how its value is read. */
const VALUED = {
  "--parser": ["parser", (t) => t],
  "--format": ["format", oneOf("pretty", "jsonl", "timeline")],
  "--hang-timeout-ms": ["hangTimeoutMs", whole],
  "--line-budget-ms": ["lineBudgetMs", float],
  "--init-budget-ms": ["initBudgetMs", float],
  "--max-source-bytes": ["maxSourceBytes", whole],
  "--max-line-bytes": ["maxLineBytes", whole],
  "--color": ["color", oneOf("auto", "always", "never")],
};

/** The switches: the key each turns on. */
const SWITCHES = { "--ndjson": "ndjson", "--redact-home-paths": "redactHomePaths", "--quiet": "quiet", "-q": "quiet" };

/**
 * `parse`'s arguments (after the subcommand), or null for the Rust command's parser to answer.
 * @param {string[]} argv
 * @returns {ParseArgs | null}
 */
export function parseArgs(argv) {
  /** @type {Record<string, unknown>} */
  const a = { log: null, format: "pretty", ndjson: false, redactHomePaths: false, quiet: false, hangTimeoutMs: 10_000, color: "auto" };
  const seen = new Set();
  let positional = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (positional || arg === "-" || !arg.startsWith("-")) {
      if (a.log !== null) return null;
      a.log = arg;
      continue;
    }
    if (arg === "--") {
      positional = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (seen.has(flag)) return null; // clap refuses a flag given twice
    seen.add(flag);
    if (flag in SWITCHES && flag === arg) a[SWITCHES[flag]] = true;
    else if (flag in VALUED) {
      const text = flag === arg ? argv[++i] : arg.slice(eq + 1);
      if (text === undefined) return null;
      const [key, read] = VALUED[flag];
      const value = read(text);
      if (Number.isNaN(value)) return null;
      a[key] = value;
    } else return null;
  }
  if (typeof a.parser !== "string") return null;
  return /** @type {ParseArgs} */ (a);
}

/** `check`'s flags that take a value, and the limits among them this file reads. */
const CHECK_VALUED = {
  "--package": null,
  "--log": null,
  "--max-examples": null,
  "--color": null,
  "--hang-timeout-ms": ["hangTimeoutMs", whole],
  "--line-budget-ms": ["lineBudgetMs", float],
  "--init-budget-ms": ["initBudgetMs", float],
  "--max-source-bytes": ["maxSourceBytes", whole],
  "--max-line-bytes": ["maxLineBytes", whole],
};

/**
 * `check`'s parser file and limits (after the subcommand), or null when this file cannot tell
 * them for sure: the Rust command reads `check`'s arguments, this is only for starting the
 * parser first.
 * @param {string[]} argv
 * @returns {(SharedArgs & { parser: string }) | null}
 */
export function checkLimits(argv) {
  /** @type {Record<string, unknown>} */
  const a = { hangTimeoutMs: 10_000, color: "auto" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("-")) {
      if (a.parser !== undefined) return null;
      a.parser = arg;
      continue;
    }
    if (arg === "--json" || arg === "--strict") continue;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!(flag in CHECK_VALUED)) return null;
    const text = flag === arg ? argv[++i] : arg.slice(eq + 1);
    if (text === undefined) return null;
    const limit = CHECK_VALUED[flag];
    if (limit === null) continue;
    const value = limit[1](text);
    if (Number.isNaN(value)) return null;
    a[limit[0]] = value;
  }
  return typeof a.parser === "string" ? /** @type {SharedArgs & { parser: string }} */ (a) : null;
}
