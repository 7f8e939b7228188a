// `parse`'s progress bar on stderr: drawn only when stderr is a terminal and the output goes
// to a file or pipe (the bar shares the terminal with nothing), first after 300 ms, then at
// most every 100 ms; erased before the summary.

const FIRST_DRAW_AFTER_MS = 300;
const REDRAW_EVERY_MS = 100;
const WIDTH = 30;

export class Progress {
  #enabled;
  #total;
  #started = performance.now();
  #lastDraw = null;
  #drawn = false;

  /**
   * @param {boolean} enabled
   * @param {number | null} total the input's size in bytes, when known (a file)
   */
  constructor(enabled, total) {
    this.#enabled = enabled;
    this.#total = total;
  }

  /** Draws `bytes` read and `lines` parsed, when it is time to. */
  update(bytes, lines) {
    if (!this.#enabled) return;
    const now = performance.now();
    const elapsed = now - this.#started;
    if (elapsed < FIRST_DRAW_AFTER_MS || (this.#lastDraw !== null && now - this.#lastDraw < REDRAW_EVERY_MS)) return;
    this.#lastDraw = now;
    this.#drawn = true;
    const mbps = (bytes / Math.max(elapsed / 1000, 1e-9) / 1e6).toFixed(1);
    const mb = (bytes / 1e6).toFixed(1);
    let line = `${mb} MB  ${lines} lines  ${mbps} MB/s`;
    const total = this.#total;
    if (total) {
      const done = Math.floor((Math.min(bytes, total) * WIDTH) / total);
      const pct = String(Math.floor((Math.min(bytes, total) * 100) / total)).padStart(3);
      line = `[${"#".repeat(done)}${"-".repeat(WIDTH - done)}] ${pct}%  ${mb}/${(total / 1e6).toFixed(1)} MB  ${lines} lines  ${mbps} MB/s`;
    }
    process.stderr.write(`\r\x1b[2K${line}`);
  }

  /** Erases the bar, if it was drawn. */
  clear() {
    if (!this.#drawn) return;
    process.stderr.write("\r\x1b[2K");
    this.#drawn = false;
  }
}
