// The main-thread side of the worker host: one Web Worker per adapter type moved there, a hard
// wall-clock deadline per line, and terminate + respawn + replay when a line runs past it.
// Parsers are deterministic here (Date, Math.random and module state are pinned per run), so
// replaying a run's earlier lines into a fresh worker brings its state back exactly.

const MAX_JOURNAL_BYTES = 64 << 20;
const MAX_FAILED_STARTS = 3;

/** A line outcome (as the core's `runParseRaw` writes it) for a line the worker lost. */
const lost = (code, message) => JSON.stringify({ Err: { code, message } });

/**
 * Runs one adapter type's parser in a Worker. `deliver(outcome | null)` is called for every
 * line that asked for an answer: `outcome` is what the parser did, as JSON for the page's line
 * rule (`settleAnswer`, `replaceLines`) — a `deadline` or `worker_fault` failure when the line
 * was lost — or null when the host was closed first (the line keeps its generic entry).
 */
export class WorkerHost {
  #module;
  #type;
  #source;
  #contractVersion;
  #optionsJson;
  #deadlineMs;
  #onGiveUp;
  #worker = null;
  #ready = false;
  #queue = []; // line ops posted to the current worker, awaiting their result, in order
  #journals = new Map(); // run key -> ops (lines and resets) in the order they were sent
  #journalBytes = 0;
  #seq = 0;
  #timer = null;
  #failedStarts = 0;
  #idleWaiters = [];
  #closed = false;
  #waiting = 0; // lines whose answer has not been delivered yet (posted or not)
  /** Counters for diagnostics. */
  stats = { linesParsed: 0, deadlineKills: 0, faults: 0, respawns: 0, replayedLines: 0, stateLost: 0 };

  constructor({ module, type, source, contractVersion, optionsJson, deadlineMs, onGiveUp }) {
    this.#module = module;
    this.#type = type;
    this.#source = source;
    this.#contractVersion = contractVersion;
    this.#optionsJson = optionsJson;
    this.#deadlineMs = deadlineMs;
    this.#onGiveUp = onGiveUp;
    this.#spawn();
  }

  /** Sends a line of `run`; `deliver(outcome | null)` gets its answer. */
  parse(run, line, ts, deliver) {
    this.#waiting += 1;
    const once = (outcome) => {
      this.#waiting -= 1;
      deliver(outcome);
    };
    this.#send(run, { kind: "line", line, ts, deliver: once, answered: false, seq: 0 });
  }

  /** Brings `run` to a state by replaying lines whose answers are already known. */
  prime(run, lines) {
    for (const [line, ts] of lines) this.#send(run, { kind: "line", line, ts, deliver: null, answered: true, seq: 0 });
  }

  reset(run) {
    this.#send(run, { kind: "reset" });
  }

  drop(run) {
    const ops = this.#journals.get(run);
    if (!ops) return;
    for (const op of ops) if (op.kind === "line") this.#journalBytes -= op.line.length + op.ts.length;
    this.#journals.delete(run);
    this.#ready && this.#worker.postMessage({ op: "drop", run });
  }

  /** Lines sent and not answered yet. */
  get pending() {
    return this.#waiting;
  }

  /** Resolves when every line sent so far has been answered. */
  idle() {
    if (!this.pending) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  close() {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#worker?.terminate();
    this.#worker = null;
    for (const ops of this.#journals.values()) {
      for (const op of ops) {
        const deliver = op.deliver;
        op.deliver = null;
        deliver?.(null);
      }
    }
    this.#queue = [];
    this.#wakeIdle();
  }

  #send(run, op) {
    if (this.#closed) {
      op.deliver?.(null);
      return;
    }
    op.run = run;
    let ops = this.#journals.get(run);
    if (!ops) this.#journals.set(run, (ops = []));
    ops.push(op);
    if (op.kind === "line") {
      this.#journalBytes += op.line.length + op.ts.length;
      if (this.#journalBytes > MAX_JOURNAL_BYTES) this.#trimJournals();
    }
    if (this.#ready) this.#post(op);
  }

  /** Over the cap, answered history is dropped: a later respawn cannot restore that state. */
  #trimJournals() {
    for (const [run, ops] of this.#journals) {
      const kept = ops.filter((op) => op.kind === "line" && !op.answered);
      if (kept.length !== ops.length) this.stats.stateLost += 1;
      this.#journals.set(run, kept);
    }
    this.#journalBytes = 0;
    for (const ops of this.#journals.values()) for (const op of ops) this.#journalBytes += op.line.length + op.ts.length;
  }

  #post(op) {
    if (op.kind === "reset") {
      this.#worker.postMessage({ op: "reset", run: op.run });
      return;
    }
    op.seq = ++this.#seq;
    this.#queue.push(op);
    this.#worker.postMessage({ op: "line", seq: op.seq, run: op.run, type: this.#type, line: op.line, ts: op.ts });
  }

  #spawn() {
    this.#ready = false;
    let worker;
    try {
      worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    } catch (e) {
      this.#giveUp(`could not start a worker: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.#worker = worker;
    worker.onmessage = ({ data }) => this.#onMessage(worker, data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (worker === this.#worker) this.#restart("worker_fault", `the worker failed: ${event.message ?? "error"}`);
    };
    worker.postMessage({ op: "init", module: this.#module, options: this.#optionsJson });
    worker.postMessage({ op: "register", type: this.#type, source: this.#source, contractVersion: this.#contractVersion });
  }

  #onMessage(worker, m) {
    if (worker !== this.#worker) return; // a terminated worker's late message
    if (m.op === "registered") {
      const status = JSON.parse(m.status);
      if (status.state !== "ready") {
        this.#giveUp(`the worker could not load the parser: ${status.reason}`);
        return;
      }
      this.#ready = true;
      // Replay every run's journal in order: answered lines restore state, unanswered ones
      // (and lines sent while the worker was starting) get their answers now.
      this.#queue = [];
      for (const ops of this.#journals.values()) {
        for (const op of ops) {
          if (op.kind === "line" && op.answered && this.stats.respawns > 0) this.stats.replayedLines += 1;
          this.#post(op);
        }
      }
      this.#wakeIdle();
      return;
    }
    const head = this.#queue[0];
    if (!head || head.seq !== m.seq) return;
    if (m.op === "begin") {
      // The worker started on this line: its deadline runs from now.
      this.#arm();
      return;
    }
    if (m.op === "fault") {
      this.stats.faults += 1;
      this.#restart("worker_fault", `engine fault in the worker: ${m.message}`);
      return;
    }
    this.#queue.shift();
    clearTimeout(this.#timer);
    this.#failedStarts = 0;
    if (!head.answered) {
      head.answered = true;
      this.stats.linesParsed += 1;
      const deliver = head.deliver;
      head.deliver = null;
      deliver?.(m.outcome);
    }
    this.#wakeIdle();
  }

  /** The deadline of the line at the head of the queue, from the moment the worker began it. */
  #arm() {
    clearTimeout(this.#timer);
    if (!this.#queue.length) return;
    this.#timer = setTimeout(() => this.#restart("deadline", `ran past its ${this.#deadlineMs} ms deadline in the worker host`), this.#deadlineMs);
  }

  /**
   * Kills the worker: the head line falls back (`why` is its failure code, `deadline` or
   * `worker_fault`) and leaves the journal; a new worker replays.
   */
  #restart(why, reason) {
    clearTimeout(this.#timer);
    this.#worker?.terminate();
    this.#worker = null;
    this.#ready = false;
    if (why === "deadline") this.stats.deadlineKills += 1;
    const head = this.#queue.shift();
    if (head) {
      const ops = this.#journals.get(head.run);
      const at = ops ? ops.indexOf(head) : -1;
      if (at >= 0) ops.splice(at, 1);
      this.#journalBytes -= head.line.length + head.ts.length;
      const deliver = head.deliver;
      head.deliver = null;
      deliver?.(lost(why, reason));
    } else {
      this.#failedStarts += 1;
    }
    this.#queue = [];
    if (this.#failedStarts >= MAX_FAILED_STARTS) {
      this.#giveUp(reason);
      return;
    }
    this.stats.respawns += 1;
    this.#spawn();
  }

  #giveUp(reason) {
    this.close();
    this.#onGiveUp(reason);
  }

  #wakeIdle() {
    if (this.pending) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
