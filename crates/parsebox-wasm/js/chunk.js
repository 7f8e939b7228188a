// Chunks as the core takes them: each chunk object numbered (the same number every time a list
// hands it over), and a chunk's fields encoded for the core, its text as UTF-16 code units when
// it is not well-formed.
import { ParseboxChunkError } from "./errors.js";

const idOfChunk = new WeakMap();
let nextChunkId = 1;

/**
 * The chunks' ids: one number per chunk object, the same every time it is handed over (0 for
 * what is no object: no chunk pushed has it, and pushing it throws).
 */
export function chunkIds(chunks) {
  const ids = new Float64Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i];
    if (c === null || typeof c !== "object") continue;
    let id = idOfChunk.get(c);
    if (id === undefined) idOfChunk.set(c, (id = nextChunkId++));
    ids[i] = id;
  }
  return ids;
}

/** Whether `s` holds no lone surrogate (`String.prototype.isWellFormed` where it exists). */
const wellFormed = (s) => (typeof s.isWellFormed === "function" ? s.isWellFormed() : !/[\uD800-\uDFFF]/.test(s));

/** The UTF-16 code units of `s`. */
function utf16(s) {
  const units = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  return units;
}

/**
 * A chunk as the core takes it: `[json]`, its known fields as JSON (the core checks their
 * shape: `ParseboxChunkError`), or `[json, units]` when its text is not well-formed UTF-16
 * (half a surrogate pair, as the server cuts chunks by UTF-16 units): the text then travels as
 * code units, and the core joins the half with its other one, which JSON and UTF-8 could not
 * carry.
 */
export function encodeChunk(chunk) {
  const text = chunk?.chunk;
  const odd = typeof text === "string" && !wellFormed(text);
  // JSON has no NaN or Infinity (they would arrive as null, "no seq"): they travel as text,
  // which the core refuses as it refuses any seq that is not a whole number.
  const seq = chunk?.seq;
  let json;
  try {
    json = JSON.stringify({ ts: chunk?.ts, stream: chunk?.stream, chunk: odd ? "" : text, seq: typeof seq === "number" && !Number.isFinite(seq) ? String(seq) : seq });
  } catch (e) {
    // A BigInt seq, a field whose toJSON throws: not a chunk a stored run can hold.
    throw new ParseboxChunkError(`push: a chunk's fields are JSON values (ts and stream strings, chunk a string, seq a number): ${e?.message ?? String(e)}`);
  }
  return odd ? [json, utf16(text)] : [json];
}
