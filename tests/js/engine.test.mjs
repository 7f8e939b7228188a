// The engine module as the page uses it: pkg/parsebox_engine.wasm (built by
// crates/parsebox-wasm/package.sh) through pkg/engine.js, one EngineInstance per adapter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { compileEngine, EngineInstance, EngineMemoryError, EngineStoppedError, warmUp } from "../../pkg/engine.js";
import { ParseboxDisposedError, ParseboxError } from "../../pkg/errors.js";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const MIB = 1 << 20;
const bytes = readFileSync(here("../../pkg/parsebox_engine.wasm"));
const module = await compileEngine(bytes);

const config = (over = {}) =>
  JSON.stringify({ lineBudgetMs: 1000, initBudgetMs: 5000, maxSourceBytes: 50 * 1024, maxLineBytes: 4 * MIB, maxMemoryBytes: 512 * MIB, ...over });

/** A started instance; fails the test when the parser does not load. */
function started(source, options = {}) {
  const engine = new EngineInstance(module, { maxMemoryBytes: 512 * MIB, ...options });
  const answer = JSON.parse(engine.start(source, config({ maxMemoryBytes: options.maxMemoryBytes ?? 512 * MIB })));
  assert.ok("Ok" in answer, JSON.stringify(answer));
  return engine;
}

/** Runs `lines` ([line, ts] pairs) as live lines of a new run `run`; returns the outcomes. */
function parse(engine, lines, { run = 1, newRun = true, firstSeq = 1 } = {}) {
  const ops = newRun ? [{ op: "newRun", run }] : [];
  lines.forEach(([line, ts], i) => ops.push({ op: "line", seq: firstSeq + i, run, line, ts, replay: false }));
  const answers = JSON.parse(engine.run(JSON.stringify(ops)));
  assert.deepEqual(answers.map(([seq]) => seq), lines.map((_, i) => firstSeq + i));
  return answers.map(([, outcome]) => outcome);
}

const COUNTER = `
export function createStdoutParser() {
  let n = 0;
  return {
    parseLine(line, ts) { n++; return [{ kind: "stdout", ts, text: n + ":" + line }]; },
    reset() { n = 0; },
  };
}`;
const text = (outcome) => outcome.Ok.map((e) => e.text);

test("the module imports only the page's clock, began callback, random bytes, poll and memory", () => {
  const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}:${i.kind}`);
  assert.deepEqual(imports.sort(), ["env.memory:memory", "env.parsebox_began:function", "env.parsebox_now_ms:function", "env.parsebox_poll:function", "env.parsebox_random:function"]);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  for (const name of ["parsebox_alloc", "parsebox_free", "parsebox_start", "parsebox_run", "parsebox_result_ptr", "parsebox_post_due", "parsebox_queue", "parsebox_has_next", "parsebox_run_next"]) assert.ok(exports.includes(name), name);
});

test("every instance starts with its realm made: the shipped module is pre-initialised", () => {
  // build.sh's snapshot.mjs: without it each start would parse and run the prelude again.
  const [section] = WebAssembly.Module.customSections(module, "parsebox_initial_pages");
  assert.ok(section, "no parsebox_initial_pages section: the module was not pre-initialised");
  const pages = new DataView(section).getUint32(0, true);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: 512 });
  const noop = () => 0;
  const env = { memory, parsebox_now_ms: () => performance.now(), parsebox_began: noop, parsebox_random: noop, parsebox_poll: noop };
  const x = new WebAssembly.Instance(module, { env }).exports;
  assert.equal(x.parsebox_prepared(), 1);
  // The realm serves the first start, in the page's EngineInstance as here.
  const engine = started(COUNTER);
  assert.deepEqual(text(parse(engine, [["a", "t"]])[0]), ["1:a"]);
});

test("a long native step calls out to the page every few thousand loop turns, so WebKit can end its Worker", () => {
  // crates/parsebox-preempt: JavaScriptCore stops a terminated Worker's wasm only where it calls
  // into the browser, and a backtracking regex (unscreened, as in a Worker engine) runs inside
  // the engine without its bytecode loop. Counted here through the instance's imports.
  let polls = 0;
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (m, imports) {
    const poll = imports.env.parsebox_poll;
    return new Instance(m, { ...imports, env: { ...imports.env, parsebox_poll: () => (polls++, poll()) } });
  };
  let engine;
  try {
    engine = new EngineInstance(module, { maxMemoryBytes: 512 * MIB });
  } finally {
    WebAssembly.Instance = Instance;
  }
  const source = `export function parseStdoutLine(line, ts) {
    return [{ kind: "stdout", ts, text: String(new RegExp("^(a+)+$").test("a".repeat(18) + "b")) }];
  }`;
  assert.equal(JSON.parse(engine.start(source, config({ screenRegexes: false }))).Ok?.entryPoint, "parseStdoutLine");
  polls = 0;
  assert.deepEqual(text(parse(engine, [["x", "t"]])[0]), ["false"]);
  // 2^18 ways to split the a's, each tried: well over a hundred calls at one per 16,384 turns.
  assert.ok(polls > 100, `${polls} calls to env.parsebox_poll`);
});

test("an instance with lineDeadlineMs stops a live line itself, inside a native step", () => {
  // A Worker engine's: the page then ends an idle Worker, not one at work (workers.js says why).
  // The catastrophic regex runs unscreened (as in a Worker) inside one native step; the poll
  // in the engine's loops sees the deadline pass and throws out of the instance.
  const source = `export function createStdoutParser() {
    let n = 0;
    return { parseLine(line, ts) {
      n++;
      if (line === "stuck") new RegExp("^(a+)+$").test("a".repeat(40) + "b");
      return [{ kind: "stdout", ts, text: n + ":" + line }];
    } };
  }`;
  const began = [];
  const engine = new EngineInstance(module, { maxMemoryBytes: 512 * MIB, lineDeadlineMs: 200, onBegan: (seq) => began.push(seq) });
  assert.equal(JSON.parse(engine.start(source, config({ screenRegexes: false }))).Ok?.entryPoint, "createStdoutParser");
  // Honest lines, replayed and live, are answered as without it.
  const ops = [{ op: "newRun", run: 1 }, ...["a", "b"].map((line, i) => ({ op: "line", seq: i + 1, run: 1, line, ts: "t", replay: true }))];
  for (const [i, line] of ["c", "d"].entries()) ops.push({ op: "line", seq: i + 3, run: 1, line, ts: "t", replay: false });
  const answers = JSON.parse(engine.run(JSON.stringify(ops)));
  assert.deepEqual(answers.map(([, o]) => text(o)[0]), ["1:a", "2:b", "3:c", "4:d"]);
  assert.deepEqual(began, [3], "only the first live line of the batch is reported to the page");
  // 2^40 ways to split the a's: it would run for hours; that the call returns at all is the
  // stop (the clock is the deadline's, not this test's).
  assert.throws(() => engine.run(JSON.stringify([{ op: "line", seq: 5, run: 1, line: "stuck", ts: "t", replay: false }])), (e) => {
    assert.ok(e instanceof EngineStoppedError, String(e));
    assert.match(e.message, /stopped a line that ran past its 200 ms deadline/);
    return true;
  });
  assert.throws(() => engine.run("[]"), /engine instance is dead: an earlier call threw \(EngineStoppedError: the engine stopped a line/);
  engine.dispose();
});

test("lineDeadlineMs must be a positive number", () => {
  for (const bad of [0, -1, "100", Number.NaN]) {
    assert.throws(() => new EngineInstance(module, { maxMemoryBytes: 512 * MIB, lineDeadlineMs: bad }), /lineDeadlineMs must be a positive number of milliseconds/);
  }
});

test("the warm-up parser loads and answers each of its lines with entries", () => {
  // A warm-up that failed to load would warm nothing, silently (browsers run it in a Worker).
  const [started, outcomes] = JSON.parse(warmUp(module));
  assert.equal(started.Ok?.entryPoint, "createStdoutParser", JSON.stringify(started));
  assert.equal(outcomes.length, 5);
  for (const [seq, outcome] of outcomes) {
    assert.ok(Array.isArray(outcome.Ok) && outcome.Ok.length > 0, `line ${seq}: ${JSON.stringify(outcome)}`);
  }
  assert.deepEqual(outcomes.flatMap(([, o]) => o.Ok.map((e) => e.kind)), ["assistant", "tool_call", "tool_result", "tool_call", "stdout", "result"]);
});

test("real parsers answer every sample line exactly as they do in Node, under the default line budget (one line takes 95 % of it)", () => {
  for (const name of ["claude-stream-json", "codex-items", "date-ids-gateway", "near-budget-scanner"]) {
    const dir = `../corpus/compat/${name}/`;
    const reference = spawnSync(process.execPath, [here("../corpus/node-reference.mjs"), here(dir + "ui-parser.js"), here(dir + "sample.log")], {
      encoding: "utf8",
      env: { ...process.env, TZ: "UTC" },
      maxBuffer: 64 * MIB,
    });
    assert.equal(reference.status, 0, reference.stderr);
    const expected = JSON.parse(reference.stdout);
    const engine = new EngineInstance(module, { maxMemoryBytes: 256 * MIB });
    // 50 ms: the package's default lineBudgetMs (near-budget-scanner's long line takes 95 % of it).
    assert.equal(JSON.parse(engine.start(readFileSync(here(dir + "ui-parser.js"), "utf8"), config({ lineBudgetMs: 50 }))).Ok?.entryPoint, expected.entryPoint);
    const outcomes = parse(engine, expected.lines.map((l) => [l.line, l.ts]));
    expected.lines.forEach((l, i) => {
      if ("throws" in l) assert.equal(outcomes[i].Err?.code, "threw", `${name} line ${i + 1}`);
      else assert.deepEqual(outcomes[i], { Ok: l.result }, `${name} line ${i + 1}`);
    });
    engine.dispose();
  }
});

test("a syntax error is refused with its position; bad input is refused as data", () => {
  const engine = new EngineInstance(module, { maxMemoryBytes: 64 * MIB });
  const source = "export function createStdoutParser() {\n  return {\n    parseLine(line) { return [ }\n  };\n}\n";
  const { Err } = JSON.parse(engine.start(source, config()));
  assert.equal(Err.code, "syntax_error");
  assert.equal(Err.line, 3);
  assert.equal(typeof Err.column, "number");
  assert.equal(typeof Err.message, "string");
  assert.equal(JSON.parse(engine.start(COUNTER, "{not json")).Err.code, "bad_options");
  // Lines sent to an engine without a parser fail as engine faults; the instance lives on.
  const [outcome] = parse(engine, [["a", "t"]]);
  assert.equal(outcome.Err.code, "engine_fault");
  // The export it drives and the module's shape (what the core puts in status().module).
  assert.deepEqual(JSON.parse(engine.start(COUNTER, config())), {
    Ok: { entryPoint: "createStdoutParser", module: { format: "esm", exports: ["createStdoutParser"], otherExports: [] } },
  });
  assert.deepEqual(text(parse(engine, [["a", "t"]])[0]), ["1:a"]);
});

test("two instances side by side keep separate state", () => {
  const a = started(COUNTER);
  const b = started(COUNTER);
  assert.deepEqual(parse(a, [["x", "t"], ["y", "t"]]).map(text), [["1:x"], ["2:y"]]);
  assert.deepEqual(parse(b, [["z", "t"]]).map(text), [["1:z"]]);
  assert.deepEqual(parse(a, [["w", "t"]], { newRun: false, firstSeq: 3 }).map(text), [["3:w"]]);
  a.dispose();
  b.dispose();
});

test("onBegan hears the live lines whose deadline the core arms from it: a batch's first, and one after the engine's own work", () => {
  const began = [];
  const engine = started(COUNTER, { onBegan: (seq) => began.push(seq) });
  const ops = [
    { op: "newRun", run: 1 },
    { op: "line", seq: 10, run: 1, line: "old", ts: "t", replay: true },
    { op: "line", seq: 11, run: 1, line: "old", ts: "t", replay: true },
    { op: "line", seq: 12, run: 1, line: "new", ts: "t", replay: false },
    { op: "reset", run: 1 },
    { op: "line", seq: 13, run: 1, line: "next", ts: "t", replay: false },
  ];
  const answers = JSON.parse(engine.run(JSON.stringify(ops)));
  // Line 13 starts when line 12's answer leaves: the core arms it from that answer.
  assert.deepEqual(began, [12]);
  assert.deepEqual(answers.map(([seq, o]) => [seq, text(o)]), [[10, ["1:old"]], [11, ["2:old"]], [12, ["3:new"]], [13, ["1:next"]]]);
  // The rest of the same batch, a record at a time (as a Worker runs it): a new run's realm is
  // the engine's own work, so the line after it reports again.
  engine.run(JSON.stringify([{ op: "line", seq: 14, run: 1, line: "more", ts: "t", replay: false }]), false);
  engine.run(JSON.stringify([{ op: "newRun", run: 2 }, { op: "line", seq: 15, run: 2, line: "x", ts: "t", replay: false }]), false);
  assert.deepEqual(began, [12, 15]);
  engine.dispose();
});

test("after a line over its budget, the realm is rebuilt before the next line reports began", () => {
  // Lines that each take a while: the rebuild after the spin line replays them all.
  const source = readFileSync(here("../browser/fixtures/heavy-counter.js"), "utf8");
  const events = [];
  const engine = started(source, { onBegan: (seq) => events.push(["began", seq, performance.now()]) });
  const lines = ["a", "b", "c", "d", "e", "spin", "after"].map((line, i) => ({ op: "line", seq: i + 1, run: 1, line, ts: "t", replay: false }));
  const answers = [];
  engine.run(JSON.stringify([{ op: "newRun", run: 1 }]), true);
  for (const [i, op] of lines.entries()) {
    for (const a of JSON.parse(engine.run(JSON.stringify([op]), i === 0))) answers.push(a);
    events.push(["answered", op.seq, performance.now()]);
  }
  const after = answers.at(-1);
  assert.deepEqual(text(after[1]), ["after #6"], "the state came back: five lines replayed");
  assert.equal(answers[5][1].Err.code, "budget_exceeded");
  // The line after the spin reported began, and only after its realm was rebuilt: the replay
  // of five lines lies between the spin's answer and that report.
  assert.deepEqual(events.filter(([k]) => k === "began").map(([, seq]) => seq), [1, 7]);
  const spinAnswered = events.find(([k, seq]) => k === "answered" && seq === 6)[2];
  const afterBegan = events.find(([k, seq]) => k === "began" && seq === 7)[2];
  const afterAnswered = events.find(([k, seq]) => k === "answered" && seq === 7)[2];
  assert.ok(afterBegan - spinAnswered > afterAnswered - afterBegan, JSON.stringify({ rebuild: afterBegan - spinAnswered, line: afterAnswered - afterBegan }));
  engine.dispose();
});

test("a parser that hoards memory ends its own instance only", () => {
  const HOARDER = `
    const kept = [];
    export function createStdoutParser() {
      return {
        parseLine(line, ts) {
          let s = line + kept.length;
          for (let k = 0; k < 17; k++) s += s; // ~1 MiB of new string per line, kept forever
          kept.push(s);
          return [{ kind: "stdout", ts, text: String(kept.length) }];
        },
      };
    }`;
  const hoarder = started(HOARDER, { maxMemoryBytes: 64 * MIB });
  const neighbour = started(COUNTER);
  parse(neighbour, [["before", "t"]]);
  let ended = null;
  let failedAsData = null;
  for (let i = 0; i < 200 && !ended && !failedAsData; i++) {
    try {
      const [outcome] = parse(hoarder, [[`line ${i}`, "t"]], { newRun: i === 0, firstSeq: i + 1 });
      if (outcome.Err) failedAsData = outcome.Err;
    } catch (e) {
      ended = e;
    }
    assert.ok(hoarder.memoryBytes <= 64 * MIB, `${hoarder.memoryBytes}`);
  }
  if (ended) {
    // Named as what it is: the memory reached its maximum (the trap is its cause).
    assert.ok(ended instanceof EngineMemoryError, String(ended));
    assert.ok(ended.requestedBytes > 0 && ended.memoryBytes <= 64 * MIB, `${ended.requestedBytes} ${ended.memoryBytes}`);
    assert.ok(ended.cause instanceof WebAssembly.RuntimeError || ended.cause instanceof RangeError, String(ended.cause));
    assert.throws(() => hoarder.run("[]"), (e) => e instanceof ParseboxError && /dead/.test(e.message));
  } else {
    assert.equal(failedAsData?.code, "memory_exceeded", JSON.stringify(failedAsData));
  }
  assert.deepEqual(parse(neighbour, [["after", "t"]], { newRun: false, firstSeq: 2 }).map(text), [["2:after"]]);
  const fresh = started(COUNTER, { maxMemoryBytes: 64 * MIB });
  assert.deepEqual(parse(fresh, [["a", "t"]]).map(text), [["1:a"]]);
  for (const e of [hoarder, neighbour, fresh]) e.dispose();
});

test("after dispose every call throws, and dispose can be repeated", () => {
  const engine = started(COUNTER);
  engine.dispose();
  engine.dispose();
  assert.equal(engine.memoryBytes, 0);
  assert.throws(() => engine.run("[]"), ParseboxDisposedError);
  assert.throws(() => engine.start(COUNTER, config()), ParseboxDisposedError);
});

test("size and instantiation time, for the notes", () => {
  const rounds = 20;
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) new EngineInstance(module, { maxMemoryBytes: 64 * MIB }).dispose();
  const instantiate = (performance.now() - t0) / rounds;
  const engine = new EngineInstance(module, { maxMemoryBytes: 64 * MIB });
  const t1 = performance.now();
  engine.start(COUNTER, config());
  const start = performance.now() - t1;
  console.log(
    `parsebox_engine.wasm: ${(bytes.length / MIB).toFixed(2)} MiB raw, ${(gzipSync(bytes, { level: 9 }).length / MIB).toFixed(2)} MiB gzip; ` +
      `instantiate ${instantiate.toFixed(2)} ms (mean of ${rounds}); start() of a small parser ${start.toFixed(1)} ms; ` +
      `memory after start ${(engine.memoryBytes / MIB).toFixed(1)} MiB`,
  );
  engine.dispose();
});
