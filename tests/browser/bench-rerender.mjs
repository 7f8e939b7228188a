// Benchmark (not a test): Paperclip's run view builds the transcript again on every change, with
// a fresh parser run each time. How long does such a re-build of a 2,000-line Claude run take
// through parsebox (default host: a Worker; the lines were answered once and are remembered by
// their history) against the parser imported natively into the page (what Paperclip does)?
//   node tests/browser/bench-rerender.mjs [trials=5] [--pkg pkg]
// --pkg serves another build of the package (a directory under the repository).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { claudeLog, logLines } from "../bench/gen-log.mjs";
import { serve, openReady } from "./harness.mjs";

const trials = Number(process.argv[2] ?? 5);
const pkgIndex = process.argv.indexOf("--pkg");
const pkg = pkgIndex === -1 ? "pkg" : process.argv[pkgIndex + 1];
const repo = fileURLToPath(new URL("../..", import.meta.url));
const parser = await readFile(new URL("../corpus/compat/claude-stream-json/ui-parser.js", import.meta.url), "utf8");
const lines = logLines(claudeLog(2000));

const server = await serve(repo, {
  "/rerender.html": () => ({
    type: "text/html",
    body: `<!doctype html><script type="module">
  import init, { ParserRegistry } from "/${pkg}/index.js";
  await init();
  const TS = "2026-01-01T00:00:01Z";
  window.run = async (source, lines, trials) => {
    const registry = new ParserRegistry({ loadSource: null });
    registry.registerSource("claude", source);
    const registerState = registry.status("claude").state;
    await registry.idle();
    // Paperclip's buildTranscript: a fresh createStdoutParser() run, every line through it.
    const build = () => {
      const p = registry.adapter("claude").createStdoutParser();
      const out = [];
      for (const l of lines) for (const e of p.parseLine(l, TS)) out.push(e);
      return out;
    };
    const t0 = performance.now();
    const first = build();
    const firstMs = performance.now() - t0;
    await registry.idle();
    const rebuild = [];
    let again;
    for (let i = 0; i < trials; i++) {
      const t = performance.now();
      again = build();
      rebuild.push(performance.now() - t);
    }
    // parsebox/paperclip's buildTranscript, as Paperclip's run view calls it on every change:
    // the whole chunk list each time, a fresh array holding the same chunk objects.
    const { buildTranscript, parserSource, usePaperclipRegistry } = await import("/${pkg}/paperclip.js");
    usePaperclipRegistry(registry);
    const chunks = lines.map((l) => ({ ts: TS, stream: "stdout", chunk: l + "\\n" }));
    const claude = parserSource("claude");
    buildTranscript(chunks, claude);
    await registry.idle();
    const paperclipMs = [];
    const appendMs = [];
    let grown = chunks;
    for (let i = 0; i < trials; i++) {
      let t = performance.now();
      buildTranscript(grown.slice(), claude);
      paperclipMs.push(performance.now() - t);
      grown = [...grown, { ts: TS, stream: "stdout", chunk: lines[i] + "\\n" }];
      t = performance.now();
      buildTranscript(grown, claude);
      appendMs.push(performance.now() - t);
    }
    // The run view's live window: the last 200 chunks, sliding by one chunk per render.
    const windowMs = [];
    for (let end = 1800; end < 1900; end++) {
      const t = performance.now();
      buildTranscript(chunks.slice(end - 200, end), claude);
      windowMs.push(performance.now() - t);
    }
    // The live window as Paperclip's server delivers it: the log cut every 8,192 code units, so
    // most lists end mid-line; a render after each chunk, of the last 200 chunks.
    const text = lines.join("\\n") + "\\n";
    const cut = [];
    for (let at = 0; at < text.length; at += 8192) cut.push({ ts: TS, stream: "stdout", chunk: text.slice(at, at + 8192) });
    const liveMs = [];
    let live;
    for (let end = 1; end <= cut.length; end++) {
      const t = performance.now();
      live = buildTranscript(cut.slice(Math.max(0, end - 200), end), claude);
      liveMs.push(performance.now() - t);
    }
    await registry.idle();
    const native = await import(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    const nativeMs = [];
    for (let i = 0; i < trials; i++) {
      const t = performance.now();
      const out = [];
      for (const l of lines) for (const e of native.parseStdoutLine(l, TS) ?? []) out.push(e);
      nativeMs.push(performance.now() - t);
    }
    // Natively, as Paperclip does for each render: the window's lines through a fresh parser.
    const nativeWindowMs = [];
    for (let end = 1800; end < 1900; end++) {
      const t = performance.now();
      const p = native.createStdoutParser ? native.createStdoutParser() : { parseLine: native.parseStdoutLine };
      const out = [];
      for (const l of lines.slice(end - 200, end)) for (const e of p.parseLine(l, TS) ?? []) out.push(e);
      nativeWindowMs.push(performance.now() - t);
    }
    // Natively, as Paperclip's buildTranscript does for each such render (lines split on \\r?\\n,
    // the partial last one parsed as the run's end), with a fresh parser.
    const nativeLiveMs = [];
    for (let end = 1; end <= cut.length; end++) {
      const t = performance.now();
      const p = native.createStdoutParser ? native.createStdoutParser() : { parseLine: native.parseStdoutLine };
      const out = [];
      const parts = cut.slice(Math.max(0, end - 200), end).map((c) => c.chunk).join("").split(/\\r?\\n/);
      for (const l of parts) if (l.trim()) for (const e of p.parseLine(l.trim(), TS) ?? []) out.push(e);
      nativeLiveMs.push(performance.now() - t);
    }
    const kinds = (xs) => xs.filter((e) => e.kind === "stdout").length;
    const out = { registerState, host: registry.status("claude").host, firstMs, firstGeneric: kinds(first), rebuild, rebuildGeneric: kinds(again), nativeMs, paperclipMs, appendMs, windowMs, nativeWindowMs, liveMs, nativeLiveMs, chunks: cut.length, liveEntries: live.length, memo: registry.diagnostics("claude").host.memoAnswers };
    registry.dispose();
    return out;
  };
  window.ready = true;
</script>`,
  }),
});
const { browser, page } = await openReady(server, "/rerender.html");
const r = await page.evaluate(([s, l, t]) => window.run(s, l, t), [parser, lines, trials]);
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`## re-building a ${lines.length}-line Claude transcript with a fresh parser run (Chromium ${browser.version()}, ${trials} trials)`);
console.log(`registerSource returned with state "${r.registerState}"; host ${r.host}`);
console.log(`first build: ${r.firstMs.toFixed(1)} ms, ${r.firstGeneric} lines generic until the Worker answered`);
console.log(`re-build through parsebox: median ${med(r.rebuild).toFixed(1)} ms (${r.rebuild.map((x) => x.toFixed(1)).join(", ")}), ${r.rebuildGeneric} generic; memo answers ${r.memo}`);
console.log(`native parser in the page: median ${med(r.nativeMs).toFixed(1)} ms (${r.nativeMs.map((x) => x.toFixed(1)).join(", ")})`);
console.log(`ratio: ${(med(r.rebuild) / med(r.nativeMs)).toFixed(2)}x native`);
console.log(`parsebox/paperclip buildTranscript, same chunks again (a re-render): median ${med(r.paperclipMs).toFixed(2)} ms (${r.paperclipMs.map((x) => x.toFixed(2)).join(", ")}) = ${(med(r.paperclipMs) / med(r.nativeMs)).toFixed(2)}x native`);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
console.log(`a 200-chunk window sliding over 100 renders: parsebox/paperclip buildTranscript ${sum(r.windowMs).toFixed(1)} ms in all (median ${med(r.windowMs).toFixed(2)}), native fresh parse of each window ${sum(r.nativeWindowMs).toFixed(1)} ms (median ${med(r.nativeWindowMs).toFixed(2)})`);
console.log(`the log cut every 8,192 code units (${r.chunks} chunks, most ending mid-line), a render after each chunk of the last 200: parsebox/paperclip buildTranscript ${sum(r.liveMs).toFixed(1)} ms in all (median ${med(r.liveMs).toFixed(2)}, max ${Math.max(...r.liveMs).toFixed(1)}; last render ${r.liveEntries} entries), native fresh parse of each list ${sum(r.nativeLiveMs).toFixed(1)} ms (median ${med(r.nativeLiveMs).toFixed(2)}, max ${Math.max(...r.nativeLiveMs).toFixed(1)})`);
console.log(`parsebox/paperclip buildTranscript, one chunk more: median ${med(r.appendMs).toFixed(2)} ms (${r.appendMs.map((x) => x.toFixed(2)).join(", ")})`);
await browser.close();
await server.close();
