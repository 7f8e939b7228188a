// The command line, read as the native `parsebox` command's clap reads it: from the
// description of its arguments that clap renders (command-line.js, kept equal to the Rust
// definition by a test of crates/parsebox-cli), the same values, the same help and version
// texts, and the same usage errors in the same words. tests/js/cli-args.test.mjs holds the two
// readers equal over generated command lines.
import { COMMAND_LINE } from "./command-line.js";
import { similarTo } from "./similar.js";

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
 *
 * @typedef {{ id: string, long: string | null, short: string | null, action: "set" | "flag" | "help" | "version",
 *   positional: boolean, required: boolean, valueName: string | null,
 *   value: "path" | "f64" | "unsigned" | "unsigned-from-1" | "enum" | null,
 *   possible: string[] | null, default: string | null }} ArgSpec
 * @typedef {{ name: string, usageName: string | null, version: string, subcommandRequired: boolean,
 *   subcommands: string[], args: ArgSpec[], groups: { id: string, args: string[] }[],
 *   help: { short: string, long: string } }} CommandSpec
 *
 * @typedef {{ to: "stdout" | "stderr", text: string, code: number }} Said
 * @typedef {{ command: "check", args: CheckArgs } | { command: "parse", args: ParseArgs } | { said: Said }} CommandLine
 */

const EXIT_USAGE = 2;
const U64_MAX = 18446744073709551615n;
/** @type {Record<string, CommandSpec>} */
const COMMANDS = COMMAND_LINE;

/** What clap's reader found wrong, or asked for (help, version): said as it says it. */
class Say {
  /** @param {Said} said */
  constructor(said) {
    this.said = said;
  }
}

/**
 * Reads `argv` (the arguments after `parsebox`): the command to run and its arguments, or
 * what to say instead (help, version, a usage error) and the exit code.
 * @param {string[]} argv
 * @returns {CommandLine}
 */
export function readCommandLine(argv) {
  try {
    const [name, matched] = readTop(argv);
    return /** @type {CommandLine} */ ({ command: name, args: argsOf(COMMANDS[name], matched) });
  } catch (e) {
    if (e instanceof Say) return { said: e.said };
    throw e;
  }
}

/** How the command calls an argument: `hang_timeout_ms` is `hangTimeoutMs`. */
const key = (id) => id.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** The command's arguments from what was matched, with clap's defaults; an absent path is null. */
function argsOf(cmd, matched) {
  /** @type {Record<string, unknown>} */
  const args = {};
  for (const arg of cmd.args) {
    if (arg.action === "help" || arg.action === "version") continue;
    if (matched.has(arg.id)) args[key(arg.id)] = matched.get(arg.id);
    else if (arg.default !== null) args[key(arg.id)] = valueOf(arg, arg.default);
    else if (arg.value === "path") args[key(arg.id)] = null;
  }
  return args;
}

/** The value clap's parser gives for an accepted `text`. */
function valueOf(arg, text) {
  switch (arg.action === "flag" ? "flag" : arg.value) {
    case "flag":
      return text === "true";
    case "f64":
      return floatOf(text);
    case "unsigned":
    case "unsigned-from-1":
      return Number(BigInt(text));
    default:
      return text;
  }
}

// --- The command itself: `parsebox [-h|-V] <COMMAND>` ---

function readTop(argv) {
  const top = COMMANDS[""];
  let trailing = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (!trailing) {
      if (top.subcommands.includes(token)) {
        if (token === "help") throw helpOf(argv.slice(i + 1));
        return [token, readSubcommand(COMMANDS[token], argv.slice(i + 1))];
      }
      if (token === "--") {
        trailing = true;
        continue;
      }
      if (isLong(token)) {
        const [name, value] = splitLong(token);
        const arg = top.args.find((a) => a.long === name);
        if (arg === undefined) throw didYouMean(top, name, argv.slice(i + 1), [], trailing);
        if (value !== undefined) throw unneededValue(top, arg, value, [arg.id]);
        throw helpOrVersion(top, arg, true);
      }
      if (isShort(token)) {
        for (const c of [...token.slice(1)]) {
          const arg = top.args.find((a) => a.short === c);
          if (arg === undefined) throw unknownArgument(top, `-${c}`, null, false, usage(top, []));
          throw helpOrVersion(top, arg, false);
        }
      }
    }
    throw notASubcommand(top, token, trailing);
  }
  // No subcommand, and nothing else given: the short help, as an error.
  throw new Say({ to: "stderr", text: top.help.short, code: EXIT_USAGE });
}

/** `parsebox help [COMMAND]...`: the long help of the command named, or an error. */
function helpOf(names) {
  let cmd = COMMANDS[""];
  for (const name of names) {
    if (!cmd.subcommands.includes(name)) {
      return error(cmd, `unrecognized subcommand '${name}'`, { usage: usage(cmd, []) });
    }
    cmd = COMMANDS[name];
  }
  return new Say({ to: "stdout", text: cmd.help.long, code: 0 });
}

/** A token where only a subcommand may be. */
function notASubcommand(cmd, token, trailing) {
  if (trailing && cmd.subcommands.includes(token)) {
    return error(cmd, `unexpected argument '${token}' found`, {
      tips: [`subcommand '${token}' exists; to use it, remove the '--' before it`],
      usage: usage(cmd, []),
    });
  }
  const alike = similarTo(token, cmd.subcommands);
  if (alike.length > 0) {
    return error(cmd, `unrecognized subcommand '${token}'`, { similar: ["subcommand", alike], usage: usage(cmd, []) });
  }
  return error(cmd, `unrecognized subcommand '${token}'`, { usage: usage(cmd, []) });
}

// --- A subcommand's arguments ---

/**
 * Reads a subcommand's arguments as clap's parser does: values wait ("pending") until the next
 * argument that clap knows, a positional argument or the end, and are read (and refused) then.
 * @returns {Map<string, unknown>} each argument given, by id, in the order it was taken
 */
function readSubcommand(cmd, argv) {
  /** @type {Map<string, unknown>} */
  const matched = new Map();
  // What clap's matcher holds, in order: each argument given, and after it each group of clap's
  // (one per flattened struct) it is in the first time. A usage line is made from it.
  /** @type {string[]} */
  const given = [];
  const isGroup = (id) => cmd.groups.some((g) => g.id === id);
  const positionals = cmd.args.filter((a) => a.positional);
  let next = 0; // the next positional argument
  /** @type {{ arg: ArgSpec, values: string[] } | null} */
  let pending = null;
  let trailing = false;

  /** Takes `values` for `arg`; throws clap's error for them. */
  const take = (arg, values, long) => {
    settle();
    if (arg.action === "help" || arg.action === "version") throw helpOrVersion(cmd, arg, long);
    if (arg.action === "set" && values.length === 0) throw emptyValue(cmd, arg);
    if (matched.has(arg.id)) {
      matched.delete(arg.id);
      given.splice(given.indexOf(arg.id), 1);
      throw error(cmd, `the argument '${shown(arg)}' cannot be used multiple times`, { usage: usage(cmd, []) });
    }
    // Taken before its value is read, as clap takes it: a value it refuses still counts as given.
    matched.set(arg.id, undefined);
    given.push(arg.id);
    for (const g of cmd.groups) if (g.args.includes(arg.id) && !given.includes(g.id)) given.push(g.id);
    if (arg.action === "flag") matched.set(arg.id, true);
    else matched.set(arg.id, read(cmd, arg, values[0]));
  };
  /** Takes what is pending, if anything. */
  const settle = () => {
    if (pending === null) return;
    const { arg, values } = pending;
    pending = null;
    take(arg, values, true);
  };
  /** Takes what is pending, if anything, when another error comes first: its own is not said. */
  const settleQuietly = () => {
    try {
      settle();
    } catch (e) {
      if (!(e instanceof Say)) throw e;
    }
  };
  const expecting = () => pending !== null && pending.values.length === 0 && !pending.arg.positional;

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (!trailing) {
      if (token === "--") {
        trailing = true;
        continue;
      }
      if (isLong(token)) {
        const [name, value] = splitLong(token);
        const arg = cmd.args.find((a) => a.long === name && !a.positional);
        if (arg === undefined) {
          settleQuietly();
          throw didYouMean(cmd, name, argv.slice(i + 1), given.filter((id) => !isGroup(id)), trailing);
        }
        if (arg.action === "set") {
          if (value !== undefined) take(arg, [value], true);
          else {
            settle();
            pending = { arg, values: [] };
          }
        } else if (value !== undefined) {
          // Here clap's usage shows the groups given too, but not the required arguments given.
          const used = given.filter((id) => isGroup(id) || !cmd.args.find((a) => a.id === id)?.required);
          settleQuietly();
          throw unneededValue(cmd, arg, value, [...used, arg.id]);
        } else take(arg, [], true);
        continue;
      }
      if (isShort(token)) {
        for (const c of [...token.slice(1)]) {
          const arg = cmd.args.find((a) => a.short === c);
          if (arg === undefined) {
            settleQuietly();
            throw unknownArgument(cmd, `-${c}`, null, positionals.length > 0, usage(cmd, []));
          }
          if (arg.action === "set") throw new Error(`-${c} takes a value, which this reader does not read`);
          take(arg, [], false);
        }
        continue;
      }
      if (expecting()) {
        /** @type {{ arg: ArgSpec, values: string[] }} */ (pending).values.push(token);
        continue;
      }
    }
    const arg = positionals[next];
    if (arg === undefined) {
      settleQuietly();
      throw error(cmd, `unexpected argument '${token}' found`, { usage: usage(cmd, []) });
    }
    settle();
    pending = { arg, values: [token] };
    next++;
  }
  settle();
  const missing = cmd.args.filter((a) => a.required && !matched.has(a.id));
  if (missing.length > 0) {
    const listed = [...missing.filter((a) => !a.positional), ...missing.filter((a) => a.positional)];
    throw error(cmd, `the following required arguments were not provided:${listed.map((a) => `\n  ${shown(a)}`).join("")}`, {
      usage: usage(cmd, [...given.filter((id) => !isGroup(id)), ...missing.map((a) => a.id)]),
    });
  }
  return matched;
}

/** `text` read as `arg`'s value parser reads it, or clap's error for it. */
function read(cmd, arg, text) {
  const invalid = (why) => error(cmd, `invalid value '${text}' for '${shown(arg)}': ${why}`, {});
  switch (arg.value) {
    case "path":
      if (text === "") throw emptyValue(cmd, arg);
      return text;
    case "enum": {
      const possible = /** @type {string[]} */ (arg.possible);
      if (text === "") throw emptyValue(cmd, arg);
      if (possible.includes(text)) return text;
      const alike = similarTo(text, possible).pop();
      throw error(cmd, `invalid value '${text}' for '${shown(arg)}'\n  [possible values: ${possible.join(", ")}]`, {
        similar: alike === undefined ? undefined : ["value", [alike]],
      });
    }
    case "f64": {
      if (text === "") throw invalid("cannot parse float from empty string");
      const value = floatOf(text);
      if (value === undefined) throw invalid("invalid float literal");
      return value;
    }
    case "unsigned":
    case "unsigned-from-1": {
      if (text === "") throw invalid("cannot parse integer from empty string");
      if (!/^\+?[0-9]+$/.test(text)) throw invalid("invalid digit found in string");
      const value = BigInt(text.replace(/^\+/, ""));
      if (value > U64_MAX) throw invalid("number too large to fit in target type");
      if (arg.value === "unsigned-from-1" && value < 1n) throw invalid(`${value} is not in 1..${U64_MAX}`);
      return Number(value);
    }
    default:
      throw new Error(`--${arg.long}: a value this reader does not read`);
  }
}

/** A number as Rust's `f64::from_str` reads it (what clap's parser accepts); undefined otherwise. */
function floatOf(text) {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) {
    const magnitude = special[2].toLowerCase() === "nan" ? NaN : Infinity;
    return special[1] === "-" ? -magnitude : magnitude;
  }
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) return undefined;
  return Number(text.endsWith(".") ? text.slice(0, -1) : text.replace(/\.(?=[eE])/, ""));
}

// --- What clap says ---

const isLong = (token) => token.startsWith("--") && token.length > 2;
const isShort = (token) => token.startsWith("-") && !token.startsWith("--") && token.length > 1;

/** `--name=value` as [name, value]; `--name` as [name, undefined]. */
function splitLong(token) {
  const eq = token.indexOf("=");
  return eq < 0 ? [token.slice(2), undefined] : [token.slice(2, eq), token.slice(eq + 1)];
}

/** An argument as clap shows it: `--log <LOG>`, `--json`, `<PARSER>`, `[LOG]`. */
function shown(arg) {
  if (arg.positional) return arg.required ? `<${arg.valueName}>` : `[${arg.valueName}]`;
  return arg.action === "set" ? `--${arg.long} <${arg.valueName}>` : `--${arg.long}`;
}

/** Help (`-h` short, `--help` long) on stdout, or the version. */
function helpOrVersion(cmd, arg, long) {
  if (arg.action === "version") return new Say({ to: "stdout", text: `${cmd.version}\n`, code: 0 });
  return new Say({ to: "stdout", text: long ? cmd.help.long : cmd.help.short, code: 0 });
}

function emptyValue(cmd, arg) {
  const possible = arg.possible ? `\n  [possible values: ${arg.possible.join(", ")}]` : "";
  return error(cmd, `a value is required for '${shown(arg)}' but none was supplied${possible}`, {});
}

function unneededValue(cmd, arg, value, used) {
  return error(cmd, `unexpected value '${value}' for '${shown(arg)}' found; no more were expected`, { usage: usage(cmd, used) });
}

/** clap's "unexpected argument" error, with its tip. */
function unknownArgument(cmd, token, similar, trailingTip, usageLine) {
  return error(cmd, `unexpected argument '${token}' found`, {
    similar: similar ?? undefined,
    tips: trailingTip ? [`to pass '${token}' as a value, use '-- ${token}'`] : [],
    usage: usageLine,
  });
}

/** The `--` names a command takes, in clap's order. */
const longsOf = (cmd) => cmd.args.filter((a) => a.long !== null && !a.positional).map((a) => /** @type {string} */ (a.long));

/**
 * An unknown `--name`: a similar long of this command (which the usage then shows as given),
 * else a subcommand named later on the line that has one.
 */
function didYouMean(cmd, name, rest, used, trailing) {
  const alike = similarTo(name, longsOf(cmd)).pop();
  if (alike !== undefined) {
    const arg = /** @type {ArgSpec} */ (cmd.args.find((a) => a.long === alike));
    const usedNow = used.includes(arg.id) ? used : [...used, arg.id];
    return unknownArgument(cmd, `--${name}`, ["argument", [`--${alike}`]], false, usage(cmd, usedNow));
  }
  let best = null;
  for (const sub of cmd.subcommands) {
    const there = rest.indexOf(sub);
    if (there < 0 || !COMMANDS[sub]) continue;
    const candidate = similarTo(name, longsOf(COMMANDS[sub])).pop();
    if (candidate !== undefined && (best === null || there < best.there)) best = { there, tip: `'${sub} --${candidate}' exists` };
  }
  const positional = cmd.args.some((a) => a.positional);
  return error(cmd, `unexpected argument '--${name}' found`, {
    tips: [...(best === null && positional && !trailing ? [`to pass '--${name}' as a value, use '-- --${name}'`] : []), ...(best ? [best.tip] : [])],
    usage: usage(cmd, used),
  });
}

/**
 * The usage line clap shows with an error: with nothing given, the command's whole usage;
 * else the required arguments and those given (`used`, ids of arguments and clap's groups):
 * options, then groups (`<--color <WHEN>>`, their arguments not again), then every positional
 * argument (`<LOG>` when given, `[LOG]` otherwise).
 */
function usage(cmd, used) {
  // The whole usage is the help's.
  if (used.length === 0) return /** @type {RegExpMatchArray} */ (cmd.help.long.match(/^Usage: .*$/m))[0];
  const byId = (id) => /** @type {ArgSpec} */ (cmd.args.find((a) => a.id === id));
  const all = [...cmd.args.filter((a) => a.required).map((a) => a.id), ...used];
  const groups = [...new Set(all)].flatMap((id) => cmd.groups.filter((g) => g.id === id));
  const inGroups = new Set(groups.flatMap((g) => g.args));
  const options = [...new Set(all)].filter((id) => !inGroups.has(id) && cmd.args.some((a) => a.id === id && !a.positional));
  const parts = [cmd.usageName ?? cmd.name];
  for (const id of options) parts.push(shown(byId(id)));
  for (const g of groups) if (g.args.length > 0) parts.push(`<${g.args.map((id) => shown(byId(id))).join("|")}>`);
  for (const arg of cmd.args.filter((a) => a.positional)) {
    parts.push(all.includes(arg.id) ? `<${arg.valueName}>` : `[${arg.valueName}]`);
  }
  if (cmd.subcommandRequired) parts.push("<COMMAND>");
  return `Usage: ${parts.join(" ")}`;
}

/**
 * A usage error as clap writes it: the message, the similar names it found (`similar`: what
 * kind, and the names), its tips, the usage line, and where to read more (a command with a
 * help flag). Exit code 2.
 * @param {CommandSpec} cmd
 * @param {string} message
 * @param {{ similar?: [string, string[]], tips?: string[], usage?: string }} parts
 */
function error(cmd, message, { similar, tips = [], usage: usageLine }) {
  let text = `error: ${message}`;
  if (similar) {
    const [kind, names] = similar;
    const quoted = names.map((n) => `'${n}'`).join(", ");
    text += names.length === 1 ? `\n\n  tip: a similar ${kind} exists: ${quoted}` : `\n\n  tip: some similar ${kind}s exist: ${quoted}`;
  }
  if (tips.length > 0) {
    if (!similar) text += "\n";
    for (const tip of tips) text += `\n  tip: ${tip}`;
  }
  if (usageLine) text += `\n\n${usageLine}`;
  text += cmd.args.some((a) => a.action === "help") ? "\n\nFor more information, try '--help'.\n" : "\n";
  return new Say({ to: "stderr", text, code: EXIT_USAGE });
}
