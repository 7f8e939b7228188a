// Run: one createStdoutParser() instance of a registry type (adapter(type)), replayed after a
// trap and followed to the worker host.
import { ParseboxDisposedError } from "./errors.js";
import { checkString, generic } from "./options.js";


/** One `createStdoutParser()` instance: a run with its own state, replayed after a trap. */
export class Run {
  #registry;
  #type;
  #id = null;
  #generation = -1;
  #journal = []; // lines since the last reset, to restore state in a fresh instance
  #disposed = false;
  #worker = null; // the worker host this run was moved to
  #runKey = null;

  constructor(registry, type) {
    this.#registry = registry;
    this.#type = type;
    this.#bind();
  }

  #bind() {
    const id = this.#registry._call(this.#type, (core) => core.createRun(this.#type));
    this.#registry._noteType(this.#type);
    this.#id = id ?? null;
    this.#generation = this.#registry._generation();
    if (this.#id !== null) {
      for (const [line, ts] of this.#journal) this.#registry._call(this.#type, (core) => core.runParseLine(this.#id, line, ts));
    }
  }

  parseLine(line, ts) {
    if (this.#disposed) throw new ParseboxDisposedError("parser used after dispose()");
    checkString(line, "line");
    checkString(ts, "ts");
    this.#registry._core();
    const worker = this.#registry._worker(this.#type);
    if (worker) {
      // Moved to the worker host: bring a worker run to this run's state, then answer later
      // (the generic entry now; the answer through onChange).
      if (worker !== this.#worker) {
        this.#worker = worker;
        this.#runKey = this.#registry._runKey();
        worker.prime(this.#runKey, this.#journal);
      }
      this.#journal.push([line, ts]);
      return this.#registry._workerParse(this.#type, this.#runKey, null, line, ts, null);
    }
    if (this.#id === null || this.#generation !== this.#registry._generation()) this.#bind();
    const json = this.#id === null ? undefined : this.#registry._call(this.#type, (core) => core.runParseLine(this.#id, line, ts));
    this.#registry._afterCall();
    this.#journal.push([line, ts]);
    return json === undefined ? generic(line, ts) : JSON.parse(json);
  }

  reset() {
    if (this.#disposed) throw new ParseboxDisposedError("parser used after dispose()");
    this.#journal = [];
    this.#registry._core();
    if (this.#worker) this.#worker.reset(this.#runKey);
    if (this.#id === null || this.#generation !== this.#registry._generation()) this.#bind();
    else this.#registry._call(this.#type, (core) => core.resetRun(this.#id));
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#worker?.drop(this.#runKey);
    if (this.#id !== null && this.#generation === this.#registry._generation()) {
      try {
        this.#registry._call(null, (core) => core.dropRun(this.#id));
      } catch {
        // The registry itself was disposed: nothing left to free.
      }
    }
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}
