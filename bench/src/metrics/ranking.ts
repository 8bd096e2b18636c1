/**
 * Pairwise ranking skill: the numerator and denominator of an AUC (the Mann–Whitney statistic).
 * Kept as counts, not a ratio, so callers can pool the pairs of many tasks before dividing.
 */

/** Pairs (p, n) of `positives` × `negatives` with p > n (ties count half), and the number of pairs. */
export function concordantPairs(positives: readonly number[], negatives: readonly number[]): { wins: number; pairs: number } {
  let wins = 0;
  for (const p of positives) {
    for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
  }
  return { wins, pairs: positives.length * negatives.length };
}
