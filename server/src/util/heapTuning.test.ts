import { expect, test } from 'vitest';
import { userSetHeapGrowth } from './heapTuning.js';

test('a heap-growing flag the user gave wins over the server default', () => {
  expect(userSetHeapGrowth(['--heap-growing-percent=50'], undefined)).toBe(true);
  expect(userSetHeapGrowth([], '--max-old-space-size=512 --heap_growing_percent=5')).toBe(true);
});

test('other node flags leave the server default in place', () => {
  expect(userSetHeapGrowth(['--enable-source-maps'], '--max-old-space-size=512')).toBe(false);
  expect(userSetHeapGrowth([], undefined)).toBe(false);
});
