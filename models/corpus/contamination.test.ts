import { expect, test } from 'vitest';
import { ContaminationIndex, windowHashes, WINDOW_LINES } from './contamination.js';
import { normalizedLines } from './textFilters.js';

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}_${i} = ${i}`);

test('windowHashes has one hash per window and none for short files', () => {
  expect(windowHashes(lines('a', WINDOW_LINES - 1))).toEqual([]);
  expect(windowHashes(lines('a', WINDOW_LINES + 5))).toHaveLength(6);
  expect(new Set(windowHashes(lines('a', 40))).size).toBe(31);
});

test('a file sharing 10 normalized lines with a benchmark file is found, reindented or not', () => {
  const index = new ContaminationIndex();
  const bench = lines('bench', 30);
  index.addBenchmarkFile('python3-requests:requests/api.py', bench);
  const copied = ['import os', 'x = 1', ...bench.slice(7, 17).map((l) => `        ${l.replace(' = ', '   =   ')}`), 'y = 2'].join('\n');
  expect(index.findOverlap(normalizedLines(copied))).toEqual({ label: 'python3-requests:requests/api.py', line: 3 });
});

test('nine shared lines, or ten lines with blank lines between them, are judged on normalized lines', () => {
  const index = new ContaminationIndex();
  const bench = lines('bench', 30);
  index.addBenchmarkFile('b', bench);
  expect(index.findOverlap([...bench.slice(0, 9), 'other = 1', ...lines('c', 10)])).toBeUndefined();
  const spaced = bench.slice(0, 10).join('\n\n\n');
  expect(index.findOverlap(normalizedLines(spaced))?.label).toBe('b');
});
