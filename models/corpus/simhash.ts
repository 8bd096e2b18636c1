/**
 * 64-bit SimHash over the distinct token 3-shingles of the normalized text, and an index that finds any
 * earlier fingerprint within a Hamming distance (RepoShapley A.2: near-duplicates are files
 * whose SimHash differs in at most 3 bits). Fingerprints are two uint32 halves (no BigInt on
 * the hot path).
 */
import { fnv1a } from '../../server/src/util/hashing.js';

/** A 64-bit fingerprint as [high, low] uint32 halves. */
export type Fingerprint = readonly [number, number];

const TOKEN = /[A-Za-z_][A-Za-z0-9_]*|\d+|\S/g;

/** SimHash of normalized lines: features are 3-shingles of identifier/number/symbol tokens. */
export function simhash(lines: readonly string[]): Fingerprint {
  const tokenHashes: number[] = [];
  const cache = new Map<string, number>();
  for (const line of lines) {
    for (const match of line.matchAll(TOKEN)) {
      const token = match[0];
      let h = cache.get(token);
      if (h === undefined) cache.set(token, (h = fnv1a(token)));
      tokenHashes.push(h);
    }
    tokenHashes.push(NEWLINE_HASH);
  }
  // Each distinct shingle counts once. Weighting by frequency lets the shingles every Python
  // file repeats (`( self ,`, `) : ⏎`) outvote the rest, and large unrelated files then
  // converge to one "typical Python" fingerprint (doctest.py matched collections/__init__.py).
  const features = new Set<number>();
  const n = tokenHashes.length;
  if (n < 3) for (const h of tokenHashes) features.add(h);
  for (let i = 0; i + 2 < n; i++) {
    const a = tokenHashes[i]!, b = tokenHashes[i + 1]!, c = tokenHashes[i + 2]!;
    features.add((Math.imul(a, 0x01000193) ^ Math.imul(b, 0x2c1b3c6d) ^ Math.imul(c, 0x297a2d39)) >>> 0);
  }
  const weights = new Int32Array(64);
  for (const seed of features) addFeature(weights, mix(seed, 0x9e3779b9), mix(seed, 0x85ebca6b));
  let high = 0;
  let low = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (weights[bit]! > 0) high |= 1 << bit;
    if (weights[32 + bit]! > 0) low |= 1 << bit;
  }
  return [high >>> 0, low >>> 0];
}

const NEWLINE_HASH = fnv1a('\n');

function addFeature(weights: Int32Array, high: number, low: number): void {
  for (let bit = 0; bit < 32; bit++) {
    weights[bit]! += (high >>> bit) & 1 ? 1 : -1;
    weights[32 + bit]! += (low >>> bit) & 1 ? 1 : -1;
  }
}

/** murmur3's finalizer: spreads a 32-bit value over all bits. */
function mix(value: number, seed: number): number {
  let h = (value ^ seed) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Number of differing bits. */
export function hammingDistance(a: Fingerprint, b: Fingerprint): number {
  return popcount32((a[0] ^ b[0]) >>> 0) + popcount32((a[1] ^ b[1]) >>> 0);
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Fingerprints added so far, searchable within `maxDistance` bits. Split into maxDistance+1
 * bands: two fingerprints within the distance agree exactly on at least one band (pigeonhole),
 * so only fingerprints sharing a band value are compared.
 */
export class NearDuplicateIndex<T> {
  private readonly bands: Array<Map<number, number[]>>;
  private readonly entries: Array<{ fingerprint: Fingerprint; value: T }> = [];
  private readonly bandWidth: number;

  constructor(readonly maxDistance = 3) {
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > 7) throw new RangeError('maxDistance must be 0..7');
    this.bandWidth = Math.ceil(64 / (maxDistance + 1));
    this.bands = Array.from({ length: maxDistance + 1 }, () => new Map());
  }

  /** The earliest added value within the distance, if any. */
  find(fingerprint: Fingerprint): T | undefined {
    let best = Infinity;
    for (let band = 0; band < this.bands.length; band++) {
      const candidates = this.bands[band]!.get(this.bandValue(fingerprint, band));
      if (!candidates) continue;
      // Lists are in insertion order: the first match in a band is that band's earliest.
      for (const index of candidates) {
        if (index >= best) break;
        if (hammingDistance(this.entries[index]!.fingerprint, fingerprint) <= this.maxDistance) {
          best = index;
          break;
        }
      }
    }
    return best === Infinity ? undefined : this.entries[best]!.value;
  }

  add(fingerprint: Fingerprint, value: T): void {
    const index = this.entries.length;
    this.entries.push({ fingerprint, value });
    for (let band = 0; band < this.bands.length; band++) {
      const key = this.bandValue(fingerprint, band);
      const list = this.bands[band]!.get(key);
      if (list) list.push(index);
      else this.bands[band]!.set(key, [index]);
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** Bits [band*w, band*w+w) of the 64-bit value high:low (bit 0 = lowest bit of high). */
  private bandValue(fingerprint: Fingerprint, band: number): number {
    const start = band * this.bandWidth;
    const end = Math.min(64, start + this.bandWidth);
    let value = 0;
    for (let bit = start, out = 0; bit < end; bit++, out++) {
      const word = bit < 32 ? fingerprint[0] : fingerprint[1];
      if ((word >>> (bit % 32)) & 1) value += 2 ** out;
    }
    return value;
  }
}
