import { expect, test } from 'vitest';
import { residentKiB } from './processMemory.js';

test('resident memory is read from /proc; a process gone or another system gives none', () => {
  expect(residentKiB(1, () => 'Name:\tnode\nVmPeak:\t 2000000 kB\nVmRSS:\t  926720 kB\n')).toBe(926720);
  expect(residentKiB(1, () => { throw new Error('ENOENT'); })).toBeUndefined();
  expect(residentKiB(1, () => 'Name:\tnode\n')).toBeUndefined();
  if (process.platform === 'linux') expect(residentKiB(process.pid)).toBeGreaterThan(0);
});
