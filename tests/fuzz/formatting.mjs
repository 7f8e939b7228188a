// The number-formatting property (issue 40): `toFixed`, `toExponential` and `toPrecision` in
// the sandbox answer as in Node for random doubles and digit counts. These are the methods a
// parser uses to show a cost or a duration, and boa's own versions rounded from the wrong
// digits (`(1e-101).toPrecision(2)` was "0.0e+101"). The doubles are random bit patterns,
// everyday magnitudes, short decimals (1.005, 2.675: just below or above a tie) and exact ties
// (k / 2^j), each with a random method and digit count, non-finite and -0 included.
import { Rng, double } from "./random.mjs";
import { tsAt } from "./generate.mjs";
import { nodePackage } from "./package.mjs";

// Each line: [method, digits or null, ...doubles as JSON text]; the entry's text the answers.
const SOURCE = `export function parseStdoutLine(line, ts) {
  const [method, digits, ...xs] = JSON.parse(line);
  // NaN, ±Infinity and -0 come as strings (JSON has no way to write them).
  const out = xs.map((v) => {
    const x = typeof v === "string" ? Number(v) : v;
    return digits === null ? x[method]() : x[method](digits);
  });
  return [{ kind: "system", ts, text: out.join(" ") }];
}
`;

const RANGE = { toFixed: [0, 100], toExponential: [0, 100], toPrecision: [1, 100] };

/** One double of the kinds above. */
function formattable(rng) {
  return rng.weighted([
    [5, () => double(rng)],
    [2, () => (rng.chance(0.5) ? -1 : 1) * rng.int(0, 1e6) / 2 ** rng.int(0, 12)],
    [2, () => Number(`${rng.int(0, 1000)}.${rng.int(0, 1000)}5`) * (rng.chance(0.3) ? -1 : 1)],
    [1, () => rng.pick([0, -0, NaN, Infinity, -Infinity, 1e21, 999.995, 2.675, 1.005, 0.045])],
  ])();
}

/**
 * Runs `lines` lines of `perLine` doubles each through the package (inline) and Node;
 * `{ compared, problems }`, the first few differences described.
 */
export async function formatting({ target = nodePackage(), seed = 1, lines = 500, perLine = 100 } = {}) {
  const rng = new Rng(seed);
  const input = [];
  const expected = [];
  for (let i = 0; i < lines; i++) {
    const method = rng.pick(Object.keys(RANGE));
    const [lo, hi] = RANGE[method];
    // Small digit counts are what parsers use; the whole range is allowed.
    const digits = method !== "toFixed" && rng.chance(0.1) ? null : rng.chance(0.7) ? rng.int(lo, Math.min(hi, 21) + 1) : rng.int(lo, hi + 1);
    const xs = Array.from({ length: perLine }, () => formattable(rng));
    const sent = xs.map((x) => (Number.isFinite(x) && !Object.is(x, -0) ? x : Object.is(x, -0) ? "-0" : String(x)));
    input.push(JSON.stringify([method, digits, ...sent]));
    expected.push(xs.map((x) => (digits === null ? x[method]() : x[method](digits))));
  }
  const session = await target.open("inline", SOURCE);
  try {
    const answers = await session.parseLines(input.map((l, i) => [l, tsAt(i)]));
    const problems = [];
    let compared = 0;
    answers.forEach((entries, i) => {
      const got = entries[0]?.text?.split(" ");
      const want = expected[i];
      const [method, digits, ...xs] = JSON.parse(input[i]);
      for (let k = 0; k < want.length; k++) {
        compared++;
        if (got?.[k] !== want[k] && problems.length < 8) problems.push(`(${xs[k]}).${method}(${digits ?? ""}): Node "${want[k]}", parsebox "${got?.[k]}"`);
      }
    });
    return { compared, problems };
  } finally {
    await session.close();
  }
}
