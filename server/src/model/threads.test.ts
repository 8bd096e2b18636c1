import os from 'node:os';
import { expect, test } from 'vitest';
import { defaultThreads, resolveThreads } from './threads.js';

test.each([
  // [configured, cores, used]
  [157, 2, 2], // the fuzz's value: more threads than cores spin and stall every completion
  [256, 16, 16],
  [3, 16, 3],
  [2.9, 16, 2],
  [0, 2, 2], // 0: half the cores, but two where there are two (docs/benchmarks.md, runtime)
  [0, 1, 1],
  [0, 3, 2],
  [0, 4, 2],
  [0, 16, 8],
])('threads %d on %d cores: %d', (configured, cores, used) => {
  expect(resolveThreads(configured, cores)).toBe(used);
});

test('without a core count, the cores this machine really has', () => {
  const cores = os.availableParallelism();
  expect(resolveThreads(10_000)).toBe(cores);
  expect(resolveThreads(0)).toBe(defaultThreads());
  expect(defaultThreads()).toBe(Math.min(cores, Math.max(2, Math.floor(cores / 2))));
});
