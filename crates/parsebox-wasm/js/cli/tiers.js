// How V8 compiles the engine module for the command: the tiering budget `cli.js` sets before
// anything compiles wasm, unless the person running it chose how V8 compiles wasm on node's command line.

/**
 * The work a wasm function does (V8's "tiering budget", roughly bytes of code run) before V8
 * compiles it again with its optimising compiler: 100,000,000, V8's default (1,800,000) × 55.
 * The engine's interpreter functions are large; at V8's default a short log spends more CPU
 * compiling them than running them (a 34-line `check`: 1.5 s of CPU, 0.7 s with optimising
 * off). At this budget only the functions a long or heavy log keeps running are optimised, and
 * those still are (a char-scanning parser over 10,000 lines, where optimising pays, is as fast
 * as at V8's default). `tests/bench/cli-tiers.mjs` measures the three side by side.
 */
export const TIERING_BUDGET = 100_000_000;

/** V8 flags that choose how wasm is compiled: one of these given by the user wins over ours. */
const THEIRS = /^--(no-)?(liftoff|liftoff-only|wasm-tier-up|wasm-dynamic-tiering|wasm-tiering-budget|wasm-lazy-compilation)(=|$)/;

/**
 * The V8 flags the command sets before it compiles the engine module (`v8.setFlagsFromString`,
 * each in turn): the tiering budget, or none when node's own command line (`execArgv`) already
 * says how to compile wasm (V8 reads `_` in a flag's name as `-`; node refuses these flags in
 * `NODE_OPTIONS`, so the command line is the only place they can come from).
 * @param {readonly string[]} execArgv
 * @returns {string[]}
 */
export function tieringFlags(execArgv) {
  const theirs = execArgv.some((flag) => THEIRS.test(flag.replace(/^--[^=]*/, (name) => name.replaceAll("_", "-"))));
  return theirs ? [] : [`--wasm-tiering-budget=${TIERING_BUDGET}`];
}
