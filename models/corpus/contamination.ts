/**
 * Decontamination against the benchmark: a corpus file is dropped when it shares any window of
 * WINDOW_LINES consecutive normalized lines (whitespace collapsed, blank lines dropped; see
 * normalizedLines) with any benchmark file. Windows are hashed to 53-bit numbers (collision odds
 * per pair ~1e-16; a few million windows against a few hundred thousand stay far from any).
 */
import { createHash } from 'node:crypto';

/** Issue 4: "drop any file sharing a normalized 10-line window with a benchmark file". */
export const WINDOW_LINES = 10;

/** Hashes of every window of `lines` (none when there are fewer than `size` lines). */
export function windowHashes(lines: readonly string[], size = WINDOW_LINES): number[] {
  if (lines.length < size) return [];
  const lineHashes = lines.map(lineHash);
  const out: number[] = [];
  for (let start = 0; start + size <= lines.length; start++) {
    let high = 0x12345678;
    let low = 0x9abcdef0;
    for (let i = start; i < start + size; i++) {
      const [h, l] = lineHashes[i]!;
      high = (Math.imul(high ^ h, 0x01000193) + Math.imul(l, 0x2c1b3c6d)) >>> 0;
      low = (Math.imul(low ^ l, 0x5bd1e995) + Math.imul(h, 0x297a2d39)) >>> 0;
    }
    out.push((high & 0x1fffff) * 2 ** 32 + low);
  }
  return out;
}

function lineHash(line: string): [number, number] {
  const digest = createHash('sha1').update(line).digest();
  return [digest.readUInt32LE(0), digest.readUInt32LE(4)];
}

/** The benchmark's windows, each with the benchmark file it first came from. */
export class ContaminationIndex {
  private readonly windows = new Map<number, string>();

  /** Add a benchmark file (its normalized lines) under a label such as "python3-requests:requests/api.py". */
  addBenchmarkFile(label: string, lines: readonly string[]): void {
    for (const hash of windowHashes(lines)) if (!this.windows.has(hash)) this.windows.set(hash, label);
  }

  /** The benchmark file that shares a window with these lines, if any. */
  findOverlap(lines: readonly string[]): { label: string; line: number } | undefined {
    const hashes = windowHashes(lines);
    for (let i = 0; i < hashes.length; i++) {
      const label = this.windows.get(hashes[i]!);
      if (label !== undefined) return { label, line: i + 1 };
    }
    return undefined;
  }

  get size(): number {
    return this.windows.size;
  }
}
