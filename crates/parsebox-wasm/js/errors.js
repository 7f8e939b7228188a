// The errors parsebox throws: host misuse only (guest failures are data in status and
// diagnostics), one named class per kind, and the mapping from the core's error names.
/** Base class of every error parsebox throws (host misuse only; guest failures are data). */
export class ParseboxError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}
/** Bad options or arguments. */
export class ParseboxOptionsError extends ParseboxError {}
/** A registry, builder or parser used after `dispose()`. */
export class ParseboxDisposedError extends ParseboxError {}
/** A malformed run-log chunk given to `TranscriptBuilder.push`. */
export class ParseboxChunkError extends ParseboxError {}
/** `parseLine`/`push` called before `init()`/`initSync()`. */
export class ParseboxInitError extends ParseboxError {}
/**
 * A registry or builder called from inside one of its own calls (a built-in parser calling
 * `parseLine`, or pushing into its own builder): refused, the object carries on.
 */
export class ParseboxReentrancyError extends ParseboxError {}

/**
 * A chunk refused because its transcript is full: it holds its `maxTranscriptBytes`, or what the
 * registry's `maxTranscriptBytesTotal` leaves it beside its other transcripts. The transcript
 * keeps what it has; nothing else is affected.
 */
export class ParseboxMemoryError extends ParseboxError {}

/**
 * The core module stopped: a WebAssembly trap left one of its calls (the error's `cause`). The
 * package then runs a fresh core: registries and builders made from now on work, and each one
 * made before refuses every call with this error, to be made again (what a page holds, such as
 * its chunks, can be pushed into a new builder). Its parsers' Workers are ended.
 */
export class ParseboxCoreError extends ParseboxError {
  constructor(message, options) {
    super(message);
    if (options && "cause" in options) this.cause = options.cause;
  }
}

let coreTrapped = null; // instance.js: starts a fresh core

/** Sets what runs when a call into the core trapped: instance.js, which starts a fresh core. */
export function onCoreTrap(handler) {
  coreTrapped = handler;
}

/**
 * The error an object made before the core trapped throws: `what` is the object
 * ("ParserRegistry", "TranscriptBuilder").
 */
export function lostCoreError(what) {
  return new ParseboxCoreError(`${what} was made on a parsebox core that has stopped (a WebAssembly trap) and cannot carry on: make a new ${what} (a fresh core is running)`);
}

const ERRORS = { ParseboxError, ParseboxCoreError, ParseboxOptionsError, ParseboxDisposedError, ParseboxChunkError, ParseboxInitError, ParseboxReentrancyError, ParseboxMemoryError, ParseboxRunError: ParseboxError };

/** Calls `fn`, turning the core's named errors into our classes. */
export function guarded(fn) {
  try {
    return fn();
  } catch (e) {
    rethrow(e);
  }
}

/**
 * Calls the core from a task of the package's own (a drain, a timer, a Worker's message, a
 * frame), where no caller could catch: a trap there has started a fresh core and marked the
 * objects of the old one lost (their next caller is told), so `ParseboxCoreError` stops here;
 * gives undefined then.
 */
export function quietly(fn) {
  try {
    return guarded(fn);
  } catch (e) {
    if (e instanceof ParseboxCoreError) return undefined;
    throw e;
  }
}

/**
 * Calls each listener of the set `listeners` with `args`. One that throws does not stop the
 * others: its error is reported a microtask later, as an uncaught error (the page's `error`
 * event, Node's `uncaughtException`), not thrown into the frame or call that delivered the
 * update. A listener removed by an earlier one (unsubscribed, or its owner disposed, which
 * clears the set) is not called.
 */
export function callEach(listeners, ...args) {
  for (const listener of [...listeners]) {
    if (!listeners.has(listener)) continue;
    try {
      listener(...args);
    } catch (e) {
      queueMicrotask(() => {
        throw e;
      });
    }
  }
}

/** What wasm-bindgen's glue throws when an object is called while a call on it is running. */
const BORROWED = "recursive use of an object detected";

/**
 * Rethrows a named error from the Rust side as our own class, so `instanceof` works; the glue's
 * refusal of a call made from inside a call on the same object (a built-in parser or listener
 * pushing into or rebuilding its own builder) becomes a `ParseboxReentrancyError`.
 */
export function rethrow(e) {
  if (e instanceof WebAssembly.RuntimeError) {
    // Imported functions the core calls (engines, built-in parsers) are caught inside it, so a
    // trap that leaves a call is the core's own.
    coreTrapped?.(e);
    throw new ParseboxCoreError(`the parsebox core stopped (${e.message}): this call did not complete; registries and builders made before it must be made again, new ones run on a fresh core`, { cause: e });
  }
  if (e instanceof Error && e.name in ERRORS && !(e instanceof ParseboxError)) {
    throw new ERRORS[e.name](e.message);
  }
  if (e instanceof Error && !(e instanceof ParseboxError) && e.message.includes(BORROWED)) {
    throw new ParseboxReentrancyError(
      "called from inside one of its own calls (a built-in parser or a listener using the builder or registry that is calling it): refused, the object carries on",
    );
  }
  throw e;
}
