// The side-by-side benchmark itself (issue 7), shared by Node and the Chromium page: the three
// engines behind one interface, and every measurement. Nothing here touches the file system or
// the network; the drivers (node.mjs, page.html) hand in the modules and the sources.
//
// Engines:
//   parsebox  the package under test: a registry's adapter(type).createStdoutParser() run
//             (entries JSON-parsed by the package), TranscriptBuilder.push for live runs.
//   quickjs   quickjs-emscripten's release-sync variant wrapped the way a user would: a context
//             per parser, entries out as one JSON string per call (JSON.stringify in the guest,
//             JSON.parse in the host), a per-call deadline via the runtime's interrupt handler.
//   native    the parser imported into the page unsandboxed (what upstream Paperclip does).

import { logLines } from "./gen-log.mjs";

const now = () => performance.now();
export const LINE_BUDGET_MS = 50;
export const INIT_BUDGET_MS = 200;

const generic = (line, ts) => [{ kind: "stdout", ts, text: line }];

/** Whether a parser's source is an ES module (else CommonJS: `module.exports` / `exports.x`). */
export const isModule = (src) => /^\s*export\s/m.test(src);

// The module's parser, made in the context once it is evaluated (`__ns`: its exports), called
// with each line (entries out as one JSON string).
const QJS_CALL = `
globalThis.__p = typeof __ns.createStdoutParser === "function" ? __ns.createStdoutParser() : { parseLine: __ns.parseStdoutLine };
globalThis.__call = (l, t) => { const r = __p.parseLine(l, t); return JSON.stringify(r == null ? [] : r); };`;

let nonce = 0;

/**
 * A registry that runs parsers in this thread: packages with a Worker host get `host:
 * "inline"` (what is measured here is the engine on the calling thread; "auto" would move a
 * type that once overran its budget to a worker, which answers generically at first).
 */
export function newRegistry(pb, options) {
  let registry;
  try {
    registry = new pb.ParserRegistry({ ...options, host: "inline" });
  } catch (e) {
    if (e?.name !== "ParseboxOptionsError") throw e;
    registry = new pb.ParserRegistry(options);
  }
  // The memory probes add what the live registries' engine instances hold (engineBytes).
  LIVE.add(registry);
  const dispose = registry.dispose.bind(registry);
  registry.dispose = () => {
    LIVE.delete(registry);
    dispose();
  };
  return registry;
}

const LIVE = new Set();

/** Bytes of linear memory held by the engine instances of every live registry. */
export function engineBytes() {
  let n = 0;
  for (const r of LIVE) n += r.diagnostics().memoryBytes ?? 0;
  return n;
}

/** A quickjs context whose interrupt handler ends what runs past the deadline `within` sets. */
export function quickjsContext(quickjs) {
  const vm = quickjs.newContext();
  let deadline = Infinity;
  vm.runtime.setInterruptHandler(() => now() > deadline);
  const within = (ms, run) => {
    deadline = now() + ms;
    try {
      return run();
    } finally {
      deadline = Infinity;
    }
  };
  return { vm, within };
}

/**
 * The parser of a context (`quickjsContext`) whose `globalThis.__call(line, ts)` returns a
 * line's entries as JSON: each call under `LINE_BUDGET_MS`, JSON-parsed here; a line that throws
 * or overruns gets the generic entry.
 */
export function quickjsParser({ vm, within }) {
  const fn = vm.getProp(vm.global, "__call");
  return {
    vm,
    parseLine(line, ts) {
      const a = vm.newString(line);
      const b = vm.newString(ts);
      const r = within(LINE_BUDGET_MS, () => vm.callFunction(fn, vm.undefined, a, b));
      a.dispose();
      b.dispose();
      if (r.error) {
        r.error.dispose();
        return generic(line, ts);
      }
      const json = vm.getString(r.value);
      r.value.dispose();
      return JSON.parse(json);
    },
    dispose() {
      fn.dispose();
      vm.dispose();
    },
  };
}

/**
 * The three engines. `deps`: { parsebox: the package module (initialised), quickjs: a
 * QuickJSWASMModule, importSource(src) → module namespace }. ES modules and CommonJS
 * parsers alike.
 */
export function makeEngines(deps) {
  const parsebox = {
    name: "parsebox",
    async load(src) {
      const pb = deps.parsebox;
      const registry = newRegistry(pb, { loadSource: null, lineBudgetMs: LINE_BUDGET_MS, initBudgetMs: INIT_BUDGET_MS });
      let status = registry.registerSource("bench", src);
      // In a page the engine module may still be compiling (init() resolves with the core).
      if (status.state === "loading") {
        await registry.idle();
        status = registry.status("bench");
      }
      if (status.state !== "ready") throw new Error(`parsebox: ${status.state}: ${status.reason}`);
      // One createStdoutParser() instance, as the other two engines use (registry.parseLine
      // would call a module's own parseStdoutLine, Paperclip's stateless path, when it has one).
      const run = registry.adapter("bench").createStdoutParser();
      return {
        registry,
        parseLine: run.parseLine,
        builder: () => new pb.TranscriptBuilder(registry, "bench"),
        dispose: () => registry.dispose(),
      };
    },
  };

  const quickjs = {
    name: "quickjs",
    async load(src) {
      const context = quickjsContext(deps.quickjs);
      const { vm } = context;
      const run = (what, code, options) => {
        const res = context.within(INIT_BUDGET_MS, () => vm.evalCode(code, `${what}.js`, options));
        if (!res.error) return res.value;
        const e = vm.dump(res.error);
        res.error.dispose();
        vm.dispose();
        throw new Error(`quickjs ${what}: ${JSON.stringify(e)}`);
      };
      if (isModule(src)) {
        const ns = run("ui-parser", src, { type: "module" });
        vm.setProp(vm.global, "__ns", ns);
        ns.dispose();
      } else run("ui-parser", `var module = { exports: {} }; var exports = module.exports;\n${src}\n;globalThis.__ns = module.exports;`).dispose();
      run("call", QJS_CALL).dispose();
      return quickjsParser(context);
    },
  };

  const native = {
    name: "native",
    async load(src) {
      let ns;
      if (isModule(src)) ns = await deps.importSource(`${src}\n// instance ${++nonce}\n`);
      else {
        const module = { exports: {} };
        new Function("module", "exports", src)(module, module.exports);
        ns = module.exports;
      }
      const p = typeof ns.createStdoutParser === "function" ? ns.createStdoutParser() : { parseLine: ns.parseStdoutLine };
      // A line that throws gets the generic entry, as in the other two engines.
      const parseLine = (line, ts) => {
        try {
          return p.parseLine(line, ts) ?? [];
        } catch {
          return generic(line, ts);
        }
      };
      return { ns, parseLine, dispose() {} };
    },
  };

  return [parsebox, quickjs, native];
}

/** One ISO timestamp per line (a run starting 2026-01-01, one line every 37 ms). */
export function timestamps(n) {
  const base = Date.UTC(2026, 0, 1);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = new Date(base + i * 37).toISOString();
  return out;
}

function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  return { min: s[0], median: s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, max: s[s.length - 1], n: s.length };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** A line's entries as JSON with sorted keys: the engines must agree on content. */
function digest(entries) {
  return JSON.stringify(entries, (k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((x) => [x, v[x]])) : v));
}

/**
 * Checks that every engine gives the same entries for the first `n` lines (parsebox drops
 * `undefined`-valued fields as JSON does; the digest is JSON text, so that is equal too).
 */
export async function agreement(engines, src, lines, ts, n = 2000) {
  const out = {};
  for (const e of engines) {
    const p = await e.load(src);
    const parts = [];
    const raw = [];
    for (let i = 0; i < Math.min(n, lines.length); i++) {
      const entries = p.parseLine(lines[i], ts[i]);
      parts.push(digest(entries));
      raw.push(JSON.stringify(entries));
    }
    p.dispose();
    out[e.name] = parts;
    out[`${e.name} raw`] = raw;
  }
  const ref = out.native;
  const result = {};
  for (const e of engines) {
    const mism = out[e.name].findIndex((d, i) => d !== ref[i]);
    const order = out[`${e.name} raw`].findIndex((d, i) => d !== out["native raw"][i]);
    result[e.name] =
      mism !== -1
        ? `differs from native at line ${mism + 1}: ${out[e.name][mism].slice(0, 200)} vs ${ref[mism].slice(0, 200)}`
        : order !== -1
          ? `same entries; key order differs (first at line ${order + 1}: ${out[`${e.name} raw`][order].slice(0, 160)})`
          : "same";
  }
  return result;
}

/**
 * Per-line throughput: one parseLine per line, fresh parser per trial, engines interleaved per
 * trial (a load spike hits all three). A short untimed warm-up first (JIT, caches).
 */
export async function throughput(engines, src, lines, ts, trials) {
  const per = Object.fromEntries(engines.map((e) => [e.name, []]));
  let entries = {};
  for (const e of engines) {
    const p = await e.load(src);
    for (let i = 0; i < Math.min(2000, lines.length); i++) p.parseLine(lines[i], ts[i]);
    p.dispose();
  }
  for (let t = 0; t < trials; t++) {
    for (const e of engines) {
      const p = await e.load(src);
      let n = 0;
      const t0 = now();
      for (let i = 0; i < lines.length; i++) n += p.parseLine(lines[i], ts[i]).length;
      const dt = now() - t0;
      p.dispose();
      per[e.name].push(lines.length / (dt / 1000));
      entries[e.name] = n;
    }
  }
  return { linesPerSec: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, stats(v)])), entries };
}

/**
 * The per-parser benchmark's rows (corpus.mjs, in Node and in a page): for each `{ name, source,
 * lines }`, each engine's median lines/s over `trials` (throughput) and whether its entries are
 * native's (agreement); a parser one engine cannot run gets `error`. `say` hears a line per parser.
 */
export async function corpusRows(engines, items, trials, say = () => {}) {
  const rows = [];
  for (const { name, source, lines } of items) {
    const ts = timestamps(lines.length);
    const row = { name, lines: lines.length };
    try {
      const { linesPerSec } = await throughput(engines, source, lines, ts, trials);
      for (const [engine, rate] of Object.entries(linesPerSec)) row[engine] = rate.median;
      row.agreement = await agreement(engines, source, lines, ts);
    } catch (e) {
      row.error = String(e.message ?? e).slice(0, 120);
    }
    row.ratio = row.parsebox && row.quickjs ? row.parsebox / row.quickjs : null;
    rows.push(row);
    say(`${name}: ${row.error ?? `${row.parsebox?.toFixed(0)} / ${row.quickjs?.toFixed(0)} / ${row.native?.toFixed(0)} lines/s`}`);
  }
  return rows;
}

/** Per-line latency while streaming: each parseLine timed alone. p50/p99/max per trial. */
export async function latency(engines, src, lines, ts, trials) {
  const per = Object.fromEntries(engines.map((e) => [e.name, { p50: [], p99: [], max: [] }]));
  const d = new Float64Array(lines.length);
  for (let t = 0; t < trials; t++) {
    for (const e of engines) {
      const p = await e.load(src);
      for (let i = 0; i < lines.length; i++) {
        const t0 = now();
        p.parseLine(lines[i], ts[i]);
        d[i] = now() - t0;
      }
      p.dispose();
      const s = Float64Array.from(d).sort();
      per[e.name].p50.push(percentile(s, 0.5));
      per[e.name].p99.push(percentile(s, 0.99));
      per[e.name].max.push(s[s.length - 1]);
    }
  }
  const out = {};
  for (const [k, v] of Object.entries(per)) out[k] = { p50: stats(v.p50), p99: stats(v.p99), max: stats(v.max) };
  return out;
}

/**
 * What a renderer keeps of a TranscriptBuilder's updates: the entries, and the timeline's items
 * by id. `take(update)` applies one update (a push's, finish's or onUpdate's).
 */
export function keptUpdates() {
  const entries = [];
  const items = new Map();
  const take = ({ dropped, from, entries: changed, timeline }) => {
    entries.splice(0, dropped);
    entries.length = from;
    for (const e of changed) entries.push(e);
    if (timeline) {
      for (const { at, by } of timeline.moved ?? []) {
        for (const item of items.values()) item.entries = item.entries.map((e) => (e >= at ? e + by : e));
      }
      for (const id of timeline.removed) items.delete(id);
      for (const item of timeline.changed) items.set(item.id, item);
      for (const item of timeline.added) items.set(item.id, item);
    }
  };
  return { entries, items, take };
}

/**
 * Splits a log into stdout chunks of about `size` UTF-16 units, cut anywhere (mid-line), but
 * never between the two halves of a surrogate pair (real chunks come from a UTF-8 decoder).
 */
export function chunkLog(text, size) {
  const chunks = [];
  const base = Date.UTC(2026, 0, 1);
  let i = 0;
  while (i < text.length) {
    let j = Math.min(text.length, i + size);
    const c = text.charCodeAt(j - 1);
    if (j < text.length && c >= 0xd800 && c <= 0xdbff) j -= 1;
    chunks.push({ ts: new Date(base + chunks.length * 250).toISOString(), stream: "stdout", chunk: text.slice(i, j) });
    i = j;
  }
  return chunks;
}

/** Paperclip's buildTranscript (SPEC §5), as the upstream viewer runs it on every update. */
export function buildTranscript(chunks, parseLine) {
  const entries = [];
  const append = (list) => {
    for (const e of list) {
      const last = entries[entries.length - 1];
      if (last && (e.kind === "assistant" || e.kind === "thinking") && last.kind === e.kind && last.delta === true && e.delta === true) {
        entries[entries.length - 1] = { ...last, ts: e.ts, text: last.text + e.text };
      } else entries.push(e);
    }
  };
  let pending = "";
  for (const c of chunks) {
    if (c.stream !== "stdout") {
      entries.push({ kind: c.stream, ts: c.ts, text: c.chunk });
      continue;
    }
    const parts = (pending + c.chunk).split(/\r?\n/);
    pending = parts.pop() ?? "";
    for (const raw of parts) {
      const line = raw.trim();
      if (line) append(parseLine(line, c.ts));
    }
  }
  const tail = pending.trim();
  if (tail && chunks.length) append(parseLine(tail, chunks[chunks.length - 1].ts));
  return entries;
}

const MAX_RETAINED_CHUNKS = 5000; // the upstream viewer's live buffer

/**
 * A live run: chunks arrive one by one; after each, the transcript must be current. parsebox:
 * `TranscriptBuilder.push` (incremental). Baseline: the upstream viewer, which re-runs
 * buildTranscript over every retained chunk with a fresh native parser instance on each update.
 * Returns total main-thread ms per trial and the per-update p99/max.
 */
export async function liveRun(engines, src, chunks, trials, { baselineTrials = trials } = {}) {
  const pbEngine = engines.find((e) => e.name === "parsebox");
  const nativeEngine = engines.find((e) => e.name === "native");
  const res = { parsebox: { total: [], p99: [], max: [], entries: 0 }, baseline: { total: [], p99: [], max: [], entries: 0 } };
  const upd = new Float64Array(chunks.length);
  const record = (r) => {
    const s = Float64Array.from(upd).sort();
    r.total.push(upd.reduce((a, b) => a + b, 0));
    r.p99.push(percentile(s, 0.99));
    r.max.push(s[s.length - 1]);
  };
  for (let t = 0; t < Math.max(trials, baselineTrials); t++) {
    if (t < trials) {
      const p = await pbEngine.load(src);
      const builder = p.builder();
      let view = [];
      for (let i = 0; i < chunks.length; i++) {
        const t0 = now();
        const { from, entries } = builder.push(chunks[i]);
        view.length = from;
        for (const e of entries) view.push(e);
        upd[i] = now() - t0;
      }
      const t0 = now();
      const { from, entries } = builder.finish();
      view.length = from;
      for (const e of entries) view.push(e);
      upd[chunks.length - 1] += now() - t0;
      res.parsebox.entries = view.length;
      builder.dispose();
      p.dispose();
      record(res.parsebox);
    }
    if (t < baselineTrials) {
      const ns = (await nativeEngine.load(src)).ns;
      const fresh = () => {
        if (typeof ns.createStdoutParser === "function") {
          const p = ns.createStdoutParser();
          return (l, ts) => p.parseLine(l, ts) ?? [];
        }
        return (l, ts) => ns.parseStdoutLine(l, ts) ?? [];
      };
      let view = [];
      for (let i = 0; i < chunks.length; i++) {
        const t0 = now();
        view = buildTranscript(chunks.slice(Math.max(0, i + 1 - MAX_RETAINED_CHUNKS), i + 1), fresh());
        upd[i] = now() - t0;
      }
      res.baseline.entries = view.length;
      record(res.baseline);
    }
  }
  const out = {};
  for (const [k, v] of Object.entries(res)) out[k] = { totalMs: stats(v.total), updateP99Ms: stats(v.p99), updateMaxMs: stats(v.max), entries: v.entries };
  out.updates = chunks.length;
  return out;
}

/** quickjs: bytes its runtimes have allocated (QuickJS's own count), over the held parsers. */
export function quickjsUsed(held) {
  let total = 0;
  for (const p of held) {
    const h = p.vm.runtime.computeMemoryUsage();
    total += p.vm.dump(h).memory_used_size;
    h.dispose();
  }
  return total;
}

/**
 * Memory per registered parser, in a fresh engine instance (a new page / process): one parser
 * first (allocator pools, caches), then the growth over `k` more ÷ `k`.
 */
export async function memoryRun(engine, src, probe, k = 16, gc = null) {
  const first = await engine.load(src);
  first.parseLine("┊ $ ls", "2026-01-01T00:00:00.000Z");
  const perParser = await memoryPerParser(engine, src, probe, k, gc);
  first.dispose();
  return perParser;
}

/**
 * Memory per registered parser: `k` parsers, each loaded and answering one line.
 * `probe()` returns the bytes the engine holds (wasm memory, quickjs runtime, JS heap).
 */
export async function memoryPerParser(engine, src, probe, k = 16, gc = null) {
  const held = [];
  gc?.();
  const before = await probe(held);
  for (let i = 0; i < k; i++) {
    const p = await engine.load(src);
    p.parseLine("┊ $ ls", "2026-01-01T00:00:00.000Z");
    held.push(p);
  }
  gc?.();
  const after = await probe(held);
  for (const p of held) p.dispose();
  return (after - before) / k;
}

/**
 * Runs every in-page figure for one environment. `deps` as for makeEngines, plus
 * loadText(spec) → log text, memProbes: { parsebox, quickjs, native } (bytes), gc?.
 * `cfg`: { trials, baselineTrials, workloads: [{ name, src, log, latency }], live: [{ name, src,
 * log, chunkSize }], memorySrc }.
 */
export async function suite(deps, cfg, say = () => {}) {
  const engines = makeEngines(deps);
  const out = { throughput: {}, latency: {}, agreement: {}, live: {} };
  for (const w of cfg.workloads) {
    const text = await deps.loadText(w.log);
    const lines = logLines(text);
    const ts = timestamps(lines.length);
    say(`${w.name}: ${lines.length} lines, ${text.length} chars`);
    out.agreement[w.name] = await agreement(engines, w.src, lines, ts);
    out.throughput[w.name] = { lines: lines.length, chars: text.length, ...(await throughput(engines, w.src, lines, ts, cfg.trials)) };
    say(`  throughput ${JSON.stringify(Object.fromEntries(Object.entries(out.throughput[w.name].linesPerSec).map(([k, v]) => [k, Math.round(v.median)])))}`);
    if (w.latency) {
      out.latency[w.name] = await latency(engines, w.src, lines, ts, cfg.trials);
      say(`  latency p99 ${JSON.stringify(Object.fromEntries(Object.entries(out.latency[w.name]).map(([k, v]) => [k, +v.p99.median.toFixed(3)])))}`);
    }
  }
  for (const l of cfg.live) {
    const text = await deps.loadText(l.log);
    const chunks = chunkLog(text, l.chunkSize);
    say(`live ${l.name}: ${chunks.length} chunks`);
    out.live[l.name] = await liveRun(engines, l.src, chunks, cfg.trials, { baselineTrials: l.baselineTrials ?? cfg.baselineTrials ?? cfg.trials });
    say(`  live total ms parsebox ${out.live[l.name].parsebox.totalMs.median.toFixed(0)} baseline ${out.live[l.name].baseline.totalMs.median.toFixed(0)}`);
  }
  return out;
}
