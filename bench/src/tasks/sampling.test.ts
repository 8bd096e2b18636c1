import { expect, test } from 'vitest';
import { capacityAcrossFiles, deriveSeed, pickAcrossFiles, shuffled, splitQuota, strataRandom } from './sampling.js';

test.each([
  [300, [1000, 1000, 1000], [100, 100, 100]],
  [10, [100, 100, 100], [4, 3, 3]],
  // A short stratum passes what it cannot take to the others.
  [300, [20, 1000, 1000], [20, 140, 140]],
  [300, [0, 10, 5], [0, 10, 5]],
  [0, [5, 5], [0, 0]],
  [7, [], []],
  [5, [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0]],
])('splitQuota(%d, %j) = %j', (total, capacities, expected) => {
  expect(splitQuota(total, capacities)).toEqual(expected);
});

test('derived seeds differ by part and by boundary, and repeat', () => {
  expect(deriveSeed(1, 'line', 'pkg')).toBe(deriveSeed(1, 'line', 'pkg'));
  expect(deriveSeed(1, 'line', 'pkg')).not.toBe(deriveSeed(2, 'line', 'pkg'));
  expect(deriveSeed(1, 'ab', 'c')).not.toBe(deriveSeed(1, 'a', 'bc'));
});

test('shuffled is a seeded permutation', () => {
  const items = Array.from({ length: 20 }, (_, i) => i);
  const once = shuffled(items, strataRandom(3, 'x'));
  expect(shuffled(items, strataRandom(3, 'x'))).toEqual(once);
  expect([...once].sort((a, b) => a - b)).toEqual(items);
  expect(once).not.toEqual(items);
});

test('pickAcrossFiles spreads over files before taking a second item from any', () => {
  const byFile = new Map([['a.py', ['a1', 'a2', 'a3']], ['b.py', ['b1', 'b2']], ['c.py', ['c1']]]);
  const picked = pickAcrossFiles(byFile, 3, 5, strataRandom(1, 't'));
  expect(new Set(picked.map((item) => item[0]))).toEqual(new Set(['a', 'b', 'c']));
  const all = pickAcrossFiles(byFile, 100, 2, strataRandom(1, 't'));
  expect(all).toHaveLength(5); // a: 2 (capped), b: 2, c: 1
  expect(all.filter((item) => item.startsWith('a'))).toHaveLength(2);
  expect(capacityAcrossFiles(byFile, 2)).toBe(5);
});
