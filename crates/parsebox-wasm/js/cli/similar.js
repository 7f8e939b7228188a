// "Did you mean": which known names a mistyped one is like, by the Jaro similarity above 0.7,
// as the native command's argument reader (clap, with strsim's Jaro) suggests them.

/**
 * The Jaro similarity of `a` and `b` (by code point): 1 for equal texts, 0 for texts with
 * nothing in common.
 * @param {string} a
 * @param {string} b
 */
export function jaro(a, b) {
  const x = [...a];
  const y = [...b];
  if (x.length === 0 && y.length === 0) return 1;
  if (x.length === 0 || y.length === 0) return 0;
  // Characters match when equal and at most `window` places apart.
  const window = Math.max(0, Math.floor(Math.max(x.length, y.length) / 2) - 1);
  const xMatched = new Array(x.length).fill(false);
  const yMatched = new Array(y.length).fill(false);
  let matches = 0;
  for (let i = 0; i < x.length; i++) {
    const end = Math.min(y.length, i + window + 1);
    for (let j = Math.max(0, i - window); j < end; j++) {
      if (!yMatched[j] && x[i] === y[j]) {
        xMatched[i] = yMatched[j] = true;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  // Half the matched characters that are out of order.
  let outOfOrder = 0;
  let j = 0;
  for (let i = 0; i < x.length; i++) {
    if (!xMatched[i]) continue;
    while (!yMatched[j]) j++;
    if (x[i] !== y[j]) outOfOrder++;
    j++;
  }
  const transpositions = Math.floor(outOfOrder / 2);
  return (matches / x.length + matches / y.length + (matches - transpositions) / matches) / 3;
}

/**
 * The `candidates` like `text` (similarity above 0.7), least alike first; of equally alike
 * ones, the later candidate comes later.
 * @param {string} text
 * @param {Iterable<string>} candidates
 * @returns {string[]}
 */
export function similarTo(text, candidates) {
  /** @type {[number, string][]} */
  const alike = [];
  for (const candidate of candidates) {
    const score = jaro(text, candidate);
    if (score > 0.7) alike.push([score, candidate]);
  }
  // A stable sort keeps equally alike candidates in the order given.
  return alike.sort((p, q) => p[0] - q[0]).map(([, candidate]) => candidate);
}
