import { expect, test } from 'vitest';
import { planShiftedReuse } from './shiftedReuse.js';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

test('a prefix window that slid by a line keeps the header and the rest of the window, shifted', () => {
  // header 0..4, window 100..139 then cursor line 500..504; the window drops 100..109 and gains 140..149.
  const cached = [...range(0, 5), ...range(100, 140), ...range(500, 505)];
  const wanted = [...range(0, 5), ...range(110, 150), 600];
  const plan = planShiftedReuse(cached, wanted, wanted.length - 1, 8);
  expect(plan).toEqual({ reused: 5 + 30, erase: [{ start: 5, end: 15 }, { start: 45, end: 50 }] });
});

test('runs shorter than the minimum are not kept, and nothing is kept past the limit', () => {
  const cached = [...range(0, 5), ...range(100, 106), ...range(200, 240)];
  const wanted = [...range(0, 5), ...range(100, 106), 7, ...range(200, 240)];
  // 100..105 matched as the common prefix; 7 is new, so the run 200..239 after it cannot be kept.
  expect(planShiftedReuse(cached, wanted, wanted.length, 8)).toEqual({ reused: 11, erase: [{ start: 11, end: 51 }] });
  const shortRun = [...range(0, 5), ...range(300, 304), ...range(100, 106)];
  expect(planShiftedReuse(cached, shortRun, shortRun.length, 8)).toEqual({ reused: 5, erase: [{ start: 5, end: 51 }] });
  const limited = planShiftedReuse(cached, cached, 20, 8);
  expect(limited).toEqual({ reused: 20, erase: [{ start: 20, end: 51 }] });
});

test('chunks both prompts carry are kept in order until the first one the cache lacks', () => {
  const [a, b, c, d] = [range(1000, 1020), range(2000, 2020), range(3000, 3020), range(4000, 4020)];
  const cached = [0, ...a, ...b, ...c, 9];
  const wanted = [0, ...b, ...c, ...d, 9];
  expect(planShiftedReuse(cached, wanted, wanted.length, 16)).toEqual({ reused: 41, erase: [{ start: 1, end: 21 }, { start: 61, end: 62 }] });
});

test('an identical prompt erases nothing; an empty cache keeps nothing', () => {
  const tokens = range(0, 50);
  expect(planShiftedReuse(tokens, tokens, 49, 8)).toEqual({ reused: 49, erase: [{ start: 49, end: 50 }] });
  expect(planShiftedReuse(tokens, tokens, 50, 8)).toEqual({ reused: 50, erase: [] });
  expect(planShiftedReuse([], tokens, 50, 8)).toEqual({ reused: 0, erase: [] });
});
