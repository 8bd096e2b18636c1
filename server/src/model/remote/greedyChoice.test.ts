import { expect, test } from 'vitest';
import { penalizedGreedy, PENALTY_WINDOW } from './greedyChoice.js';

const top = [{ id: 7, logprob: -0.1 }, { id: 3, logprob: -0.5 }, { id: 9, logprob: -2.0 }];

test('a token the completion has not written keeps its place', () => {
  expect(penalizedGreedy(7, top, [3, 3, 9], 0.3)).toEqual({ kind: 'same' });
});

test('a repeated token loses to the next when its penalty outweighs the gap', () => {
  // 7 written twice: -0.1 - 0.6 = -0.7 < -0.5.
  expect(penalizedGreedy(7, top, [7, 1, 7], 0.3)).toEqual({ kind: 'other', id: 3 });
  // Once: -0.4 still beats -0.5.
  expect(penalizedGreedy(7, top, [7], 0.3)).toEqual({ kind: 'same' });
});

test('only the last PENALTY_WINDOW generated tokens count', () => {
  const old = [7, 7, ...new Array<number>(PENALTY_WINDOW).fill(1)];
  expect(penalizedGreedy(7, top, old, 0.3)).toEqual({ kind: 'same' });
});

test('unsure when every listed token fell below the last listed log-probability', () => {
  const listed = [{ id: 7, logprob: -0.1 }, { id: 3, logprob: -0.2 }];
  expect(penalizedGreedy(7, listed, [7, 7, 3, 3, 3], 0.3)).toEqual({ kind: 'unsure' });
});

test('ties go to the lower id, and no penalty means the server token', () => {
  const tied = [{ id: 8, logprob: -0.4 }, { id: 2, logprob: -0.7 }];
  expect(penalizedGreedy(8, tied, [8], 0.3)).toEqual({ kind: 'other', id: 2 });
  expect(penalizedGreedy(8, tied, [8, 8, 8], 0)).toEqual({ kind: 'same' });
});
