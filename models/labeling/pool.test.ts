import { expect, test } from 'vitest';
import { argsortDescending, buildPool, combinations } from './pool.js';
import { membersOf } from './shapley.js';

test('combinations', () => {
  expect(combinations([1, 2, 3], 2)).toEqual([[1, 2], [1, 3], [2, 3]]);
  expect(combinations([1, 2, 3], 3)).toEqual([[1, 2, 3]]);
  expect(combinations([1], 2)).toEqual([]);
});

test('argsort is descending with index tie-breaks', () => {
  expect(argsortDescending([0.1, 0.5, 0.5, -1])).toEqual([1, 2, 0, 3]);
});

test('pool: Shapley prefixes, then Δ prefixes, then top-L pairs and triples, deduplicated', () => {
  const phi = [0.3, 0.1, -0.2, 0.2];
  const deltas = [0.1, 0.4, -0.5, 0.3];
  const pool = buildPool(phi, deltas, { shapleyPrefixes: 2, deltaPrefixes: 2, topL: 3 });
  expect(pool.map((mask) => membersOf(mask, 4))).toEqual([
    [0], [0, 3], // φ prefixes: 0, then 3
    [1], [1, 3], // Δ prefixes: 1, then 3
    // top-3 by Δ are 1, 3, 0: pairs {1,3} (already there), {0,1}, {0,3} (already there); triple {0,1,3}
    [0, 1], [0, 1, 3],
  ]);
});

test('K = 10, L = 3 with opposite φ and Δ orders: 10 φ prefixes + 3 Δ prefixes + 2 new pairs', () => {
  const phi = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
  const deltas = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const pool = buildPool(phi, deltas, { shapleyPrefixes: 10, deltaPrefixes: 3, topL: 3 });
  // Δ's top 3 are 9, 8, 7: {9,8} and {9,8,7} are already Δ prefixes; {9,7} and {8,7} are new.
  expect(pool.length).toBe(15);
  expect(new Set(pool).size).toBe(pool.length);
});
