/** Small statistics helpers shared by the benchmarks. */
import { mulberry32 } from '../../server/src/util/hashing.js';

/** The q-quantile (0..1) of `values` by nearest rank; NaN for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** A seeded PRNG so benchmark samples are reproducible. */
export const seededRandom = mulberry32;

/** Milliseconds with two decimals. */
export const ms = (value: number): string => value.toFixed(2);
