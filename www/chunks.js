// Run-log input for the viewer: Paperclip's stored NDJSON rows ({ ts, stream, chunk, seq? }),
// plain stdout text cut into chunks the way a pipe delivers them, and the per-line pieces the
// viewer feeds to TranscriptBuilder.push so that one slow line never shares a task with another.
// Plain ES module with no DOM use: the sample generator (samples/make-samples.mjs) imports it too.

const STREAMS = new Set(["stdout", "stderr", "system"]);

/** mulberry32: a small seeded generator, so generated chunkings are reproducible. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stored row is an object with a string ts, a known stream and a string chunk. */
function isChunk(row) {
  return (
    row !== null &&
    typeof row === "object" &&
    typeof row.ts === "string" &&
    typeof row.chunk === "string" &&
    STREAMS.has(row.stream) &&
    (row.seq === undefined || typeof row.seq === "number")
  );
}

/** "ndjson" when the first non-empty line is a stored run-log row, else "text". */
export function detectFormat(text) {
  const nl = text.search(/\S/);
  if (nl < 0) return "text";
  const end = text.indexOf("\n", nl);
  const first = text.slice(nl, end < 0 ? undefined : end).trim();
  try {
    return isChunk(JSON.parse(first)) ? "ndjson" : "text";
  } catch {
    return "text";
  }
}

/**
 * Reads Paperclip's stored NDJSON. Torn or malformed rows (a crash mid-write, a truncated page)
 * are skipped and counted, as the server-side reader does.
 */
export function parseStoredNdjson(text) {
  const chunks = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let row;
    try {
      row = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (!isChunk(row)) {
      skipped++;
      continue;
    }
    const c = { ts: row.ts, stream: row.stream, chunk: row.chunk };
    if (typeof row.seq === "number") c.seq = row.seq;
    chunks.push(c);
  }
  return { chunks, skipped };
}

/** Index at or before `i` that does not split a surrogate pair. */
function safeCut(s, i) {
  const c = s.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}

/** Milliseconds an agent plausibly took before writing `line`. */
function pauseBefore(line, rand) {
  let ms = 120 + rand() * 480;
  if (line.length > 1000) ms += 200 + rand() * 600; // a big tool result or file read
  return ms;
}

/**
 * Cuts plain stdout text into chunks: several lines may arrive together, a pipe read sometimes
 * ends mid-line, long lines arrive in 16 KB pieces; timestamps advance as an agent writes.
 */
export function chunkPlainText(text, { start = Date.UTC(2026, 0, 1, 9, 0, 0), seed = 0x5eed, pause = pauseBefore } = {}) {
  const rand = mulberry32(seed);
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const chunks = [];
  let t = start;
  const emit = (chunk) => chunks.push({ ts: new Date(Math.round(t)).toISOString(), stream: "stdout", chunk });
  for (let i = 0; i < lines.length; ) {
    t += pause(lines[i], rand);
    let piece = lines[i++];
    while (i < lines.length && piece.length < 2048 && lines[i].length < 2048 && rand() < 0.3) piece += lines[i++];
    if (piece.length > 40 && rand() < 0.15) {
      const cut = safeCut(piece, Math.floor(piece.length * (0.2 + rand() * 0.6)));
      emit(piece.slice(0, cut));
      t += 20 + rand() * 60;
      piece = piece.slice(cut);
    }
    while (piece.length > 16384) {
      const cut = safeCut(piece, 16384);
      emit(piece.slice(0, cut));
      t += 5 + rand() * 20;
      piece = piece.slice(cut);
    }
    emit(piece);
  }
  return chunks;
}

/**
 * Splits a stdout chunk after each newline, so each piece completes at most one line. Pieces
 * keep the chunk's ts, and a line takes the ts of the chunk that completed it, so the
 * transcript is exactly what pushing the whole chunk gives; stderr/system chunks stay whole.
 */
export function splitForIngest(chunk) {
  if (chunk.stream !== "stdout") return [chunk];
  const text = chunk.chunk;
  let nl = text.indexOf("\n");
  if (nl < 0 || nl === text.length - 1) return [chunk];
  const pieces = [];
  let from = 0;
  while (nl >= 0) {
    pieces.push({ ts: chunk.ts, stream: "stdout", chunk: text.slice(from, nl + 1) });
    from = nl + 1;
    nl = text.indexOf("\n", from);
  }
  if (from < text.length) pieces.push({ ts: chunk.ts, stream: "stdout", chunk: text.slice(from) });
  return pieces;
}
