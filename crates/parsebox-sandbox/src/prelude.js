// parsebox realm prelude: runs once in every fresh realm, before the parser's module.
// Trusted code. It removes host reach, pins Math.random, adds a capturing no-op console, and
// replaces the built-ins that loop or call back natively with versions whose loops are
// bytecode (under the per-call budget) or whose sizes are capped. Placeholders `@NAME@` are
// filled in by the host.
// The prelude is evaluated as four scripts, split at `//@piece` lines, each parsed and
// compiled before the next: a realm's load then never holds the whole prelude's syntax tree
// at once (in an engine instance, whose memory never shrinks, that peak is what it keeps).
// Later pieces take the first's helpers from `__parsebox_h`, which the host deletes before
// any parser code runs.
(function (G, screen, jsonParse, guardedExec, slots, take, createData) {
  "use strict";
  var MAX_ELEMENTS = @MAX_ELEMENTS@;
  var MAX_STRING = @MAX_STRING@;
  var MAX_DEPTH = @MAX_DEPTH@;
  var MAX_NODES = @MAX_NODES@;

  var O = Object, A = Array, S = String, M = Math, J = JSON, R = RegExp, Sym = Symbol;
  var defineProperty = O.defineProperty, freeze = O.freeze, keys = O.keys;
  var getPrototypeOf = O.getPrototypeOf, isExtensible = O.isExtensible;
  var isArray = A.isArray, floor = M.floor, abs = M.abs, imul = M.imul;
  var AP = A.prototype, SP = S.prototype, RP = R.prototype;
  var fcall = Function.prototype.call;
  // uncurry(f)(thisArg, ...args) calls a captured native without touching guest-visible `call`.
  function uncurry(f) { return fcall.bind(f); }
  var nativeFill = uncurry(AP.fill), nativeIncludes = uncurry(AP.includes);
  var nativeIndexOf = uncurry(AP.indexOf), nativeLastIndexOf = uncurry(AP.lastIndexOf);
  var nativeJoin = uncurry(AP.join), nativeSort = uncurry(AP.sort);
  var nativeRepeat = uncurry(SP.repeat), nativePadStart = uncurry(SP.padStart);
  var nativePadEnd = uncurry(SP.padEnd), nativeSlice = uncurry(SP.slice);
  var nativeStrIndexOf = uncurry(SP.indexOf), nativeReplace = uncurry(SP.replace);
  var nativeReplaceAll = uncurry(SP.replaceAll), nativeMatch = uncurry(SP.match);
  var nativeMatchAll = uncurry(SP.matchAll), nativeSearch = uncurry(SP.search);
  var nativeFlags = uncurry(O.getOwnPropertyDescriptor(RP, "flags").get);
  var nativeSource = uncurry(O.getOwnPropertyDescriptor(RP, "source").get);
  var nativeJsonParse = J.parse;
  var SymIterator = Sym.iterator, SymReplace = Sym.replace;
  var nativeRegExpReplace = RP[SymReplace];
  var TMP = Sym("parsebox.this");
  var construct = Reflect.construct, deleteProperty = Reflect.deleteProperty;

  function method(obj, name, fn, length) {
    defineProperty(fn, "name", { __proto__: null, value: name, configurable: true });
    defineProperty(fn, "length", { __proto__: null, value: length, configurable: true });
    defineProperty(obj, name, { __proto__: null, value: fn, writable: true, enumerable: false, configurable: true });
  }
  function cap(n, max, what) {
    if (n > max) throw new RangeError("parsebox: " + what + " of " + n + " exceeds the sandbox limit of " + max);
  }
  function toObject(v, what) {
    if (v === null || v === undefined) throw new TypeError(what + " called on null or undefined");
    return O(v);
  }
  function toIntegerOrInfinity(v) {
    v = +v;
    if (v !== v || v === 0) return 0;
    if (v === Infinity || v === -Infinity) return v;
    return v < 0 ? -floor(-v) : floor(v);
  }
  function toLength(v) {
    v = toIntegerOrInfinity(v);
    return v <= 0 ? 0 : v > 9007199254740991 ? 9007199254740991 : v;
  }
  function callable(f, what) {
    if (typeof f !== "function") throw new TypeError(what + " is not a function");
  }
  // Calls fn with `this` = thisv from bytecode (so the call stays under the budget): a direct
  // call when thisv is undefined, a temporary symbol-keyed method on an extensible object
  // otherwise, and a native call as the last resort.
  function callThis(fn, thisv, a, b, c) {
    if (thisv === undefined) return fn(a, b, c);
    if ((typeof thisv === "object" && thisv !== null || typeof thisv === "function") && isExtensible(thisv)) {
      defineProperty(thisv, TMP, { __proto__: null, value: fn, writable: true, configurable: true });
      try { return thisv[TMP](a, b, c); } finally { delete thisv[TMP]; }
    }
    return fcall.call(fn, thisv, a, b, c);
  }

  // ---- host reach and non-determinism -------------------------------------------------------
  ["SharedArrayBuffer", "Atomics", "WeakRef", "FinalizationRegistry", "WebAssembly"].forEach(function (k) {
    delete G[k];
  });

  // Math.random: mulberry32 seeded with 0x5EED, fresh for every run (every run is a new realm).
  var seed = 0x5eed;
  method(M, "random", function random() {
    var a = seed | 0;
    a = (a + 0x6d2b79f5) | 0;
    seed = a;
    var t = imul(a ^ (a >>> 15), 1 | a);
    t = (t + imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }, 0);

  // Date: boa's clock is pinned by the host. The constructor is native (date_constructor.rs):
  // `new Date(text)` and `Date.parse` read a date string as V8 reads it (date_parse.rs; boa
  // refuses forms real parsers meet, such as six fractional digits, Python's isoformat), and
  // `Date()`, `toString` and `toTimeString` end with V8's zone name under TZ=UTC. It gets boa's
  // other static methods here.
  var OrigDate = Date, DP = OrigDate.prototype;
  var DateW = __parsebox_date;
  O.getOwnPropertyNames(OrigDate).forEach(function (k) {
    if (k !== "prototype" && k !== "name" && k !== "length" && k !== "parse") defineProperty(DateW, k, O.getOwnPropertyDescriptor(OrigDate, k));
  });
  defineProperty(DateW, "prototype", { __proto__: null, value: DP });
  defineProperty(DateW, "length", { __proto__: null, value: 7, configurable: true });
  defineProperty(DP, "constructor", { __proto__: null, value: DateW, writable: true, configurable: true });
  defineProperty(G, "Date", { __proto__: null, value: DateW, writable: true, enumerable: false, configurable: true });

  // console: a no-op that counts calls and keeps the first few string messages.
  var P = { __proto__: null, consoleCalls: 0, consoleMessages: [] };
  var con = {};
  ["log", "info", "warn", "error", "debug", "trace", "dir", "table", "group", "groupEnd", "time", "timeEnd", "assert", "count"].forEach(function (k) {
    method(con, k, function () {
      P.consoleCalls++;
      if (P.consoleMessages.length < 20 && typeof arguments[0] === "string") {
        var m = arguments[0];
        P.consoleMessages[P.consoleMessages.length] = m.length > 200 ? nativeSlice(m, 0, 200) : m;
      }
    }, 0);
  });
  defineProperty(G, "console", { __proto__: null, value: con, writable: true, enumerable: false, configurable: true });

  // Without the bounded built-ins, revivers run through the native JSON.parse.
  var reviveWith = function (holder, name, reviver) { return nativeJsonParse(J.stringify(holder[name]), reviver); };
  // The helpers the next pieces share, on a global the host deletes before the parser runs.
  defineProperty(G, "__parsebox_h", { __proto__: null, value: {
    __proto__: null, A: A, AP: AP, G: G, J: J, M: M, MAX_DEPTH: MAX_DEPTH,
    MAX_ELEMENTS: MAX_ELEMENTS, MAX_NODES: MAX_NODES, MAX_STRING: MAX_STRING, O: O, P: P, R: R,
    RP: RP, S: S, SP: SP, Sym: Sym, SymIterator: SymIterator, SymReplace: SymReplace, TMP: TMP,
    callThis: callThis, callable: callable, cap: cap, construct: construct,
    createData: createData, defineProperty: defineProperty, deleteProperty: deleteProperty, freeze: freeze,
    guardedExec: guardedExec, isArray: isArray, isExtensible: isExtensible,
    jsonParse: jsonParse, keys: keys, method: method, nativeFill: nativeFill,
    nativeFlags: nativeFlags, nativeIncludes: nativeIncludes, nativeIndexOf: nativeIndexOf,
    nativeJoin: nativeJoin, nativeLastIndexOf: nativeLastIndexOf, nativeMatch: nativeMatch,
    nativeMatchAll: nativeMatchAll, nativePadEnd: nativePadEnd, nativePadStart: nativePadStart,
    nativeRegExpReplace: nativeRegExpReplace, nativeRepeat: nativeRepeat,
    nativeReplace: nativeReplace, nativeReplaceAll: nativeReplaceAll, nativeSearch: nativeSearch,
    nativeSlice: nativeSlice, nativeSort: nativeSort, nativeSource: nativeSource,
    nativeStrIndexOf: nativeStrIndexOf, reviveWith: reviveWith, screen: screen, slots: slots,
    take: take, toIntegerOrInfinity: toIntegerOrInfinity, toLength: toLength, toObject: toObject
  }, configurable: true });
})(globalThis, __parsebox_screen, __parsebox_json, __parsebox_exec, __parsebox_slots, __parsebox_take,
  __parsebox_create_data);
//@piece
(function (H) {
  "use strict";
  var A = H.A, AP = H.AP, MAX_ELEMENTS = H.MAX_ELEMENTS, O = H.O, S = H.S;
  var SymIterator = H.SymIterator, callThis = H.callThis, callable = H.callable, cap = H.cap;
  var isArray = H.isArray, method = H.method, nativeSort = H.nativeSort, toLength = H.toLength;
  var toObject = H.toObject, slots = H.slots, take = H.take;
  // Benchmarks can switch the bounded built-ins off (SandboxOptions::bounded_builtins).
  if (@BOUNDED@) {
  // ---- array built-ins with callbacks: bytecode loops --------------------------------------
  method(AP, "forEach", function forEach(fn, thisArg) {
    var o = toObject(this, "Array.prototype.forEach"), len = toLength(o.length);
    callable(fn, "forEach callback");
    for (var k = 0; k < len; k++) if (k in o) { var v = o[k]; if (thisArg === undefined) fn(v, k, o); else callThis(fn, thisArg, v, k, o); }
  }, 1);
  method(AP, "map", function map(fn, thisArg) {
    var o = toObject(this, "Array.prototype.map"), len = toLength(o.length);
    callable(fn, "map callback");
    cap(len, MAX_ELEMENTS, "Array.prototype.map length");
    // `slots(len)`: an array of `len` undefineds, stored densely, so `out[k] = …` writes in
    // place (boa's fast path) instead of defining a new element each time. Nothing sees `out`
    // before it is returned; a hole of `o` is made a hole of `out` at the end.
    var out = slots(len), gaps = null;
    for (var k = 0; k < len; k++) {
      if (k in o) { var v = o[k]; out[k] = thisArg === undefined ? fn(v, k, o) : callThis(fn, thisArg, v, k, o); }
      else { if (!gaps) gaps = []; gaps[gaps.length] = k; }
    }
    if (gaps) for (var g = 0; g < gaps.length; g++) delete out[gaps[g]];
    return out;
  }, 1);
  method(AP, "filter", function filter(fn, thisArg) {
    var o = toObject(this, "Array.prototype.filter"), len = toLength(o.length);
    callable(fn, "filter callback");
    // As map: written in place in `len` slots, then cut to what was kept.
    var dense = len <= MAX_ELEMENTS, out = dense ? slots(len) : [], n = 0;
    for (var k = 0; k < len; k++) if (k in o) { var v = o[k]; if (thisArg === undefined ? fn(v, k, o) : callThis(fn, thisArg, v, k, o)) out[n++] = v; }
    // The first n slots as a new array (`out.length = n` goes through boa 0.22's inline cache
    // from the second call on, which leaves the elements past n: `Object.keys`, `k in out`).
    return dense && n < len ? take(out, n) : out;
  }, 1);
  function finder(name, fromEnd, wantIndex) {
    method(AP, name, function (fn, thisArg) {
      var o = toObject(this, "Array.prototype." + name), len = toLength(o.length);
      callable(fn, name + " callback");
      for (var i = 0; i < len; i++) {
        var k = fromEnd ? len - 1 - i : i, v = o[k];
        if (thisArg === undefined ? fn(v, k, o) : callThis(fn, thisArg, v, k, o)) return wantIndex ? k : v;
      }
      return wantIndex ? -1 : undefined;
    }, 1);
  }
  finder("find", false, false); finder("findIndex", false, true);
  finder("findLast", true, false); finder("findLastIndex", true, true);
  method(AP, "some", function some(fn, thisArg) {
    var o = toObject(this, "Array.prototype.some"), len = toLength(o.length);
    callable(fn, "some callback");
    for (var k = 0; k < len; k++) if (k in o) { var v = o[k]; if (thisArg === undefined ? fn(v, k, o) : callThis(fn, thisArg, v, k, o)) return true; }
    return false;
  }, 1);
  method(AP, "every", function every(fn, thisArg) {
    var o = toObject(this, "Array.prototype.every"), len = toLength(o.length);
    callable(fn, "every callback");
    for (var k = 0; k < len; k++) if (k in o) { var v = o[k]; if (!(thisArg === undefined ? fn(v, k, o) : callThis(fn, thisArg, v, k, o))) return false; }
    return true;
  }, 1);
  function reducer(name, fromEnd) {
    method(AP, name, function (fn) {
      var o = toObject(this, "Array.prototype." + name), len = toLength(o.length);
      callable(fn, name + " callback");
      var i = 0, acc, have = arguments.length >= 2;
      if (have) acc = arguments[1];
      for (; i < len; i++) {
        var k = fromEnd ? len - 1 - i : i;
        if (!(k in o)) continue;
        if (!have) { acc = o[k]; have = true; continue; }
        acc = fn(acc, o[k], k, o);
      }
      if (!have) throw new TypeError("Reduce of empty array with no initial value");
      return acc;
    }, 1);
  }
  reducer("reduce", false); reducer("reduceRight", true);
  method(AP, "flatMap", function flatMap(fn, thisArg) {
    var o = toObject(this, "Array.prototype.flatMap"), len = toLength(o.length);
    callable(fn, "flatMap callback");
    var out = [], n = 0;
    for (var k = 0; k < len; k++) {
      if (!(k in o)) continue;
      var v = callThis(fn, thisArg, o[k], k, o);
      if (isArray(v)) { var m = toLength(v.length); for (var j = 0; j < m; j++) if (j in v) out[n++] = v[j]; else n++; }
      else out[n++] = v;
    }
    out.length = n;
    return out;
  }, 1);

  // Stable merge sort with the comparator called from bytecode.
  function sortCompare(cmp, a, b) {
    if (cmp === undefined) { var x = S(a), y = S(b); return x < y ? -1 : x > y ? 1 : 0; }
    var v = +cmp(a, b);
    return v !== v ? 0 : v;
  }
  function mergeSort(items, cmp) {
    var n = items.length, src = items, dst = new A(n);
    for (var width = 1; width < n; width *= 2) {
      for (var lo = 0; lo < n; lo += 2 * width) {
        var mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
        var i = lo, j = mid, k = lo;
        while (i < mid && j < hi) dst[k++] = sortCompare(cmp, src[i], src[j]) <= 0 ? src[i++] : src[j++];
        while (i < mid) dst[k++] = src[i++];
        while (j < hi) dst[k++] = src[j++];
      }
      var t = src; src = dst; dst = t;
    }
    return src;
  }
  function sortInto(o, len, cmp) {
    var items = [], n = 0, undef = 0;
    for (var k = 0; k < len; k++) if (k in o) { var v = o[k]; if (v === undefined) undef++; else items[n++] = v; }
    items = mergeSort(items, cmp);
    var i = 0;
    for (; i < n; i++) o[i] = items[i];
    for (var u = 0; u < undef; u++) o[i++] = undefined;
    for (; i < len; i++) delete o[i];
    return o;
  }
  method(AP, "sort", function sort(cmp) {
    if (cmp !== undefined) callable(cmp, "sort comparator");
    var o = toObject(this, "Array.prototype.sort"), len = toLength(o.length);
    cap(len, MAX_ELEMENTS, "Array.prototype.sort length");
    if (cmp === undefined) return nativeSort(o);
    return sortInto(o, len, cmp);
  }, 1);
  method(AP, "toSorted", function toSorted(cmp) {
    if (cmp !== undefined) callable(cmp, "toSorted comparator");
    var o = toObject(this, "Array.prototype.toSorted"), len = toLength(o.length);
    cap(len, MAX_ELEMENTS, "Array.prototype.toSorted length");
    var copy = new A(len);
    for (var k = 0; k < len; k++) copy[k] = o[k];
    if (cmp === undefined) return nativeSort(copy);
    return sortInto(copy, len, cmp);
  }, 1);

  method(A, "from", function from(items, mapfn, thisArg) {
    var mapping = mapfn !== undefined;
    if (mapping) callable(mapfn, "Array.from map function");
    if (items === null || items === undefined) throw new TypeError(S(items) + " is not iterable");
    var out = this === A || typeof this !== "function" ? [] : new this(), k = 0;
    var iter = items[SymIterator];
    if (iter !== undefined && iter !== null) {
      callable(iter, "Symbol.iterator");
      for (var v of items) { out[k] = mapping ? callThis(mapfn, thisArg, v, k) : v; k++; }
      out.length = k;
      return out;
    }
    var o = O(items), len = toLength(o.length);
    cap(len, MAX_ELEMENTS, "Array.from length");
    for (; k < len; k++) out[k] = mapping ? callThis(mapfn, thisArg, o[k], k) : o[k];
    out.length = len;
    return out;
  }, 1);

  }
})(__parsebox_h);
//@piece
(function (H) {
  "use strict";
  var AP = H.AP, G = H.G, M = H.M, MAX_ELEMENTS = H.MAX_ELEMENTS, MAX_STRING = H.MAX_STRING;
  var O = H.O, R = H.R, RP = H.RP, S = H.S, SP = H.SP, Sym = H.Sym, SymReplace = H.SymReplace;
  var callThis = H.callThis, cap = H.cap, construct = H.construct;
  var defineProperty = H.defineProperty, guardedExec = H.guardedExec, isArray = H.isArray;
  var keys = H.keys, method = H.method, nativeFill = H.nativeFill, nativeFlags = H.nativeFlags;
  var nativeIncludes = H.nativeIncludes, nativeIndexOf = H.nativeIndexOf, nativeJoin = H.nativeJoin;
  var nativeLastIndexOf = H.nativeLastIndexOf, nativeMatch = H.nativeMatch;
  var nativeMatchAll = H.nativeMatchAll, nativePadEnd = H.nativePadEnd;
  var nativePadStart = H.nativePadStart, nativeRegExpReplace = H.nativeRegExpReplace;
  var nativeRepeat = H.nativeRepeat, nativeReplace = H.nativeReplace;
  var nativeReplaceAll = H.nativeReplaceAll, nativeSearch = H.nativeSearch;
  var nativeSlice = H.nativeSlice, nativeSource = H.nativeSource;
  var nativeStrIndexOf = H.nativeStrIndexOf, screen = H.screen;
  var toIntegerOrInfinity = H.toIntegerOrInfinity, toLength = H.toLength, toObject = H.toObject;
  var TMP = H.TMP, createData = H.createData, deleteProperty = H.deleteProperty;
  var isExtensible = H.isExtensible;
  if (@BOUNDED@) {
  // ---- natives that loop without calling back: length caps ---------------------------------
  function capped(obj, name, native, length, what) {
    method(obj, name, function () {
      var o = toObject(this, name), len = toLength(o.length);
      cap(len, MAX_ELEMENTS, what);
      return native(o, arguments[0], arguments[1], arguments[2]);
    }, length);
  }
  capped(AP, "includes", nativeIncludes, 1, "Array.prototype.includes length");
  capped(AP, "indexOf", nativeIndexOf, 1, "Array.prototype.indexOf length");
  method(AP, "lastIndexOf", function lastIndexOf(x) {
    var o = toObject(this, "lastIndexOf"), len = toLength(o.length);
    cap(len, MAX_ELEMENTS, "Array.prototype.lastIndexOf length");
    return arguments.length > 1 ? nativeLastIndexOf(o, x, arguments[1]) : nativeLastIndexOf(o, x);
  }, 1);
  capped(AP, "join", nativeJoin, 1, "Array.prototype.join length");
  method(AP, "fill", function fill(value, start, end) {
    var o = toObject(this, "fill"), len = toLength(o.length);
    var s = toIntegerOrInfinity(start), e = end === undefined ? len : toIntegerOrInfinity(end);
    s = s < 0 ? (len + s > 0 ? len + s : 0) : s < len ? s : len;
    e = e < 0 ? (len + e > 0 ? len + e : 0) : e < len ? e : len;
    cap(e - s, MAX_ELEMENTS, "Array.prototype.fill count");
    return nativeFill(o, value, s, e);
  }, 1);
  var REPEAT_BLOCK = 65536;
  method(SP, "repeat", function repeat(count) {
    var s = S(toObject(this, "String.prototype.repeat") && this), n = toIntegerOrInfinity(count);
    if (n > 0 && n !== Infinity) cap(s.length * n, MAX_STRING, "String.prototype.repeat result length");
    // boa charges every repetition to the loop-iteration limit, a safety net meant for runaway
    // loops: "x".repeat(2e6) is honest work (SPEC §10). Repeat a block instead; the length
    // cap above bounds the work.
    if (n > REPEAT_BLOCK) {
      var q = M.floor(n / REPEAT_BLOCK);
      return nativeRepeat(nativeRepeat(s, REPEAT_BLOCK), q) + nativeRepeat(s, n - q * REPEAT_BLOCK);
    }
    return nativeRepeat(s, n);
  }, 1);
  function pad(name, native) {
    method(SP, name, function (maxLength, fillString) {
      var s = S(toObject(this, "String.prototype." + name) && this), n = toLength(maxLength);
      cap(n, MAX_STRING, "String.prototype." + name + " length");
      return native(s, n, fillString);
    }, 1);
  }
  pad("padStart", nativePadStart); pad("padEnd", nativePadEnd);

  // ---- regexes: one guarded entry point ----------------------------------------------------
  function screened(pattern, flags) {
    var why = screen(pattern, flags);
    if (why !== undefined) throw new SyntaxError("parsebox refused regex /" + pattern + "/: " + why);
  }
  var GuardedRegExp = function RegExp(pattern, flags) {
    var p = pattern, f = flags;
    var isRe = typeof p === "object" && p !== null && isRegExp(p);
    var src = isRe ? nativeSource(p) : p === undefined ? "" : S(p);
    var fl = f === undefined ? (isRe ? nativeFlags(p) : "") : S(f);
    screened(src, fl);
    if (new.target === undefined && isRe && f === undefined && p.constructor === GuardedRegExp) return p;
    return construct(R, [isRe ? p : src, fl], new.target === undefined ? GuardedRegExp : new.target);
  };
  function isRegExp(v) {
    try { nativeFlags(v); nativeSource(v); return true; } catch (e) { return false; }
  }
  GuardedRegExp.prototype = RP;
  defineProperty(GuardedRegExp, "length", { __proto__: null, value: 2, configurable: true });
  defineProperty(RP, "constructor", { __proto__: null, value: GuardedRegExp, writable: true, configurable: true });
  O.getOwnPropertyNames(R).forEach(function (k) {
    if (k !== "prototype" && k !== "length" && k !== "name") {
      var d = O.getOwnPropertyDescriptor(R, k);
      defineProperty(GuardedRegExp, k, d);
    }
  });
  defineProperty(GuardedRegExp, Sym.species, O.getOwnPropertyDescriptor(R, Sym.species));
  defineProperty(G, "RegExp", { __proto__: null, value: GuardedRegExp, writable: true, enumerable: false, configurable: true });
  // Every regex method goes through exec; refuse huge inputs there.
  // (native: the host's wrapper of the intrinsic exec with the MAX_REGEX_INPUT cap)
  defineProperty(RP, "exec", { __proto__: null, value: guardedExec, writable: false, enumerable: false, configurable: false });
  // String methods that compile a string argument into a regex with the intrinsic RegExp.
  function strToRegex(name, native, flags) {
    method(SP, name, function (re) {
      if (re === undefined || re === null || (typeof re !== "object" && typeof re !== "function")) {
        screened(re === undefined ? "(?:)" : S(re), flags);
      }
      return native(this, re);
    }, 1);
  }
  strToRegex("match", nativeMatch, ""); strToRegex("matchAll", nativeMatchAll, "g"); strToRegex("search", nativeSearch, "");

  // replace / replaceAll with a callback: the callback is called from bytecode.
  function advance(s, i, unicode) {
    if (!unicode || i + 1 >= s.length) return i + 1;
    var c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) return i + 1;
    var d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? i + 2 : i + 1;
  }
  function replaceWithRegexFn(rx, s, fn, all) {
    var flags = S(rx.flags), global = nativeStrIndexOf(flags, "g") >= 0;
    if (all && !global) throw new TypeError("replaceAll must be called with a global RegExp");
    var unicode = nativeStrIndexOf(flags, "u") >= 0 || nativeStrIndexOf(flags, "v") >= 0;
    if (global) rx.lastIndex = 0;
    var results = [], n = 0;
    for (;;) {
      var r = rx.exec(s);
      if (r === null) break;
      results[n++] = r;
      if (!global) break;
      if (S(r[0]) === "") rx.lastIndex = advance(s, toLength(rx.lastIndex), unicode);
    }
    var acc = "", next = 0;
    for (var i = 0; i < n; i++) {
      r = results[i];
      var ncap = toLength(r.length) - 1; if (ncap < 0) ncap = 0;
      var matched = S(r[0]), pos = toIntegerOrInfinity(r.index);
      pos = pos < 0 ? 0 : pos > s.length ? s.length : pos;
      var args = [matched], m = 1;
      for (var c = 1; c <= ncap; c++) { var cv = r[c]; args[m++] = cv === undefined ? cv : S(cv); }
      args[m++] = pos; args[m++] = s;
      var groups = r.groups;
      if (groups !== undefined) args[m++] = groups;
      var rep = S(fn(...args));
      if (pos >= next) { acc += nativeSlice(s, next, pos) + rep; next = pos + matched.length; }
    }
    return next >= s.length ? acc : acc + nativeSlice(s, next);
  }
  function replacer(name, native, all) {
    method(SP, name, function (search, replaceValue) {
      if (typeof replaceValue !== "function") return native(this, search, replaceValue);
      var o = toObject(this, "String.prototype." + name);
      if (search !== null && search !== undefined && typeof search === "object" && isRegExp(search) && search[SymReplace] === nativeRegExpReplace) {
        return replaceWithRegexFn(search, S(o), replaceValue, all);
      }
      if (search !== null && search !== undefined && (typeof search === "object" || typeof search === "function")) {
        return native(o, search, replaceValue);
      }
      var s = S(o), needle = S(search), acc = "", next = 0, step = needle.length > 0 ? needle.length : 1;
      var pos = nativeStrIndexOf(s, needle, 0);
      while (pos >= 0) {
        acc += nativeSlice(s, next, pos) + S(replaceValue(needle, pos, s));
        next = pos + needle.length;
        if (!all) break;
        pos = pos + step > s.length ? -1 : nativeStrIndexOf(s, needle, pos + step);
      }
      return acc + nativeSlice(s, next);
    }, 2);
  }
  replacer("replace", nativeReplace, false); replacer("replaceAll", nativeReplaceAll, true);

  // JSON.parse with a reviver: the walk and the reviver calls are bytecode (InternalizeJSONProperty).
  // The reviver is called with `this` = the holder, as a method the holder carries under TMP
  // (callThis' way), put on once for all of a holder's members rather than for each call.
  H.reviveWith = function (holder, name, reviver) {
    bind(holder, reviver);
    try { return internalize(holder, name, reviver, true); } finally { unbind(holder); }
  };
  function bind(o, reviver) {
    defineProperty(o, TMP, { __proto__: null, value: reviver, writable: true, configurable: true });
  }
  // A reviver that froze the holder leaves it the method (V8 has none to leave). Deletes here
  // are [[Delete]]'s, which answer false where a strict-mode `delete` would throw.
  function unbind(o) { deleteProperty(o, TMP); }
  // `bound`: the holder carries the reviver under TMP (it was extensible when its walk began).
  function internalize(holder, name, reviver, bound) {
    var val = holder[name];
    if (typeof val === "object" && val !== null) {
      if (isExtensible(val)) {
        bind(val, reviver);
        try { members(val, reviver, true); } finally { unbind(val); }
      } else members(val, reviver, false);
    }
    return bound ? holder[TMP](name, val) : callThis(reviver, holder, name, val);
  }
  function members(val, reviver, own) {
    if (isArray(val)) {
      var len = toLength(val.length);
      for (var i = 0; i < len; i++) {
        var ne = internalize(val, S(i), reviver, own);
        if (ne === undefined) deleteProperty(val, S(i)); else createData(val, S(i), ne);
      }
    } else {
      var ks = keys(val);
      for (var j = 0; j < ks.length; j++) {
        var ne2 = internalize(val, ks[j], reviver, own);
        if (ne2 === undefined) deleteProperty(val, ks[j]); else createData(val, ks[j], ne2);
      }
    }
  }
  }
})(__parsebox_h);
//@piece
(function (H) {
  "use strict";
  var A = H.A, G = H.G, J = H.J, MAX_DEPTH = H.MAX_DEPTH, MAX_NODES = H.MAX_NODES, O = H.O, P = H.P;
  var S = H.S, TMP = H.TMP, callThis = H.callThis, defineProperty = H.defineProperty;
  var freeze = H.freeze, isArray = H.isArray, jsonParse = H.jsonParse, keys = H.keys;
  var method = H.method, reviveWith = H.reviveWith, toLength = H.toLength;

  // JSON.parse: a native parser (the host's json.rs; boa's own runs the text through the
  // whole JavaScript parser and compiler). Revivers are walked in bytecode when the bounded
  // built-ins are on.
  method(J, "parse", function parse(text, reviver) {
    var v = jsonParse(text);
    if (typeof reviver !== "function") return v;
    return reviveWith({ "": v }, "", reviver);
  }, 2);

  // ---- the host's side of the realm ---------------------------------------------------------
  // Conversion of a return value that is not plain data (getters, Proxies, toJSON, boxed
  // primitives): JSON.stringify semantics, in bytecode under the line's budget, into a tree of
  // plain objects and arrays the host then reads natively. Depth and size are capped.
  var CYCLE = freeze({ __proto__: null }), TOO_BIG = freeze({ __proto__: null }), SKIP = freeze({ __proto__: null });
  var nodes = 0;
  function ser(holder, key, value, stack, depth) {
    if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
      var toJSON = value.toJSON;
      if (typeof toJSON === "function") value = callThis(toJSON, value, key);
    }
    if (typeof value === "object" && value !== null) {
      var tag = O.prototype.toString.call(value);
      if (tag === "[object Number]") value = +value;
      else if (tag === "[object String]") value = S(value);
      else if (tag === "[object Boolean]") value = value.valueOf();
    }
    if (++nodes > MAX_NODES) throw TOO_BIG;
    switch (typeof value) {
      case "string": case "boolean": return value;
      case "number": return value === value && value !== Infinity && value !== -Infinity ? value : null;
      case "bigint": throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        if (value === null) return null;
        break;
      default: return SKIP;
    }
    // stack[0 .. depth) holds the value's ancestors: indexed by depth, never resized (boa
    // threw "bad length for array" shrinking and regrowing it after two nested containers).
    for (var s = 0; s < depth; s++) if (stack[s] === value) throw CYCLE;
    if (depth >= MAX_DEPTH) throw TOO_BIG;
    stack[depth] = value;
    var out;
    if (isArray(value)) {
      var len = toLength(value.length);
      if (len > MAX_NODES) throw TOO_BIG;
      out = new A(len);
      for (var i = 0; i < len; i++) { var v = ser(value, S(i), value[i], stack, depth + 1); out[i] = v === SKIP ? null : v; }
    } else {
      out = { __proto__: null };
      var ks = keys(value);
      for (var j = 0; j < ks.length; j++) {
        var v2 = ser(value, ks[j], value[ks[j]], stack, depth + 1);
        if (v2 !== SKIP) defineProperty(out, ks[j], { __proto__: null, value: v2, writable: true, enumerable: true, configurable: true });
      }
    }
    return out;
  }
  P.conv = function conv(value) {
    nodes = 0;
    try {
      var v = ser({ "": value }, "", value, [], 0);
      return [true, v === SKIP ? null : v];
    } catch (e) {
      if (e === CYCLE) return [false, "return value is cyclic"];
      if (e === TOO_BIG) return [false, "return value too large"];
      throw e;
    }
  };
  P.require = function require(name) {
    throw new Error("require(" + J.stringify(S(name)) + ") is not available to ui-parser modules");
  };
  // Creates the parser: evaluates the module function, picks the entry point.
  P.init = function init(modfn, esm) {
    var exp;
    if (esm) exp = modfn();
    else {
      var module = { exports: {} }, ex = module.exports;
      defineProperty(ex, TMP, { __proto__: null, value: modfn, writable: true, configurable: true });
      try { ex[TMP](module, ex, P.require); } finally { delete ex[TMP]; }
      exp = module.exports;
    }
    if (exp === null || (typeof exp !== "object" && typeof exp !== "function")) return "no_export";
    var factory = exp.createStdoutParser, direct = exp.parseStdoutLine;
    if (typeof factory === "function") {
      var inst = factory();
      if (!inst || typeof inst.parseLine !== "function") return "bad_factory";
      defineProperty(P, "i", { __proto__: null, value: inst });
      // The stateless export too, when there is one (ParserModule::exports reports it; a
      // type's default run calls it, as Paperclip's adapter.parseStdoutLine does).
      if (typeof direct !== "function") return "createStdoutParser";
      defineProperty(P, "f", { __proto__: null, value: direct });
      return "createStdoutParser+parseStdoutLine";
    }
    if (typeof direct === "function") {
      defineProperty(P, "f", { __proto__: null, value: direct });
      return "parseStdoutLine";
    }
    return "no_export";
  };
  P.reset = function reset() {
    var inst = P.i;
    if (inst && typeof inst.reset === "function") inst.reset();
  };
  // `**` and `**=` in a parser's source become calls of this (src/source/pow_rewrite.rs): V8's
  // doubles, where boa's own operator is off in the last bits (src/pow.rs).
  P.pow = __parsebox_pow;
  ["conv", "init", "pow", "reset", "require"].forEach(function (k) {
    defineProperty(P, k, { __proto__: null, value: P[k], writable: false, configurable: false });
  });
  ["l", "t", "r", "e"].forEach(function (k) {
    defineProperty(P, k, { __proto__: null, value: undefined, writable: true, configurable: false });
  });
  // What a host script evaluates to when its expression threw: the host then reads the thrown
  // value from `e` (realm/mod.rs, Realm::run). The throw is caught in the script itself so that
  // boa unwinds its value stack: one that leaves the script uncaught leaves values on it.
  defineProperty(P, "z", { __proto__: null, value: freeze({ __proto__: null }), writable: false, configurable: false });
  defineProperty(G, "__parsebox", { __proto__: null, value: P });
})(__parsebox_h);
