/**
 * The bounded verification pool of ChunkShapley (§3.3(d), Algorithm 2 line 27):
 * (i) Shapley prefixes π_φ[1:n] for n = 1..N_v, (ii) short Δ prefixes π_Δ[1:n] for n = 1..N_Δ
 * (the strong single-chunk baseline), and (iii) every size-2 and size-3 combination among the
 * top-L chunks by Δ, deduplicated, in that order.
 */
import { maskOf } from './shapley.js';

export interface PoolOptions {
  /** N_v: longest Shapley prefix (default K: the paper's pool sizes, Table 5, match it). */
  shapleyPrefixes: number;
  /** N_Δ: longest Δ prefix. */
  deltaPrefixes: number;
  /** L: combinations are drawn from the top-L chunks by Δ (paper default 3). */
  topL: number;
}

/** Indexes sorted by score, descending; ties by index so the order is deterministic. */
export function argsortDescending(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** The deduplicated candidate coalitions as bitmasks, in proposal order. */
export function buildPool(phi: readonly number[], deltas: readonly number[], options: PoolOptions): number[] {
  const byPhi = argsortDescending(phi);
  const byDelta = argsortDescending(deltas);
  const pool: number[] = [];
  const add = (mask: number) => {
    if (mask !== 0 && !pool.includes(mask)) pool.push(mask);
  };
  for (let n = 1; n <= Math.min(options.shapleyPrefixes, byPhi.length); n++) add(maskOf(byPhi.slice(0, n)));
  for (let n = 1; n <= Math.min(options.deltaPrefixes, byDelta.length); n++) add(maskOf(byDelta.slice(0, n)));
  const top = byDelta.slice(0, options.topL);
  for (const size of [2, 3]) for (const combination of combinations(top, size)) add(maskOf(combination));
  return pool;
}

/** All `size`-element combinations of `items`, in lexicographic order of positions. */
export function combinations<T>(items: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  if (items.length < size) return [];
  const [first, ...rest] = items;
  return [...combinations(rest, size - 1).map((c) => [first!, ...c]), ...combinations(rest, size)];
}
