// parsebox/paperclip: what Paperclip's UI imports for its run-log parsers, on one shared
// ParserRegistry. `loadDynamicParser`, `invalidateDynamicParser` and
// `setDynamicParserResultNotifier` stand in for ui/src/adapters/dynamic-loader.ts;
// `buildTranscript` for ui/src/adapters/transcript.ts, keeping each run's builder so a re-render
// parses only the chunks that are new.
import { ParserRegistry } from "./registry.js";
import { applyShown } from "./follow.js";
import { ParseboxCoreError, ParseboxOptionsError } from "./errors.js";

let shared = null;
let notifier = null;
let unsubscribe = null;
/** Functions of sandboxed parser sources handed out here → their adapter type. */
const sandboxed = new WeakMap();
/** Trusted parser functions given to `buildTranscript` → the built-in type made for them in `shared`. */
let builtinTypes = new WeakMap();
let nextBuiltin = 1;
/** The page's copy of each run the shared registry's core keeps (by the core's run id): its entries and the window last shown. */
let copies = new Map();

/**
 * Makes `registry` the one the Paperclip functions use (disposing none). Call it once at
 * start-up, after `init()`, to choose its options; otherwise one with default options is made on
 * first use.
 */
export function usePaperclipRegistry(registry) {
  if (!(registry instanceof ParserRegistry)) throw new ParseboxOptionsError("usePaperclipRegistry needs a ParserRegistry");
  // The core lets go of the runs it kept, and the page of its copies of them.
  if (shared && !shared._lost) shared._forgetFollowed();
  copies = new Map();
  unsubscribe?.();
  unsubscribe = null;
  builtinTypes = new WeakMap();
  shared = registry;
  subscribe();
}

/**
 * The registry the Paperclip functions share (made with default options on first use). If the
 * core it was made on stopped (`ParseboxCoreError`), a new one with the same options takes its
 * place: dynamic parsers load again on demand, trusted ones are registered again when used.
 */
export function paperclipRegistry() {
  if (!shared) usePaperclipRegistry(new ParserRegistry());
  else if (shared._lost) usePaperclipRegistry(shared._again());
  return shared;
}

function subscribe() {
  if (!shared || !notifier || unsubscribe) return;
  // A parser became ready, or a Worker's late answers changed what a kept run shows.
  const offChange = shared.onChange(() => notifier?.());
  const offFollowed = shared._onFollowed(() => notifier?.());
  unsubscribe = () => {
    offChange();
    offFollowed();
  };
}

/**
 * dynamic-loader.ts: `fn` is called when a parser becomes ready or answers lines late (the UI
 * then re-renders, and `buildTranscript` gives the new entries at once).
 */
export function setDynamicParserResultNotifier(fn) {
  if (fn !== null && typeof fn !== "function") throw new ParseboxOptionsError("setDynamicParserResultNotifier needs a function or null");
  notifier = fn;
  if (!fn) {
    unsubscribe?.();
    unsubscribe = null;
  }
  subscribe();
}

/**
 * dynamic-loader.ts: loads `type`'s `ui-parser.js` into its sandbox (over the type's built-in,
 * if it has one) and resolves to its parser source once it is ready, or to `null` when the
 * loader has none or it failed. A failure is not retried until `invalidateDynamicParser`.
 */
export async function loadDynamicParser(type) {
  // Paperclip calls this from inside a parser call; the registry is reached after it returns.
  await Promise.resolve();
  const registry = paperclipRegistry();
  // The core decides: load now, wait for a load out, or neither (ready, or failed: not retried).
  if (registry._loadDynamic(type)) await registry.idle(); // the load and the engine's start
  return registry.status(type).state === "ready" ? parserSource(type) : null;
}

/**
 * dynamic-loader.ts: drops `type`'s sandboxed parser (the built-in beneath answers again, or the
 * generic parser) so the next `loadDynamicParser` loads it afresh. Returns whether one was ready.
 */
export function invalidateDynamicParser(type) {
  return paperclipRegistry()._invalidateDynamic(type);
}

/** `type`'s parser source (Paperclip's `TranscriptParserSource`), stable per parser generation. */
export function parserSource(type) {
  const source = paperclipRegistry().adapter(type);
  sandboxed.set(source.parseStdoutLine, type);
  sandboxed.set(source.createStdoutParser, type);
  return source;
}

/**
 * transcript.ts: the transcript of `chunks`, exactly as Paperclip's `buildTranscript` gives it,
 * for a parser source from `loadDynamicParser` / `parserSource` (sandboxed) or a trusted one
 * (a function, or `{ parseStdoutLine, createStdoutParser? }`, run as a built-in). The builder is
 * kept: when the next call's chunks begin with the same chunk objects, only the new ones are
 * parsed (a live view's re-render), and late answers from a Worker are already in place.
 */
export function buildTranscript(chunks, source, opts) {
  if (!Array.isArray(chunks)) throw new ParseboxOptionsError("buildTranscript needs an array of chunks");
  try {
    return transcriptOf(chunks, source, opts);
  } catch (e) {
    if (!(e instanceof ParseboxCoreError)) throw e;
    // The core stopped during the call: a fresh one parses the list again, which the page holds.
    return transcriptOf(chunks, source, opts);
  }
}

/** `buildTranscript`, on the shared registry as it is now: the core keeps the runs, picks the one the list goes on from and says what changed. */
function transcriptOf(chunks, source, opts) {
  const registry = paperclipRegistry();
  const type = typeOf(registry, source);
  const { run, gone, shown } = registry._buildTranscript(type, chunks, opts?.censorUsernameInLogs === true);
  copies.delete(gone);
  let copy = copies.get(run);
  if (!copy) copies.set(run, (copy = { entries: [], window: [] }));
  if (shown) copy.window = applyShown(copy.entries, shown);
  // Fresh objects: a caller may change what it gets without touching the kept run.
  return copy.window.map((e) => ({ ...e }));
}

/** The adapter type whose parser `source` is: its sandboxed type, or a built-in made for it. */
function typeOf(registry, source) {
  const fn = typeof source === "function" ? source : source?.createStdoutParser ?? source?.parseStdoutLine;
  if (typeof fn !== "function") throw new ParseboxOptionsError("buildTranscript needs a parser function or { parseStdoutLine, createStdoutParser? }");
  const known = sandboxed.get(fn) ?? builtinTypes.get(fn);
  if (known !== undefined) return known;
  const type = `paperclip-builtin-${nextBuiltin++}`;
  registry.registerBuiltin(type, typeof source === "function" ? { parseStdoutLine: source } : source);
  builtinTypes.set(fn, type);
  return type;
}
