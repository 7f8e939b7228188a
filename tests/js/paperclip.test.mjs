// parsebox/paperclip as Paperclip's UI uses it: dynamic-loader.ts's three functions and
// transcript.ts's buildTranscript, with behaviour written from Paperclip's documented rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry } from "../../pkg/index.js";
import {
  buildTranscript,
  invalidateDynamicParser,
  loadDynamicParser,
  paperclipRegistry,
  parserSource,
  setDynamicParserResultNotifier,
  usePaperclipRegistry,
} from "../../pkg/paperclip.js";

const pkg = (p) => fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url));
initSync({ module: readFileSync(pkg("parsebox_wasm_bg.wasm")), engine: readFileSync(pkg("parsebox_engine.wasm")) });

const COUNTER = `
export function createStdoutParser() {
  let n = 0;
  return {
    parseLine(line, ts) { n++; return [{ kind: "assistant", ts, text: n + ":" + line }]; },
    reset() { n = 0; },
  };
}
export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: "stateless:" + line }]; }`;

/** A fresh shared registry whose loader serves `sources` (type → source; missing: none). */
function fresh(sources = {}) {
  const loads = [];
  const registry = new ParserRegistry({
    loadSource: async (type) => {
      loads.push(type);
      const s = sources[type];
      if (s instanceof Error) throw s;
      return s ?? null;
    },
  });
  usePaperclipRegistry(registry);
  return { registry, loads };
}

const out = (ts, chunk) => ({ ts, stream: "stdout", chunk });

/**
 * A trusted stateful parser source: a run's nth line gives "n:line", "d:…" a streamed delta,
 * "boom" throws; `hooks.seen(line)` hears every call, `hooks.reset()` every reset.
 */
function trustedCounter(hooks = {}) {
  return {
    parseStdoutLine: () => [],
    createStdoutParser() {
      let n = 0;
      return {
        parseLine(line, ts) {
          hooks.seen?.(line);
          if (line === "boom") throw new Error("bad /Users/alice/x");
          n++;
          if (line.startsWith("d:")) return [{ kind: "assistant", ts, text: line.slice(2), delta: true }];
          return [{ kind: "assistant", ts, text: `${n}:${line}` }];
        },
        reset() {
          hooks.reset?.();
          n = 0;
        },
      };
    },
  };
}

test("buildTranscript gives Paperclip's transcript for a trusted stateful parser", () => {
  fresh();
  let resets = 0;
  const source = trustedCounter({ reset: () => resets++ });
  const chunks = [
    out("t1", "a\n  \nd:x\n"),
    { ts: "t2", stream: "stderr", chunk: "warn /home/bob/y\n" },
    out("t3", "d:y\nboom\nb\npart"),
    { ts: "t4", stream: "system", chunk: "sys" },
    out("t5", "ial"),
  ];
  const entries = buildTranscript(chunks, source, { censorUsernameInLogs: true });
  assert.deepEqual(entries, [
    { kind: "assistant", ts: "t1", text: "1:a" },
    { kind: "assistant", ts: "t1", text: "x", delta: true },
    { kind: "stderr", ts: "t2", text: "warn /home/b**/y\n" },
    { kind: "assistant", ts: "t3", text: "y", delta: true },
    { kind: "result", ts: "t3", text: "Chat transcript error: bad /Users/a****/x. Falling back for line: boom", inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, subtype: "transcript_parse_error", isError: true, errors: [] },
    { kind: "assistant", ts: "t3", text: "1:b" },
    { kind: "system", ts: "t4", text: "sys" },
    { kind: "assistant", ts: "t5", text: "2:partial" },
  ]);
  assert.ok(resets >= 1, "the parser was reset after the failed line");
  // Plain functions are parsers too.
  assert.deepEqual(buildTranscript([out("t", "q\n")], (line, ts) => [{ kind: "user", ts, text: line }]), [{ kind: "user", ts: "t", text: "q" }]);
});

test("a run too large for the registry's transcript budget renders what fits; buildTranscript never throws for it", () => {
  const MIB = 1 << 20;
  const registry = new ParserRegistry({ loadSource: null, maxTranscriptBytesTotal: 2 * MIB });
  usePaperclipRegistry(registry);
  const parse = (line, ts) => [{ kind: "assistant", ts, text: line }];
  const chunks = [];
  for (let i = 0; i < 40; i++) chunks.push(out(`t${i}`, `${"x".repeat(64 * 1024)} ${i}\n`));
  const first = buildTranscript(chunks, parse);
  assert.ok(first.length > 0 && first.length < 40, `entries shown: ${first.length}`);
  assert.ok(registry.diagnostics().host.refusedChunks >= 1, "the refusal is counted");
  // The next render of the same list (and of a longer one) does not throw either.
  assert.equal(buildTranscript(chunks.slice(), parse).length, first.length);
  assert.ok(buildTranscript([...chunks, out("t40", "more\n")], parse).length >= first.length);
  registry.dispose();
});

test("a re-render with the same chunks and more parses only the new ones", () => {
  fresh();
  let calls = 0;
  const parse = (line, ts) => {
    calls++;
    return [{ kind: "assistant", ts, text: line }];
  };
  const chunks = [];
  for (let i = 0; i < 50; i++) chunks.push(out(`t${i}`, `line ${i}\n`));
  const first = buildTranscript(chunks, parse);
  assert.equal(first.length, 50);
  assert.equal(calls, 50);
  first[0].text = "changed by the caller";
  const again = buildTranscript(chunks.slice(), parse);
  assert.equal(calls, 50, "nothing re-parsed");
  assert.equal(again[0].text, "line 0", "a caller's change does not reach the next render");
  const more = [...chunks, out("t50", "line 50\n")];
  assert.equal(buildTranscript(more, parse).length, 51);
  assert.equal(calls, 51);
  // A window that dropped chunks at its start goes on from the same run.
  assert.equal(buildTranscript(more.slice(10), parse).length, 41);
  assert.equal(calls, 51);
  // Switching "censor username in logs" re-folds the kept run; nothing is re-parsed.
  const home = [...more.slice(10), out("t51", "see /Users/alice/notes\n")];
  assert.equal(buildTranscript(home, parse).at(-1).text, "see /Users/alice/notes");
  assert.equal(buildTranscript(home, parse, { censorUsernameInLogs: true }).at(-1).text, "see /Users/a****/notes");
  assert.equal(buildTranscript(home, parse).at(-1).text, "see /Users/alice/notes");
  assert.equal(calls, 52);
  // New chunk objects are another run: built anew.
  assert.equal(buildTranscript(more.map((c) => ({ ...c })), parse).length, 51);
  assert.equal(calls, 103);
});

test("a sliding window of the last 200 chunks parses only new chunks and shows the window's entries", () => {
  fresh();
  let calls = 0;
  const source = trustedCounter({ seen: () => calls++ });
  let all = [];
  for (let i = 0; i < 300; i++) {
    all = [...all, out(`t${i}`, `l${i}\n`)];
    const window = all.slice(-200);
    const entries = buildTranscript(window, source);
    assert.equal(entries.length, window.length);
    assert.equal(entries[0].text, `${i < 200 ? 1 : i - 198}:l${Math.max(0, i - 199)}`);
  }
  // Each line was parsed once, in one run: the window shows the run's own entries (Paperclip
  // would re-parse each window from its first chunk with a fresh parser).
  assert.equal(calls, 300);
});

test("a partial last line is in each render, and joins the next chunk when it arrives", () => {
  fresh();
  let calls = 0;
  const parse = (line, ts) => {
    calls++;
    return [{ kind: "assistant", ts, text: line }];
  };
  const chunks = [out("t1", "one\ntw")];
  assert.deepEqual(buildTranscript(chunks, parse).map((e) => e.text), ["one", "tw"]);
  chunks.push(out("t2", "o\nthree\n"));
  assert.deepEqual(buildTranscript(chunks, parse).map((e) => [e.ts, e.text]), [["t1", "one"], ["t2", "two"], ["t2", "three"]]);
});

test("a sliding window whose every list ends mid-line costs each render the window, not the run", () => {
  // Paperclip's server cuts chunks every 8,192 code units, so most lists end inside a line.
  fresh();
  let calls = 0;
  const parse = (line, ts) => {
    calls++;
    return [{ kind: "assistant", ts, text: line }];
  };
  const chunk = (i) => out(`t${i}`, `end${i}\nstart${i}-`); // completes line i-1, begins line i
  const renders = 600;
  const size = 20;
  let all = [];
  for (let i = 0; i < renders; i++) {
    all = [...all, chunk(i)];
    const window = all.slice(-size);
    const texts = buildTranscript(window, parse).map((e) => e.text);
    const first = Math.max(0, i - size + 1);
    const complete = [];
    for (let j = first; j <= i; j++) complete.push(j === 0 ? "end0" : `start${j - 1}-end${j}`);
    assert.deepEqual(texts, [...complete, `start${i}-`], `render ${i}`);
  }
  // Before, each render replayed every chunk seen since the run began (about 180,000 calls).
  assert.ok(calls < renders * (size + 4), `${calls} parser calls for ${renders} renders`);
});

test("a partial last line of a stateful parser's run is parsed with the run's state while the list is the run", () => {
  fresh();
  const source = trustedCounter();
  const chunks = [out("t1", "a\nb\nd:x")];
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["1:a", "2:b", "x"]);
  chunks.push(out("t2", "y\nc"));
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["1:a", "2:b", "xy", "4:c"]);
  chunks.push(out("t3", "\nd:p"));
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["1:a", "2:b", "xy", "4:c", "p"]);
  chunks.push(out("t4", "q\nd:r"));
  // A streamed entry the last line joins is the finish's too.
  assert.deepEqual(buildTranscript(chunks, source).map((e) => e.text), ["1:a", "2:b", "xy", "4:c", "pqr"]);
});

test("sixteen runs re-render without re-parsing; a seventeenth lets go of the one shown least recently", () => {
  fresh();
  const seen = [];
  const source = trustedCounter({ seen: (line) => seen.push(line) });
  const runs = Array.from({ length: 17 }, (_, r) => [out("t1", `r${r}a\n`)]);
  const render = (r, more) => {
    if (more) runs[r] = [...runs[r], out("t2", `${more}\n`)];
    seen.length = 0;
    const entries = buildTranscript(runs[r], source);
    return { entries: entries.map((e) => e.text), parsed: [...seen] };
  };
  for (let r = 0; r < 16; r++) render(r);
  // Run 0 is shown again: it continues, only its new line is parsed; run 1 is now the oldest.
  assert.deepEqual(render(0, "r0b"), { entries: ["1:r0a", "2:r0b"], parsed: ["r0b"] });
  render(16); // a seventeenth run: run 1 is let go
  assert.deepEqual(render(2, "r2b").parsed, ["r2b"], "kept");
  assert.deepEqual(render(1, "r1b"), { entries: ["1:r1a", "2:r1b"], parsed: ["r1a", "r1b"] }, "let go: parsed again");
  // The same chunks under another parser are another run.
  assert.deepEqual(buildTranscript(runs[2], trustedCounter()).map((e) => e.text), ["1:r2a", "2:r2b"]);
});

test("a sliding window's run holds the window, not the run: a new parser re-parses from the window", async () => {
  fresh({ counter: COUNTER });
  const module = await loadDynamicParser("counter");
  const size = 20;
  let all = [];
  let entries;
  for (let i = 0; i < 300; i++) {
    all = [...all, out(`t${i}`, `l${i}\n`)];
    entries = buildTranscript(all.slice(-size), module);
  }
  assert.equal(entries[0].text, "281:l280", "the run's own numbering while the parser stays");
  invalidateDynamicParser("counter");
  const again = await loadDynamicParser("counter");
  all = [...all, out("t300", "l300\n")];
  entries = buildTranscript(all.slice(-size), again);
  assert.deepEqual(entries.map((e) => e.text.split(":")[1]), all.slice(-size).map((c) => c.chunk.trim()));
  // The re-parse began at most a window's length before the window, as the run let go of
  // older chunks (before, it re-parsed all 301 lines and the last entry said 301).
  const n = Number(entries.at(-1).text.split(":")[0]);
  assert.ok(n >= size && n <= 2 * size + 1, entries.at(-1).text);
});

test("loadDynamicParser loads a sandboxed parser; buildTranscript runs it; invalidate drops it", async () => {
  const { registry, loads } = fresh({ counter: COUNTER, broken: "export const x = 1;", gone: new Error("HTTP 500") });
  let notified = 0;
  setDynamicParserResultNotifier(() => notified++);
  const module = await loadDynamicParser("counter");
  assert.ok(module, "ready");
  assert.equal(module, await loadDynamicParser("counter"), "the same object while the parser is the same");
  assert.ok(notified >= 1, "the notifier heard the type become ready");
  const { parseStdoutLine, createStdoutParser } = module; // detached, as Paperclip takes them
  assert.equal(parseStdoutLine("x", "t")[0].text, "stateless:x", "the module's own stateless function");
  assert.equal(createStdoutParser().parseLine("x", "t")[0].text, "1:x");
  const chunks = [out("t1", "a\nb\n")];
  assert.deepEqual(buildTranscript(chunks, module).map((e) => e.text), ["1:a", "2:b"]);
  // Paperclip copies the functions into its own adapter object: still the sandboxed type.
  assert.deepEqual(buildTranscript(chunks, { parseStdoutLine, createStdoutParser }).map((e) => e.text), ["1:a", "2:b"]);

  assert.equal(await loadDynamicParser("broken"), null, "no usable export");
  assert.equal(await loadDynamicParser("gone"), null, "the loader failed");
  assert.equal(await loadDynamicParser("nothing"), null, "the loader has none");
  const before = loads.length;
  assert.equal(await loadDynamicParser("gone"), null);
  assert.equal(loads.length, before, "a failure is not retried");

  assert.equal(invalidateDynamicParser("counter"), true);
  assert.equal(registry.status("counter").state, "generic");
  assert.equal(invalidateDynamicParser("gone"), false);
  const reloaded = await loadDynamicParser("counter");
  assert.ok(reloaded && reloaded !== module, "loaded afresh");
  setDynamicParserResultNotifier(null);
});

test("a sandboxed parser lies over a built-in; invalidating it restores the built-in", async () => {
  const { registry } = fresh({ codex_local: COUNTER });
  registry.registerBuiltin("codex_local", { parseStdoutLine: (line, ts) => [{ kind: "user", ts, text: `builtin:${line}` }] });
  assert.equal(parserSource("codex_local").parseStdoutLine("a", "t")[0].text, "builtin:a");
  const module = await loadDynamicParser("codex_local");
  assert.equal(module.parseStdoutLine("a", "t")[0].text, "stateless:a");
  assert.equal(registry.status("codex_local").hasBuiltin, true);
  invalidateDynamicParser("codex_local");
  const s = registry.status("codex_local");
  assert.equal(s.state, "builtin");
  assert.equal(parserSource("codex_local").parseStdoutLine("a", "t")[0].text, "builtin:a");
  assert.equal(registry.unregister("codex_local").state, "generic");
});

test("two loadDynamicParser calls while a built-in's override loads both get the override", async () => {
  const { registry, loads } = fresh({ codex_local: COUNTER });
  registry.registerBuiltin("codex_local", { parseStdoutLine: (line, ts) => [{ kind: "user", ts, text: `builtin:${line}` }] });
  // The second call comes while the first one's load is out (the built-in still answers).
  const [first, second] = await Promise.all([loadDynamicParser("codex_local"), loadDynamicParser("codex_local")]);
  assert.equal(loads.length, 1, "one load");
  assert.ok(first, "the first call gets the override");
  assert.equal(second, first, "so does the second (it answered null before the core decided)");
});

test("after an override of a built-in failed, invalidating it keeps the built-in and lets the next load retry", async () => {
  const sources = { gemini_local: new Error("HTTP 500") };
  const { registry, loads } = fresh(sources);
  registry.registerBuiltin("gemini_local", { parseStdoutLine: (line, ts) => [{ kind: "user", ts, text: `builtin:${line}` }] });
  assert.equal(await loadDynamicParser("gemini_local"), null);
  assert.equal(await loadDynamicParser("gemini_local"), null);
  assert.equal(loads.length, 1, "a failure is not retried");
  assert.equal(invalidateDynamicParser("gemini_local"), false);
  const s = registry.status("gemini_local");
  assert.equal(s.state, "builtin");
  assert.equal(s.error, null);
  sources.gemini_local = COUNTER;
  const module = await loadDynamicParser("gemini_local");
  assert.equal(loads.length, 2, "loaded again after invalidate");
  assert.equal(module.parseStdoutLine("a", "t")[0].text, "stateless:a");
});

test("loadDynamicParser called from inside a parser (Paperclip's bridge) works", async () => {
  fresh({ late_type: COUNTER });
  let pending = null;
  const bridge = (line, ts) => {
    pending ??= loadDynamicParser("late_type");
    return [{ kind: "stdout", ts, text: line }];
  };
  assert.equal(buildTranscript([out("t", "x\n")], bridge).length, 1);
  assert.ok(await pending);
  assert.equal(paperclipRegistry().status("late_type").state, "ready");
});
