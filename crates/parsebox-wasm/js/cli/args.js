// The command line as this side reads it: `parse`'s and `check`'s flags and their defaults,
// with one reader for both. What it does
// not take (help, version, a flag it does not know, a value it cannot read) it leaves to the
// Rust command's parser, which says so as it always has: `null`.

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
 *
 * @typedef {SharedArgs & {
 *   parser: string, package: string | null, log: string | null,
 *   json: boolean, strict: boolean, maxExamples: number,
 * }} CheckArgs
 */

/** A whole number from 1 up, as its flag takes it; NaN otherwise. */
const whole = (text) => (/^[0-9]+$/.test(text) && Number(text) >= 1 && Number.isSafeInteger(Number(text)) ? Number(text) : NaN);
/** A number of milliseconds as a budget flag takes it (the core checks its range); NaN otherwise. */
const float = (text) => (/^[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : NaN);
const oneOf = (...values) => (text) => (values.includes(text) ? text : NaN);

/** The limits and colour flags both commands take: the key each sets and how its value is read. */
const SHARED = {
  "--hang-timeout-ms": ["hangTimeoutMs", whole],
  "--line-budget-ms": ["lineBudgetMs", float],
  "--init-budget-ms": ["initBudgetMs", float],
  "--max-source-bytes": ["maxSourceBytes", whole],
  "--max-line-bytes": ["maxLineBytes", whole],
  "--color": ["color", oneOf("auto", "always", "never")],
};

/** What both commands default to. */
const SHARED_DEFAULTS = { hangTimeoutMs: 10_000, color: "auto" };

/** `parse`'s flags that take a value. */
const PARSE_VALUED = {
  "--parser": ["parser", (t) => t],
  "--format": ["format", oneOf("pretty", "jsonl", "timeline")],
  ...SHARED,
};

/** `parse`'s switches: the key each turns on. */
const PARSE_SWITCHES = { "--ndjson": "ndjson", "--redact-home-paths": "redactHomePaths", "--quiet": "quiet", "-q": "quiet" };

/** `check`'s flags that take a value (a count of examples may be 0). */
const CHECK_VALUED = {
  "--package": ["package", (t) => t],
  "--log": ["log", (t) => t],
  "--max-examples": ["maxExamples", (t) => (/^[0-9]+$/.test(t) ? Number(t) : NaN)],
  ...SHARED,
};

/** `check`'s switches. */
const CHECK_SWITCHES = { "--json": "json", "--strict": "strict" };

/**
 * Reads `argv` as clap would for one subcommand: `valued` flags (`--flag value` or
 * `--flag=value`), `switches`, and one positional argument set as `positional` (`-` is one; after
 * `--` every argument is). Null for anything else: an unknown flag, a flag given twice, a value
 * that does not read, a second positional argument.
 * @returns {Record<string, unknown> | null}
 */
function readArgs(argv, valued, switches, positional, defaults) {
  /** @type {Record<string, unknown>} */
  const a = { ...defaults };
  const seen = new Set();
  let onlyPositional = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositional || arg === "-" || !arg.startsWith("-")) {
      if (a[positional] !== undefined && a[positional] !== null) return null;
      a[positional] = arg;
      continue;
    }
    if (arg === "--") {
      onlyPositional = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (seen.has(flag)) return null; // clap refuses a flag given twice
    seen.add(flag);
    if (flag in switches && flag === arg) a[switches[flag]] = true;
    else if (flag in valued) {
      const text = flag === arg ? argv[++i] : arg.slice(eq + 1);
      if (text === undefined) return null;
      const [key, read] = valued[flag];
      const value = read(text);
      if (Number.isNaN(value)) return null;
      a[key] = value;
    } else return null;
  }
  return a;
}

/**
 * `parse`'s arguments (after the subcommand), or null for the Rust command's parser to answer.
 * @param {string[]} argv
 * @returns {ParseArgs | null}
 */
export function parseArgs(argv) {
  const defaults = { ...SHARED_DEFAULTS, log: null, format: "pretty", ndjson: false, redactHomePaths: false, quiet: false };
  const a = readArgs(argv, PARSE_VALUED, PARSE_SWITCHES, "log", defaults);
  return a !== null && typeof a.parser === "string" ? /** @type {ParseArgs} */ (a) : null;
}

/**
 * `check`'s arguments (after the subcommand), or null for the Rust command's parser to answer.
 * @param {string[]} argv
 * @returns {CheckArgs | null}
 */
export function checkArgs(argv) {
  const defaults = { ...SHARED_DEFAULTS, package: null, log: null, json: false, strict: false, maxExamples: 5 };
  const a = readArgs(argv, CHECK_VALUED, CHECK_SWITCHES, "parser", defaults);
  return a !== null && typeof a.parser === "string" ? /** @type {CheckArgs} */ (a) : null;
}
