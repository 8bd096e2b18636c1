/** A small seeded generator (mulberry32), so data building is reproducible run to run. */
import { createHash } from 'node:crypto';
import { mulberry32 } from '../../server/src/util/hashing.js';

export type Random = () => number;

/** Uniform [0, 1) numbers from a string seed. */
export function seededRandom(seed: string): Random {
  return mulberry32(createHash('sha256').update(seed).digest().readUInt32LE(0));
}

/** Up to `count` distinct elements in random order. */
export function sample<T>(items: readonly T[], count: number, random: Random): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) {
    const i = Math.floor(random() * pool.length);
    out.push(pool[i]!);
    pool[i] = pool[pool.length - 1]!;
    pool.pop();
  }
  return out;
}
