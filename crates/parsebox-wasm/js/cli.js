#!/usr/bin/env node
// `npx parsebox`: the `parsebox` command (crates/parsebox-cli) built for WASI
// (parsebox_cli.wasm, crates/parsebox-cli/npm.sh), run by Node's node:wasi. The arguments, the
// files, the standard streams and the exit code pass through: every check, every flag, the
// output and the exit codes are the Rust command's own. Node >= 20, nothing else.
//
// One thing WASI cannot do is give up a call the sandbox cannot interrupt (one long native
// step): it has no thread to watch from. The command tells this file each watched call's limit
// (`parsebox_cli.call_began`), its loops call `env.parsebox_poll`, and past the limit the poll
// throws, which ends the attempt. The command then runs again from the start, told which calls
// were given up (PARSEBOX_GIVEN_UP; crates/parsebox-cli/src/given_up.rs), and does there what
// the native command does at a hang. Its output up to that point is what the earlier attempt
// wrote already, so only what comes after is passed on; what it read from standard input is
// read again from what the first attempt kept.
import { writeSync } from "node:fs";
import { readFile } from "node:fs/promises";

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
// WasmMemoryGrow: 4 of 40 runs with Liftoff only, 38 of 40 with TurboFan only); marking on the
// main thread, set before anything is compiled, crashed in none of 40.
(await import("node:v8")).setFlagsFromString("--no-concurrent-marking");
const { WASI } = await import("node:wasi");

/** WASI's errno values this file returns. */
const ERRNO_SUCCESS = 0;
const ERRNO_PIPE = 64;

/** Thrown from the command's poll when a watched call ran past its limit: ends the attempt. */
class GaveUp extends Error {
  constructor(call) {
    super(`watched call ${call} given up`);
    this.call = call;
  }
}

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

/** Standard input as the attempts so far read it, for the attempts after them. */
const stdinKept = { chunks: [], length: 0, joined: null };

/** The bytes of `stdinKept`, joined once for an attempt's replay. */
function keptBytes() {
  stdinKept.joined ??= Buffer.concat(stdinKept.chunks, stdinKept.length);
  return stdinKept.joined;
}

/**
 * One run of the command. Returns its exit code, or throws `GaveUp`. `givenUp`: the watched
 * calls the earlier attempts gave up; `skip`: the bytes of stdout and stderr they wrote (this
 * attempt writes them again, and only what comes after is passed on). `wrote` counts this
 * attempt's.
 */
function attempt(module, givenUp, skip, wrote) {
  const wasi = new WASI({
    version: "preview1",
    args: ["parsebox", ...process.argv.slice(2)],
    // The command resolves relative paths against PWD (WASI has no working directory of its
    // own), with the whole file system preopened at "/": it reads the files it is given, as
    // the native command does.
    env: { ...process.env, PWD: process.cwd(), PARSEBOX_GIVEN_UP: givenUp.join(",") },
    preopens: { "/": "/" },
    returnOnExit: true,
  });
  const imports = wasi.getImportObject();
  const base = imports.wasi_snapshot_preview1;
  let memory = null;
  let watched = null;
  let replayAt = 0; // how much of stdinKept this attempt has read
  const system = {
    ...base,
    fd_write(fd, iovs, count, nwritten) {
      if (fd !== 1 && fd !== 2) return base.fd_write(fd, iovs, count, nwritten);
      let total = 0;
      for (const [ptr, len] of iovecs(memory, iovs, count)) {
        const bytes = new Uint8Array(memory.buffer, ptr, len);
        const from = Math.min(len, Math.max(0, skip[fd] - wrote[fd]));
        wrote[fd] += len;
        total += len;
        if (from < len && !writeAll(fd, bytes.subarray(from))) return ERRNO_PIPE;
      }
      new DataView(memory.buffer).setUint32(nwritten, total, true);
      return ERRNO_SUCCESS;
    },
    fd_read(fd, iovs, count, nread) {
      if (fd !== 0) return base.fd_read(fd, iovs, count, nread);
      const kept = stdinKept.length;
      if (replayAt < kept) {
        // What an earlier attempt read: from the bytes kept, not from the stream again.
        const all = keptBytes();
        let n = 0;
        for (const [ptr, len] of iovecs(memory, iovs, count)) {
          const part = all.subarray(replayAt + n, Math.min(kept, replayAt + n + len));
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
          stdinKept.chunks.push(part);
          stdinKept.length += part.length;
          stdinKept.joined = null;
          n -= part.length;
        }
        replayAt = stdinKept.length;
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
        if (watched && performance.now() - watched.began > watched.limitMs) throw new GaveUp(watched.call);
      },
    },
  });
  memory = instance.exports.memory;
  return wasi.start(instance);
}

const module = await WebAssembly.compile(await readFile(new URL("./parsebox_cli.wasm", import.meta.url)));
const givenUp = [];
let skip = { 1: 0, 2: 0 };
for (;;) {
  const wrote = { 1: 0, 2: 0 };
  try {
    process.exitCode = attempt(module, givenUp, skip, wrote);
    break;
  } catch (e) {
    if (!(e instanceof GaveUp)) throw e;
    givenUp.push(e.call);
    skip = { 1: Math.max(skip[1], wrote[1]), 2: Math.max(skip[2], wrote[2]) };
  }
}
