import { expect, test } from 'vitest';
import { concordantPairs } from './ranking.js';

test('counts positive-over-negative pairs, ties as half', () => {
  expect(concordantPairs([0.9, 0.5], [0.5, 0.1, 0.7])).toEqual({ wins: 3 + 1.5, pairs: 6 });
  expect(concordantPairs([], [0.1])).toEqual({ wins: 0, pairs: 0 });
});
