// A windowed list: of a list of rows that may run to 100,000, only the rows near the scroller's
// viewport are in the DOM; the root's padding stands in for the rows above and below, so the
// scrollbar still spans them all. The DOM stays the same size whatever the run's length, and a
// frame builds at most the rows that came into view.
//
// Heights: a row that has been on screen is measured (its border box, so rows must not carry
// margins); the others count as the average measured height of their kind (a card, a message, a
// log line), learnt as rows are measured. What the reader sees stays put when rows above the
// viewport turn out taller or shorter than their estimate, or when rows are inserted or removed
// above it: the list keeps an anchor (the row at the top of the viewport and how far into it) and
// puts the scroll position back on it after every change. `follow`, or a reader at the bottom,
// keeps the last row in view instead.
//
// The owner keeps the rows' data and tells the list what happened to them: `reset(n)`,
// `insert(i)`, `remove(i)`, `truncate(n)`, `changed(key)`; then `draw()`. A change costs O(log n)
// for a row at the end, O(k log n) for one k rows before it and never more than O(n) (Heights);
// a draw costs O(rows in view). The list draws itself again when the reader scrolls, resizes the
// pane, or opens or closes a <details> in it.
import { Heights } from "./heights.js";

/** The events that are the reader's own hand on a scroller (what they do next is their scroll). */
export const READER_EVENTS = ["wheel", "touchmove", "keydown", "pointerdown"];

const MAX_PASSES = 4; // measure → re-window rounds per draw; two are almost always enough

export class VirtualList {
  #root;
  #scroller;
  #key; // (i) => the key of row i (an element is kept per key)
  #build; // (i) => the element of row i
  #kind; // (i) => rows of one kind share a height estimate
  #maxRows;
  #heights = new Heights();
  #rendered = new Map(); // key -> { el, dirty: rebuild it, fresh: not measured yet }
  #window = [0, 0]; // rows [start, end) in the DOM
  #windowHolds = false; // no row was inserted or removed before the window's end since it was placed
  #anchor = null; // { i, off }: the viewport's top is `off` px into row i; null: take scrollTop
  #atEnd = false; // the reader is at the bottom: rows measured or added keep the end in view
  // At the bottom, but not following: a wheel turned up whose scroll has not moved the view yet,
  // or a reset that left fewer rows under a reader above the end (the pane clamps to the bottom).
  #leavingEnd = false;
  #learnt = new Map(); // kind -> { sum, n } of measured heights
  #defaultHeight;
  #rootTop = 0; // the root's top in the scroller's content
  #ownScrollTop = null; // the scroll position draw() last set: its scroll event needs no draw
  #clampedTop = null; // where draw() last left the scroller clamped short of the anchor row, or null
  #queued = false;
  #trace = []; // the last anchor changes, for a test that finds the reader's place moved
  #lastDraw = null; // where the last draw off the end wanted the view and where the scroller went

  constructor(root, scroller, { key, build, kind = () => "", defaultHeight = 40, maxRows = 400 }) {
    this.#root = root;
    this.#scroller = scroller;
    this.#key = key;
    this.#build = build;
    this.#kind = kind;
    this.#defaultHeight = defaultHeight;
    this.#maxRows = maxRows;
    scroller.addEventListener(
      "scroll",
      () => {
        // (No layout read here: the shared pane scrolls for the hidden list too.)
        if (this.#root.hidden || scroller.scrollTop === this.#ownScrollTop) return;
        this.#anchorFromScroll();
        this.schedule();
      },
      { passive: true },
    );
    // A wheel turned up leaves the end at once: a smooth scroll (Firefox's) moves the view only
    // frames later, and a draw in between that found the view still at the bottom kept it there.
    scroller.addEventListener(
      "wheel",
      (e) => {
        if (e.deltaY >= 0 || this.#root.hidden) return;
        this.#atEnd = false;
        this.#leavingEnd = true;
      },
      { passive: true },
    );
    // A card or thinking block opened or closed changes its row's height; it grows downwards,
    // even at the bottom of the list.
    root.addEventListener(
      "toggle",
      () => {
        this.#atEnd = false;
        this.schedule();
      },
      true,
    );
    new ResizeObserver(() => this.schedule()).observe(scroller);
  }

  get length() {
    return this.#heights.length;
  }

  /**
   * The last few changes of the anchor, oldest first, each with why, and the last draw off the
   * end (the view's wanted and actual scroll position, the rows in the DOM): what a failing test
   * prints.
   */
  anchorTrace() {
    return { changes: [...this.#trace], lastDraw: this.#lastDraw };
  }

  /** Sets the anchor and keeps why (`scrollTop` when it came from one: no layout read here). */
  #setAnchor(anchor, why, scrollTop) {
    this.#anchor = anchor;
    this.#trace.push({ why, ...anchor, row: this.#key(anchor.i), scrollTop });
    if (this.#trace.length > 24) this.#trace.shift();
  }

  /**
   * `n` rows, all new: every element goes; the scroll position is kept as it is. `keepPlace`: the
   * reader is above the end, and fewer rows that leave the pane at the bottom do not make it
   * follow (the owner may find the reader's row again with `placeAt`).
   */
  reset(n, { keepPlace = false } = {}) {
    this.#heights.reset(n, (i) => this.#estimate(i));
    this.#rendered.clear();
    this.#root.replaceChildren();
    this.#window = [0, 0];
    this.#windowHolds = false;
    this.#anchor = null;
    if (keepPlace) {
      this.#atEnd = false;
      this.#leavingEnd = true;
    }
  }

  /** The row at the viewport's top and how far into it (px), or null when the view keeps the end. */
  place() {
    return this.#atEnd || this.#anchor === null ? null : { ...this.#anchor };
  }

  /** At the next draw, row `i` sits `off` px above the viewport's top (a reader's place, found again). */
  placeAt(i, off) {
    this.#setAnchor({ i: Math.max(0, Math.min(i, this.length - 1)), off }, "placeAt");
    this.#atEnd = false;
    this.schedule();
  }

  /** A new row at `i` (the rows from i on move down one). */
  insert(i) {
    this.#heights.insert(i, this.#estimate(i));
    if (i < this.#window[1]) this.#windowHolds = false;
    const r = this.#rendered.get(this.#key(i));
    if (r) r.dirty = true; // a key that comes back may carry other content
    if (this.#anchor && i <= this.#anchor.i && this.#anchor.i < this.length - 1) this.#anchor.i++;
  }

  /**
   * Many rows inserted and removed at once (a rebuild's slice, late answers): new row i was row
   * `from[i]`, or is new where that is -1. The rows kept keep their heights; O(n) once instead
   * of once per row.
   */
  reorder(from) {
    const old = this.#heights;
    const heights = new Heights();
    heights.reset(from.length, (i) => (from[i] >= 0 ? old.get(from[i]) : this.#estimate(i)));
    this.#heights = heights;
    this.#windowHolds = false;
    for (let i = 0; i < from.length; i++) {
      if (from[i] >= 0) continue;
      const r = this.#rendered.get(this.#key(i));
      if (r) r.dirty = true; // a key that comes back may carry other content
    }
    if (this.#anchor) {
      // The anchor row, or the first kept row after it when it is gone.
      const was = this.#anchor.i;
      let i = from.findIndex((f) => f >= was);
      if (i < 0) i = Math.max(0, from.length - 1);
      this.#setAnchor({ i, off: from[i] === was ? this.#anchor.off : 0 }, "reorder");
    }
  }

  /** Row `i` is gone (its element leaves at the next draw). */
  remove(i) {
    this.#heights.remove(i);
    if (i < this.#window[1]) this.#windowHolds = false;
    if (this.#anchor && i < this.#anchor.i) this.#anchor.i--;
    else if (this.#anchor?.i === i) this.#anchor.off = 0;
  }

  /** Keeps the first `n` rows. */
  truncate(n) {
    if (n < this.#window[1]) this.#windowHolds = false;
    while (this.length > n) this.#heights.pop();
  }

  /** The row with this key has new content: rebuilt at the next draw if it is in the DOM. */
  changed(key) {
    const r = this.#rendered.get(key);
    if (r) r.dirty = true;
  }

  /** Draws at the next frame (a scroll, a resize, a toggle). */
  schedule() {
    if (this.#queued) return;
    this.#queued = true;
    requestAnimationFrame(() => {
      this.#queued = false;
      this.draw();
    });
  }

  /**
   * Brings the DOM in line with the rows and the scroll position: the rows in view and a
   * margin either side, measured, with the anchor row back where it was (or, with `follow` or
   * when the reader is at the bottom, the last row at the bottom).
   */
  draw({ follow = false } = {}) {
    if (!this.#shown()) return;
    follow ||= this.#atEnd;
    const scroller = this.#scroller;
    const viewH = scroller.clientHeight;
    const margin = Math.max(200, viewH * 0.75);
    this.#rootTop = this.#root.getBoundingClientRect().top - scroller.getBoundingClientRect().top - scroller.clientTop + scroller.scrollTop;
    if (!follow) {
      if (this.#anchor === null) this.#anchorFromScroll();
      this.#anchorOnDrawnRow(viewH);
    }
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const top = follow ? this.#heights.total - viewH : this.#anchorY();
      const [start, end] = this.#keep(top, viewH, margin, follow) ?? this.#range(top - margin, top + viewH + margin, follow);
      const moved = start !== this.#window[0] || end !== this.#window[1];
      if (pass > 0 && !moved) break;
      this.#place(start, end);
      if (!this.#measure(start, end) && !moved) break;
    }
    let clamped = false;
    let onAnchor = false;
    if (follow) scroller.scrollTop = scroller.scrollHeight;
    else {
      // Browsers scroll by whole pixels (Chromium and Firefox round a position they are given,
      // WebKit truncates it): the view goes to the nearest whole pixel whenever it is more than
      // half a pixel from its place. (Left up to a pixel off, a wheel step's move plus the float
      // error of a tall list's layout read was more than a pixel.)
      const want = this.#rootTop + this.#anchorY();
      if (Math.abs(scroller.scrollTop - want) > 0.5) scroller.scrollTop = Math.round(want);
      // Too few rows below the reader's row to put it at the top (a rebuild's first slices, or
      // rows taken away at the end): the pane clamps to the bottom. The reader's place is still
      // their row, not whatever the clamp shows, and the clamp does not make the list follow.
      clamped = want - scroller.scrollTop >= 1;
      // Browsers scroll by whole pixels and rows are laid out in fractions: the scroller sits
      // within a pixel of the anchor. The anchor stays the exact place; taken back from the
      // rounded scroll position, it would lose the fraction at every draw and the reader's row
      // would creep down the screen by the sum of them.
      onAnchor = Math.abs(want - scroller.scrollTop) < 1 && this.#anchor.i < this.length;
      this.#lastDraw = { anchor: { ...this.#anchor }, want, scrollTop: scroller.scrollTop, clamped, window: [...this.#window] };
    }
    this.#ownScrollTop = scroller.scrollTop;
    this.#clampedTop = clamped ? scroller.scrollTop : null;
    if (!clamped) this.#anchorFromScroll({ keepAnchor: onAnchor });
  }

  /**
   * The scroller is where the last draw left it, clamped to the bottom short of the reader's row
   * (too few rows below it): a scroll event there is the page's, not the reader's.
   */
  clampedHere() {
    return this.#clampedTop !== null && Math.abs(this.#scroller.scrollTop - this.#clampedTop) < 1;
  }

  #shown() {
    return !this.#root.hidden && this.#scroller.clientHeight > 0;
  }

  #estimate(i) {
    const l = this.#learnt.get(this.#kind(i));
    return l ? l.sum / l.n : this.#defaultHeight;
  }

  /** Whether the reader is at the end, and (unless `keepAnchor`) the anchor, from the scroll position. */
  #anchorFromScroll({ keepAnchor = false } = {}) {
    const scroller = this.#scroller;
    const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1;
    // Until the wheel's scroll has moved the view off the bottom, the reader is leaving it.
    if (!atBottom) this.#leavingEnd = false;
    this.#atEnd = atBottom && !this.#leavingEnd;
    if (keepAnchor) return;
    const scrollTop = scroller.scrollTop;
    const y = scrollTop - this.#rootTop;
    // Browsers scroll by whole pixels: a row that starts less than a pixel below the scroll
    // position is the reader's top row (the draw put it there, and the browser rounded the
    // position down). Anchored on the row
    // above instead, the reader's row would move by however much that row's height changes.
    let i = this.#heights.indexAt(y);
    if (i + 1 < this.length && this.#heights.start(i + 1) - y < 1) i++;
    this.#setAnchor({ i, off: y - this.#heights.start(i) }, "scroll", scrollTop);
  }

  /**
   * A reader who scrolled up past the rows in the DOM sees, for a frame, blank space above the
   * rows that were drawn. The row at the top is then only an estimate, and the rows that were on
   * screen would move by however wrong it was: anchor on the first drawn row instead.
   */
  #anchorOnDrawnRow(viewH) {
    const [start, end] = this.#window;
    if (!this.#windowHolds || start >= end) return;
    const y = this.#anchorY();
    const top = this.#heights.start(start);
    if (y < top && top < y + viewH) this.#setAnchor({ i: start, off: y - top }, "drawn row");
  }

  #anchorY() {
    const { i, off } = this.#anchor;
    return this.#heights.start(Math.min(i, this.length)) + off;
  }

  /**
   * The current window, if it still does: it covers the viewport and half the margin either side,
   * is no taller than the viewport and three margins, and (following) takes in the rows appended
   * since. Keeping it spares the DOM a row in and a row out at every small scroll or append.
   */
  #keep(top, viewH, margin, follow) {
    const n = this.length;
    const end = follow ? n : Math.min(this.#window[1], n);
    const start = Math.min(this.#window[0], end);
    const from = this.#heights.start(start);
    const to = this.#heights.start(end);
    const covers = from <= Math.max(0, top - margin / 2) && to >= Math.min(this.#heights.total, top + viewH + margin / 2);
    const small = to - from <= viewH + 3 * margin && end - start <= this.#maxRows;
    return covers && small ? [start, end] : null;
  }

  /** The rows that cover [from, to) in list coordinates, at most maxRows of them. */
  #range(from, to, keepEnd) {
    const n = this.length;
    if (n === 0) return [0, 0];
    let start = this.#heights.indexAt(Math.max(0, from));
    let end = keepEnd ? n : Math.min(n, this.#heights.indexAt(to) + 1);
    if (end - start > this.#maxRows) {
      if (keepEnd) start = end - this.#maxRows;
      else end = start + this.#maxRows;
    }
    return [start, end];
  }

  /** Puts rows [start, end) in the DOM, in order, reusing the elements already there. */
  #place(start, end) {
    const root = this.#root;
    const wanted = new Set();
    for (let i = start; i < end; i++) wanted.add(this.#key(i));
    for (const [key, r] of this.#rendered) {
      if (!wanted.has(key)) {
        r.el.remove();
        this.#rendered.delete(key);
      }
    }
    let cursor = root.firstChild;
    for (let i = start; i < end; i++) {
      const key = this.#key(i);
      let r = this.#rendered.get(key);
      if (!r) {
        r = { el: this.#build(i), dirty: false, fresh: true };
        this.#rendered.set(key, r);
      } else if (r.dirty) {
        const el = this.#build(i);
        if (r.el === cursor) cursor = el;
        if (r.el.parentNode === root) root.replaceChild(el, r.el);
        r.el = el;
        r.dirty = false;
        r.fresh = true;
      }
      if (r.el === cursor) cursor = cursor.nextSibling;
      else root.insertBefore(r.el, cursor);
    }
    this.#window = [start, end];
    this.#windowHolds = true;
    root.style.paddingTop = `${this.#heights.start(start)}px`;
    root.style.paddingBottom = `${this.#heights.total - this.#heights.start(end)}px`;
  }

  /**
   * Reads the height of every row in the DOM (one layout) and keeps it; a row measured for the
   * first time teaches its kind's estimate. Only rows inside the window change, so the padding
   * above and below (the rows outside) stays right. Returns whether any height changed.
   */
  #measure(start, end) {
    let changed = false;
    for (let i = start; i < end; i++) {
      const r = this.#rendered.get(this.#key(i));
      const h = r.el.getBoundingClientRect().height; // fractional: rounded heights would drift over many rows
      if (r.fresh) {
        r.fresh = false;
        const kind = this.#kind(i);
        const l = this.#learnt.get(kind) ?? { sum: 0, n: 0 };
        l.sum += h;
        l.n += 1;
        this.#learnt.set(kind, l);
      }
      if (h !== this.#heights.get(i)) {
        this.#heights.set(i, h);
        changed = true;
      }
    }
    return changed;
  }
}
