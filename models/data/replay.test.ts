import { expect, test } from 'vitest';
import { seededRandom } from './random.js';
import { concatBorrowed, replaySources, selectReplay, type ShardIndex } from './replay.js';

const BASE: ShardIndex = {
  shards: [
    { tokens: 'train/tokens-00000.u16', mask: 'train/mask-00000.u8', split: 'train', tokenCount: 300, sequences: [[0, 100], [100, 100], [200, 100]] },
    { tokens: 'val/tokens-00000.u16', mask: 'val/mask-00000.u8', split: 'val', tokenCount: 50, sequences: [[0, 50]] },
    { tokens: 'train/tokens-00001.u16', mask: 'train/mask-00001.u8', split: 'train', tokenCount: 80, sequences: [[0, 80]] },
  ],
  sequenceTable: [
    [0, 0, 100, 'lm', 'p', 'a.py', ''], [0, 100, 100, 'fim', 'p', 'a.py', 'line'], [0, 200, 100, 'rag', 'p', 'a.py', 'api'],
    [1, 0, 50, 'lm', 'v', 'b.py', ''], [2, 0, 80, 'lm', 'q', 'c.py', ''],
  ],
};

test('replay borrows train sequences only, until the token goal, with paths relative to the new index', () => {
  const borrowed = selectReplay(BASE, '/cache/data', '/cache/distill', 150, seededRandom('t'));
  const tokens = borrowed.rows.reduce((sum, row) => sum + row[2], 0);
  expect(tokens).toBeGreaterThanOrEqual(150);
  expect(tokens).toBeLessThan(150 + 100);
  expect(borrowed.rows.every((row) => row[4] !== 'v')).toBe(true);
  for (const shard of borrowed.shards) expect(shard.tokens).toMatch(/^\.\.\/data\/train\/tokens-0000[01]\.u16$/);
  // Every row points at a sequence its borrowed shard lists.
  for (const row of borrowed.rows) expect(borrowed.shards[row[0]]!.sequences).toContainEqual([row[1], row[2]]);
});

test('asking for more than there is borrows every train sequence once', () => {
  const borrowed = selectReplay(BASE, '/d', '/e', 10_000, seededRandom('t'));
  expect(borrowed.rows).toHaveLength(4);
  expect(borrowed.shards.flatMap((s) => s.sequences)).toHaveLength(4);
});

test('no replay asked, none given', () => {
  expect(selectReplay(BASE, '/d', '/e', 0, seededRandom('t'))).toEqual({ shards: [], rows: [] });
});

test('a format filter borrows only sequences of those formats', () => {
  const borrowed = selectReplay(BASE, '/d', '/e', 10_000, seededRandom('t'), new Set(['lm']));
  expect(borrowed.rows.map((row) => row[3])).toEqual(['lm', 'lm']);
});

test('concatenated selections renumber their shards and keep every row pointing at its sequence', () => {
  const first = selectReplay(BASE, '/cache/a', '/cache/out', 150, seededRandom('x'));
  const second = selectReplay(BASE, '/cache/b', '/cache/out', 10_000, seededRandom('y'), new Set(['lm']));
  const both = concatBorrowed([first, second]);
  expect(both.shards).toHaveLength(first.shards.length + second.shards.length);
  expect(both.rows).toHaveLength(first.rows.length + second.rows.length);
  for (const row of both.rows) expect(both.shards[row[0]]!.sequences).toContainEqual([row[1], row[2]]);
  expect(both.shards.slice(first.shards.length).every((s) => s.tokens.startsWith('../b/'))).toBe(true);
});

test('replay sources pair each index with its ratio, or one ratio with all', () => {
  expect(replaySources('a.json', '0.5')).toEqual([{ baseData: 'a.json', ratio: 0.5 }]);
  expect(replaySources('a.json,b.json', '0.5')).toEqual([{ baseData: 'a.json', ratio: 0.5 }, { baseData: 'b.json', ratio: 0.5 }]);
  expect(replaySources('a.json, b.json', '1,0.25')).toEqual([{ baseData: 'a.json', ratio: 1 }, { baseData: 'b.json', ratio: 0.25 }]);
  expect(() => replaySources('a.json,b.json', '1,2,3')).toThrow(/3 ratios for 2/);
  expect(() => replaySources('a.json', '-1')).toThrow(/>= 0/);
});
