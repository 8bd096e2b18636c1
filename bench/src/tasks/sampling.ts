/**
 * Deterministic, seeded sampling for the task builder: derived seeds per stratum (so adding a
 * package or a task type does not reshuffle the others), shuffles, quota splitting, and
 * round-robin picking across files with a per-file cap (stratified across files).
 */
import { seededRandom } from '../stats.js';

/** A seed for one stratum: FNV-1a over the parts, mixed with the run's seed. */
export function deriveSeed(seed: number, ...parts: string[]): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      hash ^= part.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    hash ^= 0xff; // Separator, so ('ab', 'c') and ('a', 'bc') differ.
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A seeded random source for one stratum. */
export function strataRandom(seed: number, ...parts: string[]): () => number {
  return seededRandom(deriveSeed(seed, ...parts));
}

/** A shuffled copy (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * Splits `total` over strata as evenly as their capacities allow: each stratum gets an equal
 * share, a stratum that cannot fill its share passes the rest to the others, and leftover
 * units go to the earliest strata with room. The sum is min(total, sum of capacities).
 */
export function splitQuota(total: number, capacities: readonly number[]): number[] {
  const quotas = capacities.map(() => 0);
  let remaining = Math.max(0, Math.floor(total));
  let open = capacities.map((_, i) => i).filter((i) => capacities[i]! > 0);
  while (remaining > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(remaining / open.length));
    for (const i of open) {
      const grant = Math.min(share, capacities[i]! - quotas[i]!, remaining);
      quotas[i]! += grant;
      remaining -= grant;
      if (remaining === 0) break;
    }
    open = open.filter((i) => quotas[i]! < capacities[i]!);
  }
  return quotas;
}

/**
 * Picks `quota` items spread across files: files in a seeded order, each file's items in a
 * seeded order, then round r takes every file's r-th item, for r below `perFileCap`.
 * `byFile` must list files in a deterministic (e.g. sorted) order.
 */
export function pickAcrossFiles<T>(
  byFile: ReadonlyMap<string, readonly T[]>, quota: number, perFileCap: number, random: () => number,
): T[] {
  const files = shuffled([...byFile.keys()], random).map((file) => shuffled(byFile.get(file)!, random));
  const picked: T[] = [];
  for (let round = 0; round < perFileCap && picked.length < quota; round++) {
    for (const items of files) {
      if (round < items.length) picked.push(items[round]!);
      if (picked.length === quota) break;
    }
  }
  return picked;
}

/** How many items {@link pickAcrossFiles} can return at most. */
export function capacityAcrossFiles(byFile: ReadonlyMap<string, readonly unknown[]>, perFileCap: number): number {
  let total = 0;
  for (const items of byFile.values()) total += Math.min(items.length, perFileCap);
  return total;
}
