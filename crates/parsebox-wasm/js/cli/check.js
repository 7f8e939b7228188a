// `parsebox check`: the conformance report, on the package's own registry with its engines in
// Node threads, so a line gets what a page gives it. The parser is registered with its size
// limit lifted (an oversized file still gets every other check); its status says how it loaded
// (check-module.js). The behaviour checks feed lines through fresh runs of it (run A: the sample
// log or the awkward lines, then reset() and the same lines again; run B: the same lines in a
// fresh run; run C: the awkward lines in their own run) and judge each line's answer as the
// registry settled it: its entries, why it fell back, what validation dropped (check-lines.js).
// A line the core ends at its hard deadline (`--hang-timeout-ms`) stops the checks there.
import { ParserRegistry } from "../index.js";
import { awkwardLines } from "./awkward.js";
import { moduleChecks } from "./check-module.js";
import { packageChecks } from "./check-package.js";
import { PREVIEW_CHARS, determinismCheck, entriesCheck, failuresCheck, resetReplayCheck, skipTheRest, unstoppableCheck } from "./check-lines.js";
import { EXIT_FAILED, EXIT_OK } from "./errors.js";
import { lineTs, readCapped, thousands } from "./lines.js";
import { openRegistry, registryOptions, waitForLoad } from "./registry.js";
import { Painter, preview, useColor } from "./render.js";
import { BEHAVIOUR_CHECKS, check, renderReport, report } from "./report.js";

/** The adapter type the command registers its parser as. */
const TYPE = "parser";
/** The most bytes of a `--log` sample read (`parse` streams a log of any length). */
const MAX_SAMPLE_LOG_BYTES = 64 << 20;
/** The most bytes of a package.json read. */
const MAX_PACKAGE_BYTES = 16 << 20;
/** The most bytes of a parser file read, in times `--max-source-bytes`: past it, its size says all. */
const PARSER_READ_FACTOR = 16;

/**
 * @typedef {import("./args.js").CheckArgs} CheckArgs
 * @typedef {import("./check-lines.js").Line} Line
 * @typedef {import("./check-lines.js").Answer} Answer
 */

/** `bytes` as text (bad UTF-8 becomes U+FFFD), and whether they were valid UTF-8. */
function intoText(bytes) {
  try {
    return [new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), true];
  } catch {
    return [new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), false];
  }
}

/** The fed lines of a sample log (split on `\r?\n`, trimmed, blank ones skipped), labelled by line number. */
function sampleLines(log) {
  /** @type {Line[]} */
  const out = [];
  intoText(log)[0]
    .split("\n")
    .forEach((raw, k) => {
      const text = raw.replace(/\r$/, "").trim();
      if (text !== "") out.push({ label: `line ${k + 1}`, text, ts: lineTs(out.length) });
    });
  return out;
}

/** The awkward lines, labelled, with their timestamps. @returns {Line[]} */
const labelledAwkwardLines = () => awkwardLines().map((a, i) => ({ label: `awkward line "${a.label}"`, text: a.text, ts: lineTs(i) }));

/** A line the core ended at its hard deadline, on its retry too: the checks stop there. */
class Stuck {
  /** @param {string} label */
  constructor(label) {
    this.label = label;
  }
}

/**
 * The failure a line answered at once got (no engine ran it: no parser, a remembered answer):
 * the fallback counter that grew, with the registry's last sentence.
 */
function newFallback(before, after) {
  const code = Object.keys(after.fallbacks).find((c) => (before.fallbacks[c] ?? 0) < after.fallbacks[c]);
  if (code === undefined) return undefined;
  const last = after.lastError ?? "";
  return { code, message: last.startsWith(`${code}: `) ? last.slice(code.length + 2) : last };
}

/** Lines handed to a run before the command waits for their answers (parse.js's piece). */
const LINES_PER_PIECE = 2000;

/**
 * Fresh runs of the registered parser, each line's answer as the registry settled it. A pass's
 * lines go to the engine a piece at a time, as `parse` sends them, and their late answers are
 * matched back by line and timestamp; a line the registry answered at once (no engine ran it)
 * is known by the fallback counter that grew during its `parseLine` call.
 */
class Runs {
  /** @type {Map<string, import("../index.js").LineUpdate>} the late answers, by line and timestamp */
  #updates = new Map();
  /** Called when a late answer says its line was ended at the deadline. */
  #onStuck = () => {};

  /** @param {ParserRegistry} registry */
  constructor(registry) {
    this.registry = registry;
    registry.onChange((type, _status, lines) => {
      if (type !== TYPE || lines === null) return;
      for (const u of lines) {
        this.#updates.set(key(u.line, u.ts), u);
        if (u.failure?.code === "deadline") this.#onStuck();
      }
    });
  }

  /** A fresh run (`what` names what it is for), or `{ error }`. */
  start(what) {
    try {
      return { run: this.registry.adapter(TYPE).createStdoutParser() };
    } catch (e) {
      return { error: `could not start a fresh run for the ${what}: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Resolves when every line handed over is answered, or as soon as one was ended at the deadline. */
  #settled() {
    return new Promise((resolve, reject) => {
      this.#onStuck = resolve;
      this.registry.idle().then(resolve, reject);
    });
  }

  /**
   * Each line's answer, in order; throws Stuck at the first line the core ended at its deadline.
   * @param {import("../index.js").StdoutParser} run
   * @param {Line[]} lines
   * @returns {Promise<Answer[]>}
   */
  async feedAll(run, lines) {
    /** @type {Answer[]} */
    const answers = [];
    for (let from = 0; from < lines.length; from += LINES_PER_PIECE) {
      const piece = lines.slice(from, from + LINES_PER_PIECE);
      this.#updates.clear();
      const atOnce = piece.map((line) => {
        const before = this.registry.diagnostics(TYPE);
        const shown = run.parseLine(line.text, line.ts);
        return { shown, failure: newFallback(before, this.registry.diagnostics(TYPE)) };
      });
      await this.#settled();
      const settled = piece.map((line, i) => {
        const update = this.#updates.get(key(line.text, line.ts));
        return { update, failure: update ? update.failure : atOnce[i].failure };
      });
      // The pass stops at a line ended at the deadline (on its retry too): the checks stop there.
      const stuck = settled.findIndex((s) => s.failure?.code === "deadline");
      if (stuck !== -1) throw new Stuck(piece[stuck].label);
      for (const [i, { update, failure }] of settled.entries()) {
        const dropped = update?.dropped ?? [];
        // All its entries were invalid (listed in `dropped`): the line itself shows.
        if (failure && failure.code !== "all_entries_invalid") answers.push({ failure, dropped });
        else answers.push({ entries: update ? update.entries : atOnce[i].shown, dropped });
      }
    }
    return answers;
  }

  /** The run's `reset()`; `{ error }` when it could not be done. */
  async reset(run) {
    try {
      run.reset();
      await this.registry.idle();
      return null;
    } catch (e) {
      return { error: `engine_fault: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Lets the run go. */
  end(run) {
    run.dispose();
  }
}

/** A line's key among a piece's late answers. */
const key = (line, ts) => `${ts}\n${line}`;

/**
 * `lines` through a fresh run of their own (`what` names them), let go after: `{ answers }`,
 * or `{ error }` when the run could not start. Throws Stuck.
 */
async function freshPass(runs, what, lines) {
  const started = runs.start(what);
  if (started.error !== undefined) return { error: started.error };
  try {
    return { answers: await runs.feedAll(started.run, lines) };
  } finally {
    runs.end(started.run);
  }
}

/**
 * The behaviour checks, pushed to `checks` as each is known.
 * @param {Runs} runs
 * @param {{ sample: Line[] | null, awkward: Line[], max: number, stateless: boolean }} inputs
 * @param {ReturnType<typeof check>[]} checks
 */
async function behaviour(runs, { sample, awkward, max, stateless }, checks) {
  // The determinism input: the sample log, or the awkward lines without one.
  const det = sample ?? awkward;
  const detWhat = sample ? "the sample log" : "the awkward lines";

  // Run A: the input; then reset() and the input again in the same run.
  const a = runs.start(detWhat);
  if (a.error !== undefined) {
    for (const [id, title] of BEHAVIOUR_CHECKS) checks.push(check(id, title, "fail", a.error));
    return;
  }
  let first;
  try {
    first = await runs.feedAll(a.run, det);
    if (sample) checks.push(failuresCheck("sample_log", "sample log", sample, first, max));
    else checks.push(check("sample_log", "sample log", "skip", "no --log given"), failuresCheck("awkward_lines", "awkward lines", awkward, first, max));
    const reset = await runs.reset(a.run);
    const again = reset ?? { answers: await runs.feedAll(a.run, det) };
    checks.push(resetReplayCheck(detWhat, det, first, again, stateless, max));
  } finally {
    runs.end(a.run);
  }

  // Run B: the input in a fresh run.
  checks.push(determinismCheck(detWhat, det, first, await freshPass(runs, detWhat, det), max));

  // Run C: the awkward lines in their own fresh run (already done without a sample log).
  /** @type {[Line, Answer][]} */
  const fed = [];
  if (sample) {
    sample.forEach((l, i) => fed.push([l, first[i]]));
    const c = await freshPass(runs, "awkward lines", awkward);
    if (c.error !== undefined) checks.push(check("awkward_lines", "awkward lines", "fail", c.error));
    else {
      checks.push(failuresCheck("awkward_lines", "awkward lines", awkward, c.answers, max));
      awkward.forEach((l, i) => fed.push([l, c.answers[i]]));
    }
  } else awkward.forEach((l, i) => fed.push([l, first[i]]));
  checks.push(entriesCheck(fed, max));
}

/**
 * Runs `parsebox check` with its parsed arguments: prints the report, resolves to the exit code.
 * @param {CheckArgs} args
 */
export async function runCheck(args) {
  const options = { ...registryOptions(args), droppedPreviewChars: PREVIEW_CHARS };
  // The limits are checked before any file is read, as the native command checks them.
  openRegistry(ParserRegistry, options).dispose();
  const limit = options.maxSourceBytes;
  const [source, utf8] = intoText(readCapped(args.parser, limit * PARSER_READ_FACTOR, "a parser to check", ` (Paperclip refuses one over ${thousands(limit)})`));
  let pkg = null;
  if (args.package !== null) {
    const [text] = intoText(readCapped(args.package, MAX_PACKAGE_BYTES, "a package.json", ""));
    try {
      pkg = { path: args.package, json: JSON.parse(text) };
    } catch (e) {
      pkg = { path: args.package, error: e instanceof Error ? e.message : String(e) };
    }
  }
  const log = args.log === null ? null : readCapped(args.log, MAX_SAMPLE_LOG_BYTES, "a sample log", " (`parsebox parse` reads a log of any length)");

  const size = Buffer.byteLength(source, "utf8");
  const registry = openRegistry(ParserRegistry, { ...options, maxSourceBytes: Math.max(limit, size) });
  try {
    registry.registerSource(TYPE, source);
    const status = await waitForLoad(registry, TYPE);
    const loaded = moduleChecks(size, limit, utf8, status);
    const checks = [...loaded.checks, ...packageChecks(pkg, args.parser)];
    if (loaded.module === null) {
      for (const [id, title] of BEHAVIOUR_CHECKS) checks.push(check(id, title, "skip", "the parser did not load"));
    } else {
      const fed = log === null ? null : sampleLines(log);
      // A log without a single non-empty line tests nothing: say so, and use the awkward lines.
      const emptyLog = fed !== null && fed.length === 0;
      const awkward = labelledAwkwardLines();
      const inputs = { sample: emptyLog ? null : fed, awkward, max: args.maxExamples, stateless: loaded.module.entryPoint === "parseStdoutLine" };
      try {
        await behaviour(new Runs(registry), inputs, checks);
      } catch (e) {
        if (!(e instanceof Stuck)) throw e;
        const line = [...(inputs.sample ?? []), ...awkward].find((l) => l.label === e.label);
        checks.push(unstoppableCheck(e.label, line ? preview(line.text, 100) : "", Math.floor(args.hangTimeoutMs / 1000), options.lineBudgetMs));
        skipTheRest(checks);
      }
      if (emptyLog) {
        for (const c of checks) {
          if (c.id !== "sample_log") continue;
          c.status = "warn";
          c.summary = "the --log file has no non-empty lines: nothing to run";
        }
      }
    }
    const r = report(args.parser, args.strict, loaded.module, checks);
    process.stdout.write(renderReport(r, args.json, new Painter(!args.json && useColor(args.color))));
    return r.passed ? EXIT_OK : EXIT_FAILED;
  } finally {
    registry.dispose();
  }
}
