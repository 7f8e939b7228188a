// The viewer's player: emits a stored run's chunks with the recorded pauses between them,
// scaled by the speed (a pause longer than MAX_GAP_MS is cut to it), or all at once.

const MAX_GAP_MS = 3000; // longest pause replayed between two chunks (at 1×)

export class Player {
  #chunks;
  #i = 0;
  #timer = null;
  #onChunk;
  #onEnd;
  speed;
  paused = false;

  constructor(chunks, { speed, onChunk, onEnd }) {
    this.#chunks = chunks;
    this.speed = speed;
    this.#onChunk = onChunk;
    this.#onEnd = onEnd;
  }
  get emitted() {
    return this.#i;
  }
  get total() {
    return this.#chunks.length;
  }
  get done() {
    return this.#i >= this.#chunks.length;
  }
  #gap(i) {
    if (i <= 0) return 0;
    const d = Date.parse(this.#chunks[i].ts) - Date.parse(this.#chunks[i - 1].ts);
    return Number.isFinite(d) ? Math.min(Math.max(d, 0), MAX_GAP_MS) : 100;
  }
  #schedule() {
    clearTimeout(this.#timer);
    if (this.paused || this.done) return;
    this.#timer = setTimeout(() => this.#tick(), this.#gap(this.#i) / this.speed);
  }
  #tick() {
    if (this.paused) return;
    do this.#onChunk(this.#chunks[this.#i++]);
    while (!this.done && this.#gap(this.#i) === 0);
    if (this.done) this.#onEnd();
    else this.#schedule();
  }
  start() {
    this.paused = false;
    if (this.done) this.#onEnd();
    else this.#schedule();
  }
  pause() {
    this.paused = true;
    clearTimeout(this.#timer);
  }
  setSpeed(speed) {
    this.speed = speed;
    this.#schedule();
  }
  /** Replay-all-at-once: every remaining chunk now. */
  all() {
    clearTimeout(this.#timer);
    const wasDone = this.done;
    while (!this.done) this.#onChunk(this.#chunks[this.#i++]);
    if (!wasDone) this.#onEnd();
  }
  stop() {
    this.paused = true;
    clearTimeout(this.#timer);
  }
}
