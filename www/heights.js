// Row heights and their running sums, for the windowed list (virtual.js): where row i starts,
// which row holds a given offset, and the height of them all. A Fenwick tree answers each in
// O(log n), and takes a changed height, or a row appended or dropped at the end (a streaming
// run), in O(log n) too. A row inserted or removed k rows before the end costs O(k log n) (a
// tail the builder replaced); further up, the heights move in one copy and the sums are made
// again once, at the next question: a frame that inserts or removes many rows in the middle
// (a rebuild's slice, late answers) pays O(n) once, not once per row.

export class Heights {
  #n = 0;
  #h = new Float64Array(16); // each row's height; rows from #n on are 0
  #tree = new Float64Array(17); // 1-based: #tree[k] sums rows k - lowbit(k) … k - 1
  #stale = false; // #tree is out of date with #h: made again at the next question

  get length() {
    return this.#n;
  }

  /** The height of every row together. */
  get total() {
    return this.start(this.#n);
  }

  get(i) {
    return this.#h[i];
  }

  /** Replaces every row: `n` rows, row i `heightOf(i)` high. O(n). */
  reset(n, heightOf) {
    let cap = 16;
    while (cap < n) cap *= 2;
    this.#h = new Float64Array(cap);
    for (let i = 0; i < n; i++) this.#h[i] = heightOf(i);
    this.#n = n;
    this.#stale = true;
  }

  set(i, height) {
    this.#add(i, height - this.#h[i]);
  }

  push(height) {
    if (this.#n === this.#h.length) {
      const grown = new Float64Array(this.#h.length * 2);
      grown.set(this.#h);
      this.#h = grown;
      this.#stale = true;
    }
    this.#add(this.#n++, height);
  }

  pop() {
    this.#add(--this.#n, -this.#h[this.#n]);
  }

  /**
   * A row at `i`, shifting the rows after it: O((n − i) log n) near the end (a replaced tail),
   * at most O(n).
   */
  insert(i, height) {
    this.push(0);
    if (this.#nearEnd(i)) {
      for (let j = this.#n - 1; j > i; j--) this.set(j, this.#h[j - 1]);
      this.set(i, height);
      return;
    }
    this.#h.copyWithin(i + 1, i, this.#n - 1);
    this.#h[i] = height;
    this.#stale = true;
  }

  /** Drops row `i`, shifting the rows after it up: as insert, cheap near the end. */
  remove(i) {
    if (this.#nearEnd(i)) {
      for (let j = i; j < this.#n - 1; j++) this.set(j, this.#h[j + 1]);
      this.pop();
      return;
    }
    this.#h.copyWithin(i, i + 1, this.#n);
    this.#h[--this.#n] = 0;
    this.#stale = true;
  }

  /** Where row `i` starts: the sum of the rows before it (i = length: the total). */
  start(i) {
    this.#fresh();
    let sum = 0;
    for (let k = i; k > 0; k -= k & -k) sum += this.#tree[k];
    return sum;
  }

  /** The row that holds offset `y` (the first or last row for offsets outside). */
  indexAt(y) {
    if (this.#n === 0) return 0;
    this.#fresh();
    let pos = 0;
    let rest = y;
    for (let step = this.#h.length; step > 0; step >>= 1) {
      const k = pos + step;
      if (k <= this.#h.length && this.#tree[k] <= rest) {
        pos = k;
        rest -= this.#tree[k];
      }
    }
    return Math.min(pos, this.#n - 1);
  }

  /** Whether shifting the rows after `i` one by one beats rebuilding every sum. */
  #nearEnd(i) {
    return !this.#stale && (this.#n - i) * Math.log2(this.#h.length) < this.#n;
  }

  #add(i, delta) {
    this.#h[i] += delta;
    if (this.#stale) return; // the sums are made again before the next question
    for (let k = i + 1; k <= this.#h.length; k += k & -k) this.#tree[k] += delta;
  }

  #fresh() {
    if (!this.#stale) return;
    this.#stale = false;
    this.#rebuild();
  }

  #rebuild() {
    const cap = this.#h.length;
    this.#tree = new Float64Array(cap + 1);
    for (let k = 1; k <= cap; k++) {
      this.#tree[k] += this.#h[k - 1];
      const up = k + (k & -k);
      if (up <= cap) this.#tree[up] += this.#tree[k];
    }
  }
}
