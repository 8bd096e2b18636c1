import { expect, test } from 'vitest';
import { average, bootstrapMean, pairedBootstrap, percentile } from './bootstrap.js';

test('a constant difference has a zero-width interval at that difference', () => {
  const a = [3, 5, 7, 9];
  const result = pairedBootstrap(a, a.map((x) => x - 2));
  expect(result).toEqual({ mean: 2, low: 2, high: 2 });
});

test('identical policies differ by exactly zero', () => {
  const scores = [0, 1, 1, 0, 1];
  expect(pairedBootstrap(scores, scores)).toEqual({ mean: 0, low: 0, high: 0 });
});

test('pairing matters: the same scores shifted by task give a tight interval', () => {
  // Unpaired, these two lists overlap almost entirely; paired, B is always 1 below A.
  const a = Array.from({ length: 50 }, (_, i) => i);
  const b = a.map((x) => x - 1);
  const paired = pairedBootstrap(a, b, { seed: 7 });
  expect(paired.low).toBe(1);
  expect(paired.high).toBe(1);
});

test('a 0/1 metric: interval contains the mean, lies within [-1, 1], and is seeded', () => {
  const a = [1, 1, 1, 0, 1, 0, 1, 1, 0, 1];
  const b = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0];
  const first = pairedBootstrap(a, b, { seed: 3 });
  // Differences 1,0,1,0,0,0,1,0,0,1: mean 0.4.
  expect(first.mean).toBeCloseTo(0.4, 12);
  expect(first.low).toBeLessThan(first.mean);
  expect(first.high).toBeGreaterThan(first.mean);
  expect(first.low).toBeGreaterThanOrEqual(-1);
  expect(first.high).toBeLessThanOrEqual(1);
  expect(pairedBootstrap(a, b, { seed: 3 })).toEqual(first);
});

test('the seed picks the resamples', () => {
  const a = Array.from({ length: 40 }, (_, i) => Math.sin(i) * 10);
  const b = Array.from({ length: 40 }, (_, i) => Math.cos(i * 3) * 10);
  expect(pairedBootstrap(a, b, { seed: 5 })).toEqual(pairedBootstrap(a, b, { seed: 5 }));
  expect(pairedBootstrap(a, b, { seed: 5 }).low).not.toBe(pairedBootstrap(a, b, { seed: 6 }).low);
});

test('a wider confidence gives a wider interval', () => {
  const a = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1];
  const narrow = bootstrapMean(a, { confidence: 0.5, seed: 1 });
  const wide = bootstrapMean(a, { confidence: 0.99, seed: 1 });
  expect(wide.high - wide.low).toBeGreaterThan(narrow.high - narrow.low);
  expect(narrow.mean).toBeCloseTo(7 / 12, 12);
});

test('empty and mismatched inputs', () => {
  expect(Number.isNaN(bootstrapMean([]).mean)).toBe(true);
  expect(() => pairedBootstrap([1], [1, 2])).toThrow(RangeError);
});

test('percentile interpolates linearly, average is the mean', () => {
  expect(percentile([1, 2, 3, 4], 0)).toBe(1);
  expect(percentile([1, 2, 3, 4], 1)).toBe(4);
  expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
  expect(percentile([10], 0.975)).toBe(10);
  expect(average([1, 2, 6])).toBe(3);
});
