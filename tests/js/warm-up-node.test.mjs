// engineReady() in Node: the engine's code is warmed in a worker thread that the call starts (as a
// browser's Worker does at compile time), and that thread never keeps a script from exiting.
// Each case runs a script of its own in a fresh Node process, which counts the worker threads
// the package starts and sees exit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = (p) => pathToFileURL(fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url))).href;

/**
 * Runs `body` after initSync in a fresh process; returns what it printed (JSON) and its exit.
 * With `workDelayMs`, what the package posts a worker thread reaches it that much later: a
 * warm-up as slow as a busy machine's. `seen.answered` counts the answers threads gave (a
 * warm-up that failed before it began, as under `--input-type=module`, gives none).
 */
function script(body, { workDelayMs = 0 } = {}) {
  const source = `
    import threads from "node:worker_threads";
    import { syncBuiltinESMExports } from "node:module";
    import { readFileSync } from "node:fs";
    import { fileURLToPath } from "node:url";
    const seen = { started: 0, exited: 0 };
    const delayMs = ${workDelayMs};
    const Thread = threads.Worker;
    threads.Worker = class extends Thread {
      constructor(...args) {
        super(...args);
        seen.started += 1;
        this.once("exit", () => (seen.exited += 1));
      }
      postMessage(m) {
        this.once("message", () => (seen.answered = (seen.answered ?? 0) + 1));
        if (delayMs) setTimeout(() => super.postMessage(m), delayMs);
        else super.postMessage(m);
      }
    };
    syncBuiltinESMExports();
    const pb = await import(${JSON.stringify(pkg("index.js"))});
    const read = (p) => readFileSync(fileURLToPath(p));
    pb.initSync({ module: read(${JSON.stringify(pkg("parsebox_wasm_bg.wasm"))}), engine: read(${JSON.stringify(pkg("parsebox_engine.wasm"))}) });
    const out = {};
    ${body}
    process.on("exit", () => console.log(JSON.stringify({ ...out, ...seen })));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", source], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, `the script did not exit by itself: ${r.signal ?? ""} ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

const PARSER = `export function parseStdoutLine(line, ts) { return [{ kind: "assistant", ts, text: line.toUpperCase() }]; }`;

test("engineReady() warms the engine in a worker thread, ends it, and parsers load after it", () => {
  const got = script(`
    await pb.engineReady();
    out.threadsAtReady = seen.started;
    await pb.engineReady(); // a second call waits for the same warm-up
    const registry = new pb.ParserRegistry({ loadSource: null });
    out.state = registry.registerSource("shout", ${JSON.stringify(PARSER)}).state;
    out.text = registry.parseLine("shout", "hello", "t")[0].text;
    registry.dispose();
  `);
  assert.deepEqual(got, { threadsAtReady: 1, state: "ready", text: "HELLO", started: 1, answered: 1, exited: 1 });
});

test("without engineReady() no thread starts, and a script that only parses exits at once", () => {
  const got = script(`
    const registry = new pb.ParserRegistry({ loadSource: null });
    out.state = registry.registerSource("shout", ${JSON.stringify(PARSER)}).state;
    out.text = registry.parseLine("shout", "hello", "t")[0].text;
  `);
  assert.deepEqual(got, { state: "ready", text: "HELLO", started: 0, exited: 0 });
});

test("engineReady() waits for a warm-up however long it takes: no clock ends the wait", () => {
  // The thread gets its work 6 s late, past the 5 s bound the wait once had: on a busy machine a
  // warm-up took that long, and parsers then started beside it.
  const got = script(
    `
    await pb.engineReady();
    out.answeredAtReady = seen.answered ?? 0;
  `,
    { workDelayMs: 6000 },
  );
  assert.deepEqual(got, { answeredAtReady: 1, answered: 1, started: 1, exited: 1 });
});
