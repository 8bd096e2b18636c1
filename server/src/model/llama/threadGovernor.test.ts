import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createMemoryLogger } from '../../util/logger.js';
import { busyTicksOf, governThreads, othersBusyCores, ownTicksOf, threadsFor, type MachineReadings } from './threadGovernor.js';

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

describe('governThreads', () => {
  /** A machine of `cores` cores where others keep `othersBusy` cores busy, 100 ticks a second. */
  function machine(cores: number) {
    let atMs = 0;
    let busyTicks = 0;
    const state = { othersBusy: 0 };
    const readings: MachineReadings = {
      cores: () => cores,
      sample: () => ({ atMs, busyTicks, ownTicks: 0 }),
    };
    /** Time passes in the governor's steps, the machine's counters with it. */
    const advance = (ms: number) => {
      for (let step = 0; step < ms; step += 250) {
        atMs += 250;
        busyTicks += (state.othersBusy * 250) / 10;
        vi.advanceTimersByTime(250);
      }
    };
    return { readings, state, advance };
  }

  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('follows the cores others leave, within the limit, and restores the cap when released', () => {
    const { readings, state, advance } = machine(2);
    const llama = { maxThreads: 2 };
    const logger = createMemoryLogger();
    const release = governThreads(llama, 2, logger, readings);
    advance(1_000);
    expect(llama.maxThreads).toBe(2);
    state.othersBusy = 1;
    advance(1_250);
    expect(llama.maxThreads).toBe(1);
    expect(logger.lines.some((line) => line.includes('model threads 2 -> 1'))).toBe(true);
    state.othersBusy = 0;
    advance(1_250);
    expect(llama.maxThreads).toBe(2);
    state.othersBusy = 2;
    advance(1_250);
    release();
    expect(llama.maxThreads).toBe(2);
    state.othersBusy = 2;
    advance(1_250);
    expect(llama.maxThreads).toBe(2); // no longer governed
  });

  test('models sharing a runtime share one governor, capped at the largest limit, until the last is released', () => {
    const { readings, advance } = machine(8);
    const llama = { maxThreads: 8 };
    const releaseSmall = governThreads(llama, 2, createMemoryLogger(), readings);
    const releaseLarge = governThreads(llama, 4, createMemoryLogger(), readings);
    advance(1_250);
    expect(llama.maxThreads).toBe(4);
    releaseLarge();
    advance(1_250);
    expect(llama.maxThreads).toBe(2);
    releaseSmall();
    expect(llama.maxThreads).toBe(8);
  });

  test('without readings of the machine it does nothing', () => {
    const llama = { maxThreads: 2 };
    const release = governThreads(llama, 1, createMemoryLogger(), { cores: () => 2, sample: () => undefined });
    vi.advanceTimersByTime(5_000);
    expect(llama.maxThreads).toBe(2);
    release();
    expect(llama.maxThreads).toBe(2);
  });
});
