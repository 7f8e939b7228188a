// The command's one error type (a message for stderr and the exit code it maps to), and the
// exit codes.

/** Everything passed. */
export const EXIT_OK = 0;
/** A check failed, or the parser did not load. */
export const EXIT_FAILED = 1;
/** Bad usage, or an input that cannot be read. */
export const EXIT_USAGE = 2;
/** A bug in parsebox. */
export const EXIT_INTERNAL = 70;

/** Why a command stopped: said on stderr as `parsebox: error: <message>`, exits with `code`. */
export class CommandError extends Error {
  /**
   * @param {string} message
   * @param {number} code
   */
  constructor(message, code) {
    super(message);
    this.name = "CommandError";
    this.code = code;
  }
}
