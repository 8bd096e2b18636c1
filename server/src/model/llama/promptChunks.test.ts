import { expect, test } from 'vitest';
import { nextChunkTokens } from './llamaSession.js';

test('prompt chunks are sized to take about 250 ms at the speed the last one was read', () => {
  expect(nextChunkTokens(32, 100)).toBe(64); // 320 tokens/s: 80 tokens fit, in multiples of 32
  expect(nextChunkTokens(64, 140)).toBe(96); // ~457 tokens/s: the Xeon's Q8_0 matrices
  expect(nextChunkTokens(32, 800)).toBe(32); // 40 tokens/s: never below 32
  expect(nextChunkTokens(256, 100)).toBe(256); // never above 256
});

test('a short tail chunk or no measurable time keeps the current size', () => {
  expect(nextChunkTokens(8, 20)).toBeUndefined();
  expect(nextChunkTokens(64, 0)).toBeUndefined();
});
