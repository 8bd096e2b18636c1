import { describe, expect, test } from 'vitest';
import { busyTicksOf, othersBusyCores, ownTicksOf, threadsFor } from './threadGovernor.js';

describe('reading /proc', () => {
  test('machine busy ticks: everything but idle, iowait and niced processes', () => {
    expect(busyTicksOf('cpu  100 20 30 5000 40 1 2 3 0 0\ncpu0 50 10 15 2500 20 0 1 1 0 0\n')).toBe(100 + 30 + 1 + 2 + 3);
    expect(busyTicksOf('cpu  100 20 30 5000\n')).toBe(130);
    expect(busyTicksOf('intr 1 2 3\n')).toBeUndefined();
    expect(busyTicksOf('cpu  a b c d\n')).toBeUndefined();
  });

  test('own ticks: utime + stime, even when the command name holds spaces and parentheses', () => {
    const fields = (name: string) => `4333 (${name}) R 4330 4330 1241 0 -1 4194304 126 0 0 0 37 5 0 0 20 0 3 0 116392`;
    expect(ownTicksOf(fields('node'))).toBe(42);
    expect(ownTicksOf(fields('my (odd) host'))).toBe(42);
    expect(ownTicksOf('garbage')).toBeUndefined();
  });
});

test.each([
  // [others' ticks over 1 s, own ticks, expected cores]
  [100, 0, 1], [200, 200, 0], [300, 100, 2], [0, 150, 0],
])('others busy: %i machine ticks, %i own over one second -> %f cores', (machine, own, cores) => {
  const from = { atMs: 1_000, busyTicks: 10_000, ownTicks: 500 };
  expect(othersBusyCores(from, { atMs: 2_000, busyTicks: 10_000 + machine, ownTicks: 500 + own })).toBeCloseTo(cores);
});

test('an empty interval counts as idle', () => {
  const sample = { atMs: 5, busyTicks: 1, ownTicks: 1 };
  expect(othersBusyCores(sample, sample)).toBe(0);
});

test.each([
  // [limit, cores, others busy, threads]
  [2, 2, 0, 2], [2, 2, 0.3, 2], [2, 2, 1.0, 1], [2, 2, 2.0, 1], [2, 2, 1.6, 1],
  [4, 8, 0, 4], [4, 8, 5.2, 3], [4, 8, 7.9, 1], [1, 2, 0, 1],
])('limit %i on %i cores, others on %f cores: %i threads', (limit, cores, othersBusy, threads) => {
  expect(threadsFor(limit, cores, othersBusy)).toBe(threads);
});
