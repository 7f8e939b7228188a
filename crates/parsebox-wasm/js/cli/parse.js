// `parsebox parse`: a log through the package's own TranscriptBuilder, on a ParserRegistry whose
// engines run in Node threads (node-worker.js), exactly as the page runs them: each line is
// answered, falls back or is ended at its deadline (and the run replayed on a fresh engine) by
// the core's rules. The log is read in bounded pieces; each piece's entries are printed once
// every line of it is answered (the last one waits: a streamed delta may still grow it), which
// keeps `tail -f` piping live. `--format timeline` prints the whole timeline once the log has
// ended. What fell back, and why, comes from the core's diagnostics.
import { createReadStream, fstatSync, openSync } from "node:fs";

import { ParseboxError, ParserRegistry, TranscriptBuilder } from "../index.js";
import { CommandError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./errors.js";
import { boundedLines, isFed, lineTs, readCapped, readError, thousands } from "./lines.js";
import { Painter, preview, pretty, useColor } from "./render.js";
import { Progress } from "./progress.js";
import { describeLoadError, openRegistry, registryOptions, waitForLoad } from "./registry.js";

/** The adapter type the command registers its parser as. */
const TYPE = "parser";
/** Lines handed over before the command waits for their answers and prints them (standard
 * input waits after each piece read, so a live log shows as it comes). */
const LINES_PER_PIECE = 2000;
/** Chunks the builder keeps (a window) when the whole transcript is not needed at the end. */
const WINDOW_CHUNKS = 4 * LINES_PER_PIECE;
/** How many lines that fell back the summary shows. */
const FALLBACKS_SHOWN = 5;

/**
 * Runs `parsebox parse` with its parsed arguments; resolves to the exit code.
 * @param {import("./args.js").ParseArgs} args
 */
export async function runParse(args) {
  const options = registryOptions(args);
  const source = readCapped(args.parser, options.maxSourceBytes * 16, "a parser", ` (Paperclip refuses one over ${thousands(options.maxSourceBytes)})`).toString("utf8");
  const registry = openRegistry(ParserRegistry, options);
  try {
    registry.registerSource(TYPE, source);
    const status = await waitForLoad(registry, TYPE);
    if (status.state !== "ready") {
      const why = status.error ? describeLoadError(status.error) : (status.reason ?? status.state);
      throw new CommandError(`${args.parser} did not load: ${why} (run \`parsebox check\` for the full report)`, EXIT_FAILED);
    }
    return await parseLog(registry, args, options, openLog(args.log));
  } catch (e) {
    if (e instanceof ParseboxError && !(e instanceof CommandError)) throw new CommandError(e.message, EXIT_FAILED);
    throw e;
  } finally {
    registry.dispose();
  }
}

/** The log to read: a file, or standard input (`-` or none); a usage error when it cannot be read. */
function openLog(path) {
  if (path === null || path === "-") {
    return { stream: process.stdin, name: "standard input", stdin: true, tty: process.stdin.isTTY === true, size: null };
  }
  let fd;
  try {
    fd = openSync(path, "r");
    if (fstatSync(fd).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  } catch (e) {
    throw readError(path, e);
  }
  const size = fstatSync(fd).size;
  return { stream: createReadStream("", { fd, highWaterMark: 256 << 10 }), name: path, stdin: false, tty: false, size };
}

/** The input's pieces; a read that fails is said as the input's (a usage error, as natively). */
async function* readable(input) {
  try {
    for await (const piece of input.stream) yield piece;
  } catch (e) {
    throw new CommandError(`cannot read ${input.name}: ${e instanceof Error ? e.message : String(e)}`, EXIT_USAGE);
  }
}

/** Where the entries go: stdout, a piece at a time, with what a slow reader asks (drain). */
class Output {
  #parts = [];
  #broken = false;

  constructor() {
    // `parsebox parse … | head`: the reader left; nothing more to say, and not an error.
    process.stdout.on("error", (e) => {
      if (e.code === "EPIPE") this.#broken = true;
    });
  }

  get broken() {
    return this.#broken;
  }

  line(text) {
    this.#parts.push(text, "\n");
  }

  /** Writes what is held; waits when the reader is slower than the command. */
  async flush() {
    if (this.#parts.length === 0 || this.#broken) return;
    const text = this.#parts.join("");
    this.#parts = [];
    if (process.stdout.write(text)) return;
    await new Promise((resolve) => {
      const done = () => {
        process.stdout.off("drain", done);
        process.stdout.off("error", done);
        resolve();
      };
      process.stdout.on("drain", done);
      process.stdout.on("error", done);
    });
  }
}

/** The log through the builder, printed as it is built; then the summary on stderr. */
async function parseLog(registry, args, options, input) {
  const timeline = args.format === "timeline";
  const builder = new TranscriptBuilder(registry, TYPE, {
    failedLineEntry: "generic",
    redactHomePaths: args.redactHomePaths,
    timeline,
    ...(timeline ? {} : { maxChunks: WINDOW_CHUNKS }),
  });
  const painter = new Painter(args.format === "pretty" && useColor(args.color));
  const out = new Output();
  // The builder's window of entries, as its updates say, and how many of the whole run's have
  // been printed.
  let window = [];
  let dropped = 0;
  let printed = 0;
  const apply = (u) => {
    if (u.dropped) {
      // Entries leave the window only once later chunks came: they are final; print them first.
      print(dropped + u.dropped);
      window.splice(0, u.dropped);
      dropped += u.dropped;
    }
    window.length = u.from;
    for (const e of u.entries) window.push(e);
  };
  const offUpdate = builder.onUpdate(apply);
  /** Prints the entries before `upto` (a whole-run index) not printed yet. */
  const print = (upto) => {
    if (timeline) return;
    for (; printed < upto; printed++) {
      const e = window[printed - dropped];
      if (args.format === "jsonl") out.line(JSON.stringify(e));
      else out.line(pretty(e, painter));
    }
  };
  let deadlines = 0;
  /** A line given up at the hang limit: said as it happens, as the command always has. */
  const sayGivenUp = () => {
    const now = registry.diagnostics(TYPE).fallbacks.deadline ?? 0;
    for (; deadlines < now; deadlines++) {
      if (!args.quiet) {
        process.stderr.write(
          `parsebox: warning: gave up a line after ${args.hangTimeoutMs} ms: the parser was still in one native operation the sandbox cannot interrupt; the line shows the generic entry and the lines after it are parsed\n`,
        );
      }
    }
  };
  if (input.tty && !args.quiet) process.stderr.write("parsebox: reading the log from standard input (end it with Ctrl-D)\n");

  const progress = new Progress(!args.quiet && process.stderr.isTTY === true && process.stdout.isTTY !== true, input.size);
  const started = performance.now();
  let bytesRead = 0;
  let fed = 0;
  let skippedRows = 0;
  let cutRows = 0;
  /** @type {Map<string, { length: number, kept: number }>} the first lines cut on reading, by timestamp */
  const cut = new Map();
  let inPiece = 0;
  const settle = async () => {
    await registry.idle();
    sayGivenUp();
    // Every line so far is answered: all but the last entry are final (a delta may grow it).
    print(dropped + window.length - 1);
    await out.flush();
    inPiece = 0;
  };
  /** One line read (`bytes` with its `\n`; `cutFrom`: its whole length when it was cut). */
  const feed = ({ bytes, consumed, cutFrom }) => {
    bytesRead += consumed;
    const text = bytes.toString("utf8");
    if (args.ndjson) {
      if (cutFrom !== null) cutRows++; // a row cut short is not JSON: said, not silently skipped
      else if (text.trim() !== "") {
        try {
          apply(builder.push(JSON.parse(text.trim())));
        } catch (e) {
          if (!(e instanceof SyntaxError || e?.name === "ParseboxChunkError")) throw e;
          skippedRows++;
        }
      }
      return;
    }
    const raw = text.endsWith("\n") ? text.slice(0, -1) : text;
    const ts = lineTs(fed);
    // A line cut on reading is kept just past the limit, so the core shows it as the generic
    // entry (line_too_long); the summary says how long it really was.
    if (cutFrom !== null && cut.size < FALLBACKS_SHOWN) cut.set(ts, { length: cutFrom, kept: bytes.length - 1 });
    if (isFed(raw)) fed++;
    else if (cutFrom !== null) cutRows++; // blank in the part kept: nothing to show, but said
    apply(builder.push({ ts, stream: "stdout", chunk: text }));
  };
  for await (const batch of boundedLines(readable(input), options.maxLineBytes)) {
    for (const line of batch) {
      feed(line);
      if (++inPiece >= LINES_PER_PIECE) await settle();
    }
    if (input.stdin && inPiece > 0) await settle();
    progress.update(bytesRead, fed);
    if (out.broken) break;
  }
  apply(builder.finish());
  await registry.idle();
  sayGivenUp();
  offUpdate();
  print(dropped + window.length);
  if (timeline) for (const item of builder.timeline()) out.line(JSON.stringify(item));
  await out.flush();
  progress.clear();
  if (!args.quiet) summary(registry.diagnostics(TYPE), { elapsed: (performance.now() - started) / 1000, bytesRead, entries: dropped + window.length, cutRows, skippedRows, maxLineBytes: options.maxLineBytes, cut });
  builder.dispose();
  return EXIT_OK;
}

/** `code ×n, …`, in the core's order. */
const counts = (map) =>
  Object.entries(map)
    .map(([k, v]) => `${k} ×${v}`)
    .join(", ");

const plural = (n, one, many) => (n === 1 ? one : many);

/** The summary on stderr: lines, entries, speed; what fell back and was dropped, and why. */
function summary(d, { elapsed, bytesRead, entries, cutRows, skippedRows, maxLineBytes, cut }) {
  const lines = d.linesParsed;
  let s = `parsebox: ${thousands(lines)} line${plural(lines, "", "s")} → ${thousands(entries)} entr${plural(entries, "y", "ies")} in ${elapsed.toFixed(2)} s`;
  if (elapsed > 0) s += ` (${thousands(Math.floor(lines / elapsed))} lines/s, ${(bytesRead / elapsed / 1e6).toFixed(1)} MB/s)`;
  const say = (text) => process.stderr.write(`${text}\n`);
  say(s);
  const failed = Object.values(d.fallbacks).reduce((a, b) => a + b, 0);
  if (failed > 0) {
    say(`parsebox: ${failed} line${plural(failed, "", "s")} fell back to the generic parser (${counts(d.fallbacks)})`);
    for (const f of d.fallbackLines.slice(0, FALLBACKS_SHOWN)) {
      const c = f.error.startsWith("line_too_long:") ? cut.get(f.ts) : undefined;
      const error = c ? `line_too_long: line is ${c.length} bytes, over --max-line-bytes ${maxLineBytes}: its first ${c.kept} bytes show as the generic entry` : f.error;
      say(`  ${f.ts} ${error}: ${preview(f.line, 80, c ? undefined : f.lineChars)}`);
    }
  }
  const droppedEntries = Object.values(d.droppedEntries).reduce((a, b) => a + b, 0);
  if (droppedEntries > 0) say(`parsebox: ${droppedEntries} invalid entr${plural(droppedEntries, "y", "ies")} dropped (${counts(d.droppedEntries)}); \`parsebox check\` shows them`);
  if (cutRows > 0) {
    say(
      `parsebox: ${cutRows} input line${plural(cutRows, "", "s")} over --max-line-bytes (${maxLineBytes}) skipped (an NDJSON row cut short is not JSON; a line blank in the part kept shows nothing); raise it to read ${plural(cutRows, "it", "them")}`,
    );
  }
  if (skippedRows > 0) say(`parsebox: ${skippedRows} malformed NDJSON row${plural(skippedRows, "", "s")} skipped`);
}
