/**
 * Token-id shards for the trainer (models/train/data.py reads them). Output folder:
 *   <split>/tokens-NNNNN.u16   token ids, uint16 little-endian, sequences back to back
 *   <split>/mask-NNNNN.u8      one byte per token: 1 = the token is a prediction target, 0 = context
 *   index.json                 one index for all splits: per shard its split and [offset, length]
 *                              pairs, plus a table of every sequence's format, package, path, kind
 * Offsets and lengths count tokens, not bytes. docs/model-pipeline.md is the contract with the
 * trainer; bump INDEX_FORMAT when it changes.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DistillFormat } from './distillSequences.js';
import type { SequenceFormat } from './trainingSequences.js';

/** Pretraining formats (trainingSequences.ts) and distillation formats (distillSequences.ts). */
export type ShardFormat = SequenceFormat | DistillFormat;

/** What a shard stores per sequence: ids and one loss-weight class per id. */
export interface ShardSequence {
  format: ShardFormat;
  ids: readonly number[];
  mask: Uint8Array;
}

export const INDEX_FORMAT = 'reposhapley-shards/1';

/** Sequence metadata stored in the index. */
export interface SequenceMeta {
  package: string;
  path: string;
  /** Target kind for fim/rag ('line' | 'api' | 'block'), '' for lm. */
  kind: string;
}

export interface ShardEntry {
  /** Paths relative to the folder of index.json. */
  tokens: string;
  mask: string;
  split: string;
  tokenCount: number;
  /** [offset, length] of each sequence in this shard. */
  sequences: Array<[number, number]>;
}

/** [shard (index into `shards`), offset, length, format, package, path, kind]. */
export type SequenceRow = [number, number, number, ShardFormat, string, string, string];

export interface SplitSummary {
  split: string;
  sequences: number;
  tokens: number;
  tokensByFormat: Partial<Record<ShardFormat, number>>;
  /** Tokens with a loss (mask class > 0). */
  supervisedTokensByFormat: Partial<Record<ShardFormat, number>>;
}

/** Writes one split's shards into `<root>/<split>/`. */
export class ShardWriter {
  private readonly tokens: Uint16Array;
  private readonly mask: Uint8Array;
  private used = 0;
  private current: Array<[number, number]> = [];
  readonly shards: ShardEntry[] = [];
  /** Rows whose shard number indexes this writer's `shards`. */
  readonly rows: SequenceRow[] = [];
  readonly tokensByFormat: Partial<Record<ShardFormat, number>> = {};
  readonly supervisedByFormat: Partial<Record<ShardFormat, number>> = {};

  private constructor(readonly root: string, readonly split: string, private readonly shardTokens: number, readonly vocabSize: number) {
    this.tokens = new Uint16Array(shardTokens);
    this.mask = new Uint8Array(shardTokens);
  }

  /** A writer into an emptied `<root>/<split>/`. */
  static async create(root: string, split: string, options: { shardTokens?: number; vocabSize: number }): Promise<ShardWriter> {
    if (options.vocabSize > 65536) throw new RangeError(`uint16 shards hold ids < 65536, vocabulary has ${options.vocabSize}`);
    await rm(path.join(root, split), { recursive: true, force: true });
    await mkdir(path.join(root, split), { recursive: true });
    return new ShardWriter(root, split, options.shardTokens ?? 16 * 1024 * 1024, options.vocabSize);
  }

  async add(sequence: ShardSequence, meta: SequenceMeta): Promise<void> {
    const n = sequence.ids.length;
    if (n === 0) return;
    if (n > this.shardTokens) throw new RangeError(`sequence of ${n} tokens exceeds the shard size`);
    if (sequence.mask.length !== n) throw new RangeError('mask and ids differ in length');
    if (this.used + n > this.shardTokens) await this.flush();
    for (let i = 0; i < n; i++) {
      const id = sequence.ids[i]!;
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) throw new RangeError(`token id ${id} outside the vocabulary`);
      this.tokens[this.used + i] = id;
    }
    this.mask.set(sequence.mask, this.used);
    this.current.push([this.used, n]);
    this.rows.push([this.shards.length, this.used, n, sequence.format, meta.package, meta.path, meta.kind]);
    this.used += n;
    this.tokensByFormat[sequence.format] = (this.tokensByFormat[sequence.format] ?? 0) + n;
    let supervised = 0;
    for (const m of sequence.mask) if (m > 0) supervised++;
    this.supervisedByFormat[sequence.format] = (this.supervisedByFormat[sequence.format] ?? 0) + supervised;
  }

  /** Write the last shard. */
  async close(): Promise<SplitSummary> {
    await this.flush();
    return {
      split: this.split,
      sequences: this.rows.length,
      tokens: Object.values(this.tokensByFormat).reduce((a, b) => a + b, 0),
      tokensByFormat: this.tokensByFormat,
      supervisedTokensByFormat: this.supervisedByFormat,
    };
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const name = String(this.shards.length).padStart(5, '0');
    const entry: ShardEntry = {
      tokens: `${this.split}/tokens-${name}.u16`, mask: `${this.split}/mask-${name}.u8`, split: this.split,
      tokenCount: this.used, sequences: this.current,
    };
    // Uint16Array is platform-endian; write explicitly little-endian.
    const bytes = Buffer.alloc(this.used * 2);
    for (let i = 0; i < this.used; i++) bytes.writeUInt16LE(this.tokens[i]!, i * 2);
    await writeFile(path.join(this.root, entry.tokens), bytes);
    await writeFile(path.join(this.root, entry.mask), this.mask.subarray(0, this.used));
    this.shards.push(entry);
    this.current = [];
    this.used = 0;
  }
}

/**
 * Shards another index owns, listed in this one (paths relative to this index's folder) with a
 * subset of their sequences: the distillation data replays pretraining data this way without
 * copying it. Row shard numbers index `shards`.
 */
export interface BorrowedShards {
  shards: ShardEntry[];
  rows: SequenceRow[];
}

/** Write `<root>/index.json` for closed writers; `header` adds fields (tokenizer, settings). */
export async function writeIndex(
  root: string, writers: readonly ShardWriter[], summaries: readonly SplitSummary[], header: Record<string, unknown>,
  borrowed?: BorrowedShards,
): Promise<void> {
  const shards: ShardEntry[] = [];
  const rows: SequenceRow[] = [];
  const append = (entries: readonly ShardEntry[], entryRows: readonly SequenceRow[]) => {
    const base = shards.length;
    shards.push(...entries);
    for (const row of entryRows) rows.push([row[0] + base, ...row.slice(1)] as SequenceRow);
  };
  for (const writer of writers) append(writer.shards, writer.rows);
  if (borrowed) append(borrowed.shards, borrowed.rows);
  const index = {
    format: INDEX_FORMAT,
    ...header,
    vocabSize: writers[0]?.vocabSize,
    splits: Object.fromEntries(summaries.map((s) => [s.split, s])),
    shards,
    sequenceColumns: ['shard', 'offset', 'length', 'format', 'package', 'path', 'kind'],
    sequenceTable: rows,
  };
  await writeFile(path.join(root, 'index.json'), JSON.stringify(index) + '\n');
}

/** Read a shard pair back (tests, and a reference for the trainer's reader). */
export function decodeShard(tokens: Buffer, mask: Buffer): { ids: Uint16Array; mask: Uint8Array } {
  if (tokens.length !== mask.length * 2) throw new Error(`shard sizes disagree: ${tokens.length} token bytes, ${mask.length} mask bytes`);
  const ids = new Uint16Array(mask.length);
  for (let i = 0; i < ids.length; i++) ids[i] = tokens.readUInt16LE(i * 2);
  return { ids, mask: new Uint8Array(mask) };
}
