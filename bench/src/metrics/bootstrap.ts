/**
 * Percentile bootstrap confidence intervals, seeded so a report is reproducible. The paired
 * version resamples TASKS, keeping each task's two policy scores together, which is what makes
 * a difference between policies on the same tasks significant or not (as the Rivet paper reports).
 */
import { seededRandom } from '../stats.js';

/** A mean with its confidence interval. */
export interface Interval {
  mean: number;
  low: number;
  high: number;
}

/** Bootstrap settings; the defaults are 2,000 resamples at 95 %. */
export interface BootstrapOptions {
  resamples?: number;
  /** Confidence level in (0, 1). */
  confidence?: number;
  seed?: number;
}

const DEFAULTS = { resamples: 2_000, confidence: 0.95, seed: 1 };

/** Mean of `values` with a percentile-bootstrap interval; NaNs for an empty list. */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Interval {
  return pairedBootstrap(values, values.map(() => 0), options);
}

/**
 * Mean of a[i] − b[i] over tasks with a percentile-bootstrap interval: each resample draws
 * n task indices with replacement and averages the differences at those indices.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): Interval {
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length: ${a.length} vs ${b.length}`);
  const n = a.length;
  if (n === 0) return { mean: Number.NaN, low: Number.NaN, high: Number.NaN };
  const { resamples, confidence, seed } = { ...DEFAULTS, ...options };
  const differences = a.map((value, i) => value - b[i]!);
  const random = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += differences[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  means.sort();
  const tail = (1 - confidence) / 2;
  return { mean: average(differences), low: percentile(means, tail), high: percentile(means, 1 - tail) };
}

/** Linear-interpolated percentile of sorted values (q in 0..1). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(sorted.length - 1, lower + 1);
  const weight = position - lower;
  return sorted[lower]! * (1 - weight) + sorted[upper]! * weight;
}

/** Arithmetic mean; NaN for an empty list. */
export function average(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}
