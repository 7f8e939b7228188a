// Pre-initialises the engine module (build.sh's last step): instantiates it once, calls
// `parsebox_prepare` (a realm with the prelude evaluated, most of what loading a parser costs)
// and writes a module whose initial memory is that instance's memory. Every instance of the
// written module starts with the realm made, so `parsebox_start` only loads the parser.
//
//   node crates/parsebox-engine-wasm/snapshot.mjs IN.wasm OUT.wasm
//
// What the written module differs in, and why each change is safe:
// - the data section: the prepared memory's non-zero bytes from the first static-data byte up
//   (the stack below it is empty between calls; the stack pointer is back at its start);
// - the memory import's minimum: the prepared memory's size, so the allocator's next
//   `memory.grow` continues where the prepared heap ends. A custom section
//   `parsebox_initial_pages` (u32, little-endian) tells engine.js that size;
// - no start function: the linker's start function zero-fills .bss, which would wipe the
//   prepared statics (the page gives each instance a fresh, zeroed memory, and the data
//   section now holds .bss as prepared).
// The instance must not ask for random bytes while preparing (they would be frozen into every
// instance); the clock it may read (a constant is given); any other import fails the build.
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node snapshot.mjs IN.wasm OUT.wasm");
  process.exit(2);
}
const PAGE = 65536;
/** The host's least memory per engine (parsebox-host MIN_MEMORY_BYTES, 32 MiB), in pages. */
const MIN_MEMORY_PAGES = 512;
/**
 * Zero runs shorter than this stay inside a segment. A page's worth: such a run never covers a
 * whole 4 KiB page, so an instance writes (and keeps resident) no page it would not write
 * anyway, and the image stays a handful of segments that compress as one (brotli: 15 KB less
 * than splitting at every 16 zero bytes, ~4,000 segments).
 */
const MERGE_GAP = 4096;

const fail = (why) => {
  console.error(`snapshot.mjs: ${why}`);
  process.exit(1);
};

// ---- reading the module -------------------------------------------------------------------
const bytes = readFileSync(input);
function reader(buf, pos) {
  const r = {
    pos,
    byte: () => buf[r.pos++],
    u32() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = buf[r.pos++];
        result += (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80)) return result;
        shift += 7;
      }
    },
    name() {
      const len = r.u32();
      const s = buf.subarray(r.pos, r.pos + len).toString("utf8");
      r.pos += len;
      return s;
    },
  };
  return r;
}
function uleb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}
function section(id, body) {
  return Buffer.concat([Buffer.from([id, ...uleb(body.length)]), body]);
}

/** The module's sections: `{ id, start, end }` of each body. */
const sections = [];
{
  const r = reader(bytes, 8);
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    sections.push({ id, start: r.pos, end: r.pos + size });
    r.pos += size;
  }
}
const find = (id) => sections.filter((s) => s.id === id);

/** The imports: how many functions are imported, and the memory import's limits (where they
 * start and end, and their values). */
function readImports() {
  const [imports] = find(2);
  const r = reader(bytes, imports.start);
  let functions = 0;
  let memory = null;
  const limits = () => {
    const flags = r.u32();
    const min = r.u32();
    const max = flags & 1 ? r.u32() : undefined;
    return { flags, min, max };
  };
  for (let n = r.u32(); n > 0; n--) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    if (kind === 0) {
      r.u32();
      functions++;
    } else if (kind === 1) {
      r.byte();
      limits();
    } else if (kind === 3) r.pos += 2;
    else if (kind === 2) {
      if (module !== "env" || name !== "memory") fail(`unexpected memory import ${module}.${name}`);
      const limitsAt = r.pos;
      memory = { limitsAt, ...limits(), limitsEnd: r.pos };
    } else fail(`unknown import kind ${kind}`);
  }
  if (!memory) fail("the module does not import its memory");
  return { functions, memory };
}

/** The active data segments' offsets (all `i32.const`, memory 0). */
function dataSegments() {
  const [data] = find(11);
  if (!data) return [];
  const r = reader(bytes, data.start);
  const segments = [];
  for (let n = r.u32(); n > 0; n--) {
    const flags = r.u32();
    if (flags !== 0) fail(`data segment with flags ${flags}: only active segments of memory 0 are handled`);
    if (r.byte() !== 0x41) fail("a data segment's offset is not an i32.const");
    const offset = r.u32();
    if (r.byte() !== 0x0b) fail("a data segment's offset is not a lone i32.const");
    const len = r.u32();
    segments.push({ offset, len });
    r.pos += len;
  }
  return segments;
}

/** The start function must only zero-fill a range at or above `floor` (the linker's .bss fill). */
function checkStart(floor) {
  const [start] = find(8);
  if (!start) return;
  const funcIndex = reader(bytes, start.start).u32();
  const imported = readImports().functions;
  const [code] = find(10);
  const r = reader(bytes, code.start);
  const count = r.u32();
  const index = funcIndex - imported;
  if (index < 0 || index >= count) fail("the start function is imported");
  for (let i = 0; i < index; i++) {
    const bodySize = r.u32();
    r.pos += bodySize;
  }
  const size = r.u32();
  const end = r.pos + size;
  if (r.u32() !== 0) fail("the start function has locals: it is not the linker's .bss fill");
  // i32.const dst; i32.const 0; i32.const len; memory.fill 0; end
  const op = () => r.byte();
  // i32.const operands are signed LEB128; these are non-negative, which read the same unsigned.
  const signed = () => r.u32();
  if (op() !== 0x41) fail("unexpected start function");
  const dst = signed();
  if (op() !== 0x41 || signed() !== 0) fail("unexpected start function");
  if (op() !== 0x41) fail("unexpected start function");
  signed();
  if (op() !== 0xfc || r.u32() !== 11 || op() !== 0) fail("unexpected start function");
  if (op() !== 0x0b || r.pos !== end) fail("unexpected start function");
  if (dst < floor) fail("the start function fills memory below the static data");
}

const mem = readImports().memory;
const segments = dataSegments();
if (segments.length === 0) fail("the module has no data segments");
const dataStart = Math.min(...segments.map((s) => s.offset));
checkStart(dataStart);

// ---- preparing an instance ----------------------------------------------------------------
const memory = new WebAssembly.Memory({ initial: mem.min, maximum: MIN_MEMORY_PAGES });
let clockReads = 0;
const env = {
  memory,
  parsebox_now_ms: () => {
    clockReads++;
    return 0;
  },
  parsebox_began: () => fail("parsebox_began called while preparing"),
  parsebox_random: () => fail("random bytes asked for while preparing: they would be frozen into every instance"),
  parsebox_poll: () => {},
};
const module = new WebAssembly.Module(bytes);
const instance = new WebAssembly.Instance(module, { env });
const x = instance.exports;
const answerOf = (len) => Buffer.from(memory.buffer, x.parsebox_result_ptr() >>> 0, len >>> 0).toString("utf8");
const answer = answerOf(x.parsebox_prepare());
if (answer !== '{"Ok":null}') fail(`parsebox_prepare answered ${answer}`);
if (x.parsebox_prepared() !== 1) fail("parsebox_prepared() is not 1 after parsebox_prepare");

const image = new Uint8Array(memory.buffer);
const pages = image.length / PAGE;
if (pages >= MIN_MEMORY_PAGES) fail(`the prepared memory (${pages} pages) must stay under the host's least maximum`);

// ---- writing the module -------------------------------------------------------------------
const runs = [];
for (let i = dataStart; i < image.length; ) {
  while (i < image.length && image[i] === 0) i++;
  if (i >= image.length) break;
  let end = i;
  let zeros = 0;
  for (let j = i; j < image.length && zeros < MERGE_GAP; j++) {
    if (image[j] === 0) zeros++;
    else {
      zeros = 0;
      end = j + 1;
    }
  }
  runs.push([i, end]);
  i = end;
}
const dataBody = [Buffer.from(uleb(runs.length))];
let imageBytes = 0;
for (const [from, to] of runs) {
  // Offsets are i32.const operands: signed LEB128. Positive offsets below 2^31 encode as the
  // unsigned form when the top bit of the last group is clear; add a zero group otherwise.
  const off = uleb(from);
  if (off[off.length - 1] & 0x40) {
    off[off.length - 1] |= 0x80;
    off.push(0);
  }
  dataBody.push(Buffer.from([0, 0x41, ...off, 0x0b, ...uleb(to - from)]), Buffer.from(image.subarray(from, to)));
  imageBytes += to - from;
}
const importsAt = find(2)[0];
const limits = [mem.flags, ...uleb(pages), ...(mem.max === undefined ? [] : uleb(mem.max))];
const importBody = Buffer.concat([
  bytes.subarray(importsAt.start, mem.limitsAt),
  Buffer.from(limits),
  bytes.subarray(mem.limitsEnd, importsAt.end),
]);
const pagesSection = Buffer.alloc(4);
pagesSection.writeUInt32LE(pages);
const custom = Buffer.concat([Buffer.from(uleb("parsebox_initial_pages".length)), Buffer.from("parsebox_initial_pages"), pagesSection]);

const out = [bytes.subarray(0, 8)];
for (const s of sections) {
  const body = bytes.subarray(s.start, s.end);
  if (s.id === 2) out.push(section(2, importBody));
  else if (s.id === 8) continue;
  else if (s.id === 11) out.push(section(11, Buffer.concat(dataBody)));
  else if (s.id === 12) out.push(section(12, Buffer.from(uleb(runs.length))));
  else out.push(section(s.id, body));
}
out.push(section(0, custom));
const written = Buffer.concat(out);

// ---- checking the written module ----------------------------------------------------------
{
  const check = new WebAssembly.Memory({ initial: pages, maximum: MIN_MEMORY_PAGES });
  const cx = new WebAssembly.Instance(new WebAssembly.Module(written), {
    env: { ...env, memory: check, parsebox_now_ms: () => performance.now() },
  }).exports;
  if (cx.parsebox_prepared() !== 1) fail("an instance of the written module has no prepared realm");
  const differs = Buffer.compare(Buffer.from(check.buffer, dataStart), Buffer.from(memory.buffer, dataStart));
  if (differs !== 0) fail("an instance of the written module does not start with the prepared memory");
}
writeFileSync(output, written);
console.log(
  `snapshot.mjs: ${pages} pages, ${runs.length} segments, ${imageBytes} bytes of prepared memory ` +
    `(static data was ${segments.reduce((a, s) => a + s.len, 0)}); clock read ${clockReads}×; ` +
    `${bytes.length} → ${written.length} bytes`,
);
