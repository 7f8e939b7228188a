// Reading a log a line at a time in bounded memory (a line longer than the command's limit is
// kept only up to it), the timestamps the command gives lines without their own, and reading a
// named file whole up to a cap (a parser, a package.json, a sample log): a file, or a device
// such as /dev/zero, larger than its use can need is refused before it is read whole.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { CommandError, EXIT_USAGE } from "./errors.js";

/** The first line's timestamp: 2026-01-01T00:00:00.000Z (line i is i seconds later). */
const BASE_MS = Date.UTC(2026, 0, 1);

/** The timestamp of the `i`th line handed to the parser (the corpus' rule). */
export const lineTs = (i) => new Date(BASE_MS + i * 1000).toISOString();

/** Whether a line (without its `\n`) is handed to the parser: not blank as JavaScript trims. */
export const isFed = (raw) => raw.replace(/\r$/, "").trim() !== "";

/** `12,345`. */
export const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** An error reading `path`, phrased for a person. */
export function readError(path, e) {
  const what = { ENOENT: "no such file", EACCES: "permission denied", EISDIR: "is a directory, not a file" }[e?.code] ?? (e instanceof Error ? e.message : String(e));
  return new CommandError(`cannot read ${path}: ${what}`, EXIT_USAGE);
}

/**
 * The bytes of the file at `path` if it holds at most `cap` of them; otherwise a usage error
 * naming `what` the file is for and `note` (a clause in parentheses, or empty).
 * @returns {Buffer}
 */
export function readCapped(path, cap, what, note) {
  let fd;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw readError(path, e);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw readError(path, { code: "EISDIR" });
    const parts = [];
    let total = 0;
    const buf = Buffer.alloc(Math.min(cap + 1, 1 << 20));
    for (;;) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, cap + 1 - total), null);
      if (n === 0) break;
      parts.push(Buffer.from(buf.subarray(0, n)));
      total += n;
      if (total > cap) {
        const size = stat.isFile() ? `is ${thousands(stat.size)} bytes` : `has more than ${thousands(cap)} bytes`;
        throw new CommandError(`${path} ${size}; ${what} may be at most ${thousands(cap)} bytes${note}`, EXIT_USAGE);
      }
    }
    return Buffer.concat(parts, total);
  } catch (e) {
    throw e instanceof CommandError ? e : readError(path, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of a byte stream, in batches (the lines each piece read completed), each line as
 * `{ bytes, consumed, cutFrom }`: `bytes` the line with its `\n` (at most `maxBytes` plus one
 * character of text when it was longer: `cutFrom` is then its whole length, and the rest is
 * read past, not kept), `consumed` the input bytes it took.
 * @param {AsyncIterable<Buffer>} chunks
 * @param {number} maxBytes
 */
export async function* boundedLines(chunks, maxBytes) {
  let parts = [];
  let kept = 0; // bytes in parts
  let length = 0; // the line's whole length so far
  const finish = (ended) => {
    const text = Buffer.concat(parts, kept);
    const consumed = length + (ended ? 1 : 0);
    let line;
    let cutFrom = null;
    if (length <= maxBytes) line = ended ? Buffer.concat([text, NEWLINE]) : text;
    else {
      // Past the limit: the first character boundary after maxBytes, so the line stays over it.
      let end = maxBytes + 1;
      while (end < text.length && (text[end] & 0xc0) === 0x80) end++;
      line = Buffer.concat([text.subarray(0, end), NEWLINE]);
      cutFrom = length;
    }
    parts = [];
    kept = 0;
    length = 0;
    return { bytes: line, consumed, cutFrom };
  };
  for await (const chunk of chunks) {
    const batch = [];
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const end = nl === -1 ? chunk.length : nl;
      const room = Math.max(0, maxBytes + 4 - kept);
      const take = Math.min(room, end - at);
      if (take > 0) {
        parts.push(chunk.subarray(at, at + take));
        kept += take;
      }
      length += end - at;
      at = end;
      if (nl !== -1) {
        at = nl + 1;
        batch.push(finish(true));
      }
    }
    if (batch.length > 0) yield batch;
  }
  if (length > 0 || kept > 0) yield [finish(false)];
}

const NEWLINE = Buffer.from("\n");
