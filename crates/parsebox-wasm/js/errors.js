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

const ERRORS = { ParseboxError, ParseboxOptionsError, ParseboxDisposedError, ParseboxChunkError, ParseboxInitError, ParseboxReentrancyError, ParseboxMemoryError, ParseboxRunError: ParseboxError };

/** Calls `fn`, turning the core's named errors into our classes. */
export function guarded(fn) {
  try {
    return fn();
  } catch (e) {
    rethrow(e);
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
