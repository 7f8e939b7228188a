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
 * A registry called from inside one of its own calls (a built-in parser calling `parseLine`):
 * refused, the registry carries on.
 */
export class ParseboxReentrancyError extends ParseboxError {}

const ERRORS = { ParseboxError, ParseboxOptionsError, ParseboxDisposedError, ParseboxChunkError, ParseboxInitError, ParseboxReentrancyError, ParseboxRunError: ParseboxError };

/** Calls `fn`, turning the core's named errors into our classes. */
export function guarded(fn) {
  try {
    return fn();
  } catch (e) {
    rethrow(e);
  }
}

/** Rethrows a named error from the Rust side as our own class, so `instanceof` works. */
export function rethrow(e) {
  if (e instanceof Error && e.name in ERRORS && !(e instanceof ParseboxError)) {
    throw new ERRORS[e.name](e.message);
  }
  throw e;
}
