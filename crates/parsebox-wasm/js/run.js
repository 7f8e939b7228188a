// Run: one createStdoutParser() instance of a registry type (`adapter(type)`): a run of the
// core, whose state the core keeps and restores.
import { disposable } from "./dispose.js";
import { ParseboxDisposedError } from "./errors.js";
import { checkString } from "./options.js";

// A run Paperclip never disposes (it makes one per render and lets it go) is dropped in the core
// when it is collected; the lines it left with a Worker are still remembered there.
const collected = new FinalizationRegistry(({ registry, id }) => registry._dropRun(id));

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
    collected.register(this, { registry, id: this.#id }, this);
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
    collected.unregister(this);
    this.#registry._dropRun(this.#id);
  };
}
disposable(Run);
