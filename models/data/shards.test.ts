import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { decodeShard, INDEX_FORMAT, ShardWriter, writeIndex } from './shards.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'shards-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

const seq = (format: 'lm' | 'fim' | 'rag', ids: number[], supervised: number) => ({
  format, ids, mask: Uint8Array.from(ids.map((_, i) => (i >= ids.length - supervised ? 1 : 0))),
});

test('sequences land in little-endian uint16 shards with a parallel mask, indexed per shard and per sequence', async () => {
  const train = await ShardWriter.create(dir, 'train', { vocabSize: 8192, shardTokens: 5 });
  const val = await ShardWriter.create(dir, 'val', { vocabSize: 8192, shardTokens: 5 });
  await train.add(seq('lm', [1, 2, 8191], 3), { package: 'p', path: 'a.py', kind: '' });
  await train.add(seq('fim', [300, 301, 302], 1), { package: 'p', path: 'b.py', kind: 'line' });
  await train.add(seq('rag', [7, 256], 2), { package: 'q', path: 'c.py', kind: 'api' });
  await val.add(seq('fim', [9, 10], 1), { package: 'v', path: 'd.py', kind: 'block' });
  const summaries = [await train.close(), await val.close()];
  expect(summaries[0]).toMatchObject({ split: 'train', sequences: 3, tokens: 8, tokensByFormat: { lm: 3, fim: 3, rag: 2 }, supervisedTokensByFormat: { lm: 3, fim: 1, rag: 2 } });
  await writeIndex(dir, [train, val], summaries, { contextSize: 1024 });

  const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
  expect(index).toMatchObject({ format: INDEX_FORMAT, contextSize: 1024, vocabSize: 8192 });
  expect(index.shards).toEqual([
    { tokens: 'train/tokens-00000.u16', mask: 'train/mask-00000.u8', split: 'train', tokenCount: 3, sequences: [[0, 3]] },
    { tokens: 'train/tokens-00001.u16', mask: 'train/mask-00001.u8', split: 'train', tokenCount: 5, sequences: [[0, 3], [3, 2]] },
    { tokens: 'val/tokens-00000.u16', mask: 'val/mask-00000.u8', split: 'val', tokenCount: 2, sequences: [[0, 2]] },
  ]);
  expect(index.sequenceTable).toEqual([
    [0, 0, 3, 'lm', 'p', 'a.py', ''], [1, 0, 3, 'fim', 'p', 'b.py', 'line'], [1, 3, 2, 'rag', 'q', 'c.py', 'api'], [2, 0, 2, 'fim', 'v', 'd.py', 'block'],
  ]);

  const tokens = await readFile(path.join(dir, index.shards[1].tokens));
  expect([...tokens.subarray(0, 2)]).toEqual([300 & 0xff, 300 >> 8]);
  const shard = decodeShard(tokens, await readFile(path.join(dir, index.shards[1].mask)));
  expect(Array.from(shard.ids)).toEqual([300, 301, 302, 7, 256]);
  expect(Array.from(shard.mask)).toEqual([0, 0, 1, 1, 1]);
});

test('ids outside the vocabulary are rejected', async () => {
  const writer = await ShardWriter.create(dir, 'train', { vocabSize: 10 });
  await expect(writer.add(seq('lm', [10], 1), { package: 'p', path: 'a', kind: '' })).rejects.toThrow(/outside the vocabulary/);
});
