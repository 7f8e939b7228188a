#!/usr/bin/env node
// `npx parsebox`: `check` and `parse` run on the package's own two modules (cli/main.js). The
// rest (help, version, usage errors) is the `parsebox` command (crates/parsebox-cli) built for
// WASI (parsebox_cli.wasm, crates/parsebox-cli/npm.sh), run by Node's node:wasi: the arguments,
// the files, the standard streams and the exit code pass through. Node >= 20, nothing else.
//
// One thing WASI cannot do is give up a call the sandbox cannot interrupt (one long native
// step): it has no thread to watch from. The command tells this file each watched call's limit
// (`parsebox_cli.call_began`), its loops call `env.parsebox_poll`, and past the limit the poll
// ends the attempt. The command then runs again from the start, told which calls were given up
// (PARSEBOX_GIVEN_UP; crates/parsebox-cli/src/given_up.rs), and does there what the native
// command does at a hang. Its output up to that point is what the earlier attempt wrote
// already, so only what comes after is passed on; what it read from standard input is read
// again from what the earlier attempts read.
//
// Each attempt is a process of its own, started by this file (the supervisor), and a given-up
// attempt exits from inside the poll. An attempt that ended by an exception thrown through the
// command's wasm frames left Node 20's heap damaged for the next one in the same process (a
// module's function read as a symbol, then V8 aborted: CI of stop 58), so none is.
import { readSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Set in an attempt's environment: the process runs the command instead of supervising. */
const ATTEMPT = "PARSEBOX_CLI_ATTEMPT";
/** An attempt's exit code when it gave up a call: the supervisor starts the next one. */
const GAVE_UP_EXIT = 75;
/** An attempt's descriptor for its reports to the supervisor: lines of JSON. */
const REPORT_FD = 3;
/** An attempt's descriptor for the standard input the earlier attempts read, to read again. */
const REPLAY_FD = 4;

/** WASI's errno values this file returns. */
const ERRNO_SUCCESS = 0;
const ERRNO_PIPE = 64;

/** The `[ptr, len]` buffers of an iovec array in `memory`. */
function iovecs(memory, iovs, count) {
  const view = new DataView(memory.buffer);
  const out = [];
  for (let i = 0; i < count; i++) out.push([view.getUint32(iovs + 8 * i, true), view.getUint32(iovs + 8 * i + 4, true)]);
  return out;
}

/** Writes all of `bytes` to `fd`; false when the reader is gone. */
function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (e) {
      if (e.code === "EAGAIN") continue; // a non-blocking pipe that is full: try again
      if (e.code === "EPIPE") return false;
      throw e;
    }
  }
  return true;
}

/** All of `fd` up to its end (the supervisor writes the replay and closes it). */
function readAll(fd) {
  const chunks = [];
  const buffer = Buffer.alloc(64 << 10);
  for (;;) {
    let n;
    try {
      n = readSync(fd, buffer);
    } catch (e) {
      if (e.code === "EAGAIN") continue; // the supervisor has not written it yet
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

/** Tells the supervisor `report` (one line of JSON on REPORT_FD). */
const report = (message) => writeAll(REPORT_FD, Buffer.from(`${JSON.stringify(message)}\n`));

/**
 * One run of the command, in this process: PARSEBOX_GIVEN_UP names the watched calls earlier
 * attempts gave up, PARSEBOX_CLI_SKIP the bytes of stdout and stderr they wrote (this attempt
 * writes them again, and only what comes after is passed on). Standard input is what REPLAY_FD
 * holds, then the real one; each piece read from the real one is reported, for the attempts
 * after. Past a watched call's limit it reports the call and what it wrote, and exits.
 */
async function attempt() {
  // node:wasi says it is experimental on stderr the first time it is loaded: the command's
  // stderr is the Rust command's alone.
  const warn = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const name = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (name === "ExperimentalWarning" && String(warning).includes("WASI")) return;
    warn.call(process, warning, ...rest);
  };
  // Node 20's V8 marking the heap concurrently while the command's memory grows crashed the
  // process now and then (a fatal "unreachable code" in MarkCompactCollector, under
  // WasmMemoryGrow: 4 of 40 runs with Liftoff only, 38 of 40 with TurboFan only); marking on
  // the main thread, set before anything is compiled, crashed in none of 40.
  (await import("node:v8")).setFlagsFromString("--no-concurrent-marking");
  const { WASI } = await import("node:wasi");
  const module = await WebAssembly.compile(await readFile(new URL("./parsebox_cli.wasm", import.meta.url)));

  const skip = JSON.parse(process.env.PARSEBOX_CLI_SKIP ?? "[0,0]");
  const wrote = [0, 0];
  const replay = readAll(REPLAY_FD);
  let replayAt = 0;
  const env = { ...process.env, PWD: process.cwd() };
  delete env[ATTEMPT];
  delete env.PARSEBOX_CLI_SKIP;
  const wasi = new WASI({
    version: "preview1",
    args: ["parsebox", ...process.argv.slice(2)],
    // The command resolves relative paths against PWD (WASI has no working directory of its
    // own), with the whole file system preopened at "/": it reads the files it is given, as
    // the native command does.
    env,
    preopens: { "/": "/" },
    returnOnExit: true,
  });
  const base = wasi.getImportObject().wasi_snapshot_preview1;
  let memory = null;
  let watched = null;
  const system = {
    ...base,
    fd_write(fd, iovs, count, nwritten) {
      if (fd !== 1 && fd !== 2) return base.fd_write(fd, iovs, count, nwritten);
      let total = 0;
      for (const [ptr, len] of iovecs(memory, iovs, count)) {
        const bytes = new Uint8Array(memory.buffer, ptr, len);
        const from = Math.min(len, Math.max(0, skip[fd - 1] - wrote[fd - 1]));
        wrote[fd - 1] += len;
        total += len;
        if (from < len && !writeAll(fd, bytes.subarray(from))) return ERRNO_PIPE;
      }
      new DataView(memory.buffer).setUint32(nwritten, total, true);
      return ERRNO_SUCCESS;
    },
    fd_read(fd, iovs, count, nread) {
      if (fd !== 0) return base.fd_read(fd, iovs, count, nread);
      if (replayAt < replay.length) {
        // What an earlier attempt read: from the replay, not from the stream again.
        let n = 0;
        for (const [ptr, len] of iovecs(memory, iovs, count)) {
          const part = replay.subarray(replayAt + n, Math.min(replay.length, replayAt + n + len));
          new Uint8Array(memory.buffer, ptr, part.length).set(part);
          n += part.length;
          if (part.length < len) break;
        }
        replayAt += n;
        new DataView(memory.buffer).setUint32(nread, n, true);
        return ERRNO_SUCCESS;
      }
      const errno = base.fd_read(fd, iovs, count, nread);
      if (errno === ERRNO_SUCCESS) {
        let n = new DataView(memory.buffer).getUint32(nread, true);
        for (const [ptr, len] of iovecs(memory, iovs, count)) {
          if (n === 0) break;
          const part = Buffer.from(new Uint8Array(memory.buffer, ptr, Math.min(len, n)));
          report({ stdin: part.toString("base64") });
          n -= part.length;
        }
      }
      return errno;
    },
  };
  const instance = new WebAssembly.Instance(module, {
    wasi_snapshot_preview1: system,
    parsebox_cli: {
      call_began: (call, limitMs) => (watched = { call, limitMs, began: performance.now() }),
      call_ended: () => (watched = null),
    },
    env: {
      parsebox_poll: () => {
        if (watched && performance.now() - watched.began > watched.limitMs) {
          // Exits from inside the call: nothing is thrown through the command's frames.
          report({ gaveUp: watched.call, wrote });
          process.exit(GAVE_UP_EXIT);
        }
      },
    },
  });
  memory = instance.exports.memory;
  const code = wasi.start(instance);
  // The command has ended: its code is the supervisor's answer whatever happens to this
  // process after (Node 20 now and then dies of a SIGSEGV at exit, past the command's output).
  report({ done: code });
  process.exit(code);
}

/**
 * Runs the command as attempts, each a process of its own, until one ends without giving up a
 * call; exits with its code. Standard input and output are the attempts' own (inherited); what
 * they read of standard input comes back in their reports, for the next attempt to read again.
 */
function supervise() {
  const givenUp = [];
  let skip = [0, 0];
  const kept = [];
  const next = () => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      env: { ...process.env, [ATTEMPT]: "1", PARSEBOX_GIVEN_UP: givenUp.join(","), PARSEBOX_CLI_SKIP: JSON.stringify(skip) },
      stdio: ["inherit", "inherit", "inherit", "pipe", "pipe"],
    });
    child.stdio[REPLAY_FD].on("error", () => {}); // an attempt that exits before reading it
    child.stdio[REPLAY_FD].end(Buffer.concat(kept));
    let gaveUp = null;
    let done = null;
    let pending = "";
    child.stdio[REPORT_FD].setEncoding("utf8");
    child.stdio[REPORT_FD].on("data", (text) => {
      const lines = (pending + text).split("\n");
      pending = lines.pop();
      for (const line of lines) {
        const m = JSON.parse(line);
        if ("stdin" in m) kept.push(Buffer.from(m.stdin, "base64"));
        else if ("gaveUp" in m) gaveUp = m;
        else if ("done" in m) done = m.done;
      }
    });
    child.on("close", (code, signal) => {
      if (code === GAVE_UP_EXIT && gaveUp) {
        givenUp.push(gaveUp.gaveUp);
        skip = [Math.max(skip[0], gaveUp.wrote[0]), Math.max(skip[1], gaveUp.wrote[1])];
        next();
        return;
      }
      // Exits now: nothing of this process is owed to anyone (an engine thread's end would only
      // hold the exit back).
      if (done !== null) process.exit(done);
      if (signal) process.stderr.write(`parsebox: the command's process ended by ${signal}\n`);
      process.exit(code ?? 70);
    });
  };
  next();
}

if (process.env[ATTEMPT]) await attempt();
else {
  // `check` and `parse` run on the package's own modules (cli/main.js); help, version and usage
  // errors are the Rust command's.
  const { main } = await import("./cli/main.js");
  const code = await main(process.argv.slice(2));
  if (code === null) supervise();
  else {
    // The engines' threads are not waited for: the command has said everything.
    process.exitCode = code;
    process.exit(code);
  }
}
