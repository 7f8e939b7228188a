// What the page gets from the package for a fuzz case, asked the ways a page asks: one function
// per check, over a registry with the case's parser registered. Plain browser JavaScript (no
// Node imports): package.mjs runs it on pkg/ in Node, browser.mjs in headless Chromium.

export const TYPE = "fuzz";

/**
 * The package side, given the package's classes: `open(host, source)` resolves to a session
 * (a registry with `source` as the one adapter type, parsers `inline` or in a `worker`) whose
 * methods answer as the page would get it. Generous budgets: the fuzzer compares values, not
 * speed, on a loaded machine.
 */
export function packageSide({ ParserRegistry, TranscriptBuilder }) {
  async function open(host, source) {
    const registry = new ParserRegistry({ loadSource: null, host, lineBudgetMs: 10_000 });
    registry.registerSource(TYPE, source);
    await registry.idle(); // a Worker engine starts in the background
    const status = registry.status(TYPE);
    if (status.state !== "ready") {
      registry.dispose();
      throw new Error(`the parser did not load (${host}): ${status.state}: ${status.reason}`);
    }
    return {
      /**
       * `registry.parseLine` for each `[line, ts]`, in order, in the type's default run.
       * Inline the answer is immediate; in a Worker the generic entry comes at once and the
       * answer later (`onChange` lines, matched by ts, which the fuzzer keeps unique per line).
       */
      async parseLines(lines) {
        const late = new Map();
        const stop = registry.onChange((type, _status, updates) => {
          if (type === TYPE) for (const u of updates ?? []) late.set(u.ts, u.entries);
        });
        const now = lines.map(([line, ts]) => registry.parseLine(TYPE, line, ts));
        await registry.idle();
        stop();
        return lines.map(([, ts], i) => late.get(ts) ?? now[i]);
      },

      /**
       * Why each `[line, ts]` failed in the type's default run, as diagnostics word it (null for
       * a line that did not fail): the fuzzer's triage of a mismatch, inline registries only.
       */
      async lineErrors(lines) {
        const failures = () => Object.values(registry.diagnostics(TYPE).fallbacks).reduce((a, b) => a + b, 0);
        let before = failures();
        return lines.map(([line, ts]) => {
          registry.parseLine(TYPE, line, ts);
          const now = failures();
          const failed = now > before;
          before = now;
          return failed ? registry.diagnostics(TYPE).lastError : null;
        });
      },

      /** `registry.adapter(type).parseStdoutLine` for each `[line, ts]`. */
      async adapterStateless(lines) {
        const { parseStdoutLine } = registry.adapter(TYPE);
        return lines.map(([line, ts]) => parseStdoutLine(line, ts));
      },

      /** One `registry.adapter(type).createStdoutParser()` run over `[line, ts]`. */
      async adapterRun(lines) {
        const run = registry.adapter(TYPE).createStdoutParser();
        try {
          return lines.map(([line, ts]) => run.parseLine(line, ts));
        } finally {
          run.dispose();
        }
      },

      /**
       * A TranscriptBuilder's entries after pushing `chunks` and `finish()` (with Workers, once
       * every answer is in). `style` is its `failedLineEntry`.
       */
      async transcript(chunks, style = "parseError") {
        const builder = new TranscriptBuilder(registry, TYPE, { failedLineEntry: style, timeline: false });
        try {
          for (const chunk of chunks) builder.push(chunk);
          builder.finish();
          await registry.idle();
          return builder.entries();
        } finally {
          builder.dispose();
        }
      },

      /** The type's diagnostics (counters and fallbacks), to say why a mismatch happened. */
      async diagnostics() {
        return registry.diagnostics(TYPE);
      },

      close() {
        registry.dispose();
      },
    };
  }
  return { open };
}
