// Run: one createStdoutParser() instance of a registry type (`adapter(type)`): a run of the
// core, whose state the core keeps and restores.
import { ParseboxDisposedError } from "./errors.js";
import { checkString } from "./options.js";

/**
 * One `createStdoutParser()` instance: a run with its own state. Its functions are own
 * properties bound to it, so they work detached, as Paperclip's `buildTranscript` calls them
 * (`const { parseLine, reset } = parser`).
 */
export class Run {
  #registry;
  #id;
  #disposed = false;

  constructor(registry, type) {
    this.#registry = registry;
    this.#id = registry._createRun(type);
  }

  parseLine = (line, ts) => {
    this.#live();
    checkString(line, "line");
    checkString(ts, "ts");
    return this.#registry._runParse(this.#id, line, ts);
  };

  reset = () => {
    this.#live();
    this.#registry._resetRun(this.#id);
  };

  #live() {
    if (this.#disposed) throw new ParseboxDisposedError("parser used after dispose()");
  }

  dispose = () => {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#registry._dropRun(this.#id);
  };

  [Symbol.dispose]() {
    this.dispose();
  }
}
