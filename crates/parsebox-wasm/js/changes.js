// The page's copy of a run's entries, changed as the core says: one rule for a builder's updates
// and a followed run's (the core decides every number; this only moves entries).

/**
 * Applies `{ dropped, from, length, entries }` to `copy`: `dropped` entries leave its front, then
 * the entries from `from` on are `entries`, followed by the last `length - from -
 * entries.length` entries the copy holds already (late answers leave the lines still waiting
 * after them as they were). Returns how many such entries it kept.
 */
export function applyChanges(copy, { dropped, from, length, entries }) {
  if (dropped > 0) copy.splice(0, dropped);
  const kept = length - from - entries.length;
  if (copy.length === length) {
    // As many entries as before (a late answer gave its line as many entries as the generic
    // one): replaced where they stand, the tail untouched (a run opened at once has most of
    // its entries after the first answered one, at every frame).
    for (let i = 0; i < entries.length; i++) copy[from + i] = entries[i];
    return kept;
  }
  const tail = kept > 0 ? copy.slice(copy.length - kept) : [];
  copy.length = from;
  for (const e of entries) copy.push(e);
  for (const e of tail) copy.push(e);
  return kept;
}
