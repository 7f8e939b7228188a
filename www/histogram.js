// Percentiles of the per-line times the diagnostics show, without sorting every time seen so far
// at each refresh (100,000 lines made that ~10 ms, four times a second): each time is counted in
// one of a fixed set of buckets, 1 % wide on a log scale, and a percentile walks the buckets. It
// reads at most 1 % high, which the two or three digits on screen hardly show; the maximum is
// kept exactly.

const MIN_MS = 0.001; // everything below counts as the first bucket
const RATIO = 1.01; // each bucket's upper edge is 1 % above the previous one's
const BUCKETS = Math.ceil(Math.log(1e5 / MIN_MS) / Math.log(RATIO)) + 1; // up to 100 s

export class TimeHistogram {
  #counts = new Uint32Array(BUCKETS);
  count = 0;
  max = NaN; // NaN until a time is added, as a percentile of nothing

  add(ms) {
    const k = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / Math.log(RATIO)));
    this.#counts[k] += 1;
    this.count += 1;
    if (!(ms <= this.max)) this.max = ms;
  }

  /** The p-th percentile (the time at rank ⌈p·n/100⌉), as its bucket's upper edge; NaN when empty. */
  percentile(p) {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let k = 0; k < BUCKETS; k++) {
      seen += this.#counts[k];
      if (seen >= rank) return Math.min(k === 0 ? 0 : MIN_MS * RATIO ** k, this.max);
    }
    return this.max;
  }
}
