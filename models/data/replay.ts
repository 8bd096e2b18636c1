/**
 * Replay for distillation: a seeded sample of the pretraining index's train sequences, listed
 * in the distillation index without copying the shards. Fine-tuning a small base model on the
 * control formats alone makes it forget how to write code; mixing in what it was pretrained on
 * keeps completion quality while it learns <NEED>/<KEEP>.
 */
import path from 'node:path';
import { sample, type Random } from './random.js';
import type { BorrowedShards, SequenceRow, ShardEntry } from './shards.js';

/** The parts of a shard index (shards.ts writeIndex) replay reads. */
export interface ShardIndex {
  shards: ShardEntry[];
  sequenceTable: SequenceRow[];
}

/**
 * Train sequences of `base` (whose index.json is in `baseDir`) totalling at least `tokens`
 * (all of them when there are fewer), as shards borrowed by an index written in `outDir`;
 * only sequences of the given formats when `formats` is set.
 */
export function selectReplay(
  base: ShardIndex, baseDir: string, outDir: string, tokens: number, random: Random, formats?: ReadonlySet<string>,
): BorrowedShards {
  const candidates = base.sequenceTable.filter(
    (row) => base.shards[row[0]]?.split === 'train' && (!formats || formats.has(row[3])),
  );
  const chosen: SequenceRow[] = [];
  let total = 0;
  for (const row of sample(candidates, candidates.length, random)) {
    if (total >= tokens) break;
    chosen.push(row);
    total += row[2];
  }
  chosen.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const borrowed: BorrowedShards = { shards: [], rows: [] };
  const numberOf = new Map<number, number>();
  for (const row of chosen) {
    let number = numberOf.get(row[0]);
    if (number === undefined) {
      const source = base.shards[row[0]]!;
      number = borrowed.shards.length;
      numberOf.set(row[0], number);
      borrowed.shards.push({
        tokens: relativeTo(outDir, baseDir, source.tokens), mask: relativeTo(outDir, baseDir, source.mask),
        split: 'train', tokenCount: source.tokenCount, sequences: [],
      });
    }
    borrowed.shards[number]!.sequences.push([row[1], row[2]]);
    borrowed.rows.push([number, ...row.slice(1)] as SequenceRow);
  }
  return borrowed;
}

function relativeTo(outDir: string, baseDir: string, file: string): string {
  return path.relative(outDir, path.resolve(baseDir, file));
}

/** Several borrowed selections as one, shard numbers renumbered in order. */
export function concatBorrowed(parts: readonly BorrowedShards[]): BorrowedShards {
  const combined: BorrowedShards = { shards: [], rows: [] };
  for (const part of parts) {
    const offset = combined.shards.length;
    combined.shards.push(...part.shards);
    for (const row of part.rows) combined.rows.push([row[0] + offset, ...row.slice(1)] as SequenceRow);
  }
  return combined;
}

/**
 * `--base-data A,B` with `--replay R` (the same ratio for each) or `--replay RA,RB`: the replay
 * sources as (index path, ratio) pairs.
 */
export function replaySources(baseData: string, replay: string): Array<{ baseData: string; ratio: number }> {
  const paths = baseData.split(',').map((p) => p.trim()).filter(Boolean);
  const ratios = replay.split(',').map((r) => Number(r.trim()));
  if (paths.length === 0) throw new Error('--base-data needs at least one index');
  if (ratios.length !== 1 && ratios.length !== paths.length) {
    throw new Error(`--replay has ${ratios.length} ratios for ${paths.length} --base-data indexes: give one, or one per index`);
  }
  if (ratios.some((r) => !(r >= 0))) throw new Error(`--replay ratios must be numbers >= 0, got ${replay}`);
  return paths.map((p, i) => ({ baseData: p, ratio: ratios.length === 1 ? ratios[0]! : ratios[i]! }));
}
