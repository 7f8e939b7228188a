#!/usr/bin/env node
// The differential fuzzer's command line: generated parsers × generated logs × random chunk
// splits, each run natively in Node and through the package (inline and in a Worker), answers
// compared byte for byte. A mismatch is printed, shrunk and saved to tests/fuzz/corpus/.
//
//   node tests/fuzz/run.mjs [--seed N] [--cases K | --minutes M] [--host inline|worker|both]
//                           [--browser] [--lone-surrogates] [--no-save] [--no-shrink]
//   node tests/fuzz/run.mjs --corpus [--match TEXT] [--host …]   every corpus case (named …TEXT…)
//   node tests/fuzz/run.mjs --roundtrip [--doubles N]      the exact-values property
//   node tests/fuzz/run.mjs --write-corpus                 (re)writes the named corpus shapes
//
// `--browser` runs the package in headless Chromium instead of Node (the reference stays Node).
// Ends with `N passed, M failed` (cases, or property runs); exit code 1 when anything failed.
import { generateCase } from "./generate.mjs";
import { readCorpus, writeCase, writeNamedCorpus } from "./corpus.mjs";

// The package side loads pkg/ (built by crates/parsebox-wasm/package.sh); --write-corpus needs none.
const needsPackage = () => Promise.all([import("./differential.mjs"), import("./roundtrip.mjs"), import("./package.mjs")]);
let HOSTS, KNOWN, describe, runCase, shrink, roundTrip, target;

function parseArgs(argv) {
  const o = { seed: null, cases: null, minutes: null, host: "both", browser: false, lone: false, save: true, shrink: true, corpus: false, roundtrip: false, doubles: 1_000_000, writeCorpus: false, match: "" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--seed") o.seed = Number(value()) >>> 0;
    else if (a === "--cases") o.cases = Number(value());
    else if (a === "--minutes") o.minutes = Number(value());
    else if (a === "--host") o.host = value();
    else if (a === "--doubles") o.doubles = Number(value());
    else if (a === "--lone-surrogates") o.lone = true;
    else if (a === "--browser") o.browser = true;
    else if (a === "--no-save") o.save = false;
    else if (a === "--no-shrink") o.shrink = false;
    else if (a === "--corpus") o.corpus = true;
    else if (a === "--match") o.match = value();
    else if (a === "--roundtrip") o.roundtrip = true;
    else if (a === "--write-corpus") o.writeCorpus = true;
    else throw new Error(`unknown argument ${a} (see the header of tests/fuzz/run.mjs)`);
  }
  if (!["inline", "worker", "both"].includes(o.host)) throw new Error("--host must be inline, worker or both");
  return o;
}

const hostsOf = (o) => (o.host === "both" ? HOSTS : [o.host]);

/**
 * Prints a case's mismatches and saves findings, shrunk: every NEW mismatch, and the first
 * mismatch of each known kind the corpus has no finding of yet (one per known bug is enough).
 */
async function report(c, mismatches, o, saved) {
  console.log(`\ncase ${c.name} (seed ${c.seed}): ${mismatches.length} mismatch(es)`);
  for (const m of mismatches) console.log(describe(m, c));
  if (!o.save) return;
  for (const m of mismatches) {
    const kind = m.known ?? "new";
    if (m.known && saved.has(kind)) continue;
    if (!m.known && saved.has(`new-${c.seed}`)) continue;
    saved.add(m.known ? kind : `new-${c.seed}`);
    const small = o.shrink ? await shrink(c, m, { target }) : c;
    const note = `finding: ${m.check} (${m.host}, ${target.name}) ${m.known ? KNOWN[m.known] : "NEW mismatch"}; from seed ${c.seed}${o.lone ? " with --lone-surrogates" : ""}`;
    const file = writeCase(`finding-${kind}-${m.check}-${m.host}-${c.seed}`, small, note, { known: m.known ?? null, check: m.check, host: m.host });
    console.log(`  saved ${file}`);
  }
}

async function fuzz(o) {
  const seed = o.seed ?? (Date.now() >>> 0);
  const deadline = o.minutes ? Date.now() + o.minutes * 60_000 : Infinity;
  const cases = o.cases ?? (o.minutes ? Infinity : 50);
  console.log(`fuzzing from seed ${seed}: ${o.minutes ? `${o.minutes} min` : `${cases} cases`}, host ${o.host} in ${target.name}${o.lone ? ", lone surrogates" : ""}`);
  let passed = 0;
  let failed = 0;
  const saved = new Set(readCorpus().map((k) => k.known).filter(Boolean));
  const known = {};
  let lastNote = Date.now();
  for (let i = 0; i < cases && Date.now() < deadline; i++) {
    const c = generateCase((seed + i) >>> 0, { loneSurrogates: o.lone });
    const { mismatches } = await runCase(c, { hosts: hostsOf(o), target });
    if (mismatches.length === 0) passed++;
    else {
      failed++;
      for (const m of mismatches) known[m.known ?? "new"] = (known[m.known ?? "new"] ?? 0) + 1;
      await report(c, mismatches, o, saved);
    }
    if (Date.now() - lastNote > 30_000) {
      lastNote = Date.now();
      console.log(`… ${passed + failed} cases, ${failed} failed ${JSON.stringify(known)}`);
    }
  }
  if (failed) console.log(`mismatches by kind: ${JSON.stringify(known)}`);
  return [passed, failed];
}

async function corpus(o) {
  let passed = 0;
  let failed = 0;
  for (const c of readCorpus().filter((k) => k.file.includes(o.match))) {
    const { mismatches } = await runCase(c, { hosts: hostsOf(o), target });
    if (mismatches.length === 0) passed++;
    else {
      failed++;
      console.log(`\ncorpus ${c.file}:`);
      for (const m of mismatches) console.log(describe(m, c));
    }
  }
  return [passed, failed];
}

async function roundtrip(o) {
  let passed = 0;
  let failed = 0;
  for (const host of hostsOf(o)) {
    const r = await roundTrip({ host, target, seed: o.seed ?? 1, doubles: o.doubles });
    console.log(`round trip (${host}, ${target.name}): ${r.compared} values compared, ${r.failed ? `${r.failed} differ (${r.offByUlp} by 1–2 ulp: known bug 1; ${r.toJSONKey} with a toJSON key: an open finding)` : "all exact"}`);
    for (const p of r.problems) console.log(`  ${p}`);
    if (r.failed) failed++;
    else passed++;
  }
  return [passed, failed];
}

let o;
try {
  o = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`run.mjs: ${e.message}`);
  process.exit(2);
}
let result;
if (o.writeCorpus) {
  const files = writeNamedCorpus();
  console.log(`wrote ${files.length} corpus files`);
  result = [files.length, 0];
} else {
  const [differential, property, node] = await needsPackage();
  ({ HOSTS, KNOWN, describe, runCase, shrink } = differential);
  ({ roundTrip } = property);
  target = o.browser ? await (await import("./browser.mjs")).browserPackage() : node.nodePackage();
  try {
    if (o.corpus) result = await corpus(o);
    else if (o.roundtrip) result = await roundtrip(o);
    else result = await fuzz(o);
  } finally {
    await target.close();
  }
}
console.log(`${result[0]} passed, ${result[1]} failed`);
process.exit(result[1] ? 1 : 0);
