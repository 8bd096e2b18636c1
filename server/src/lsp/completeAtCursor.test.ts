import { expect, test } from 'vitest';
import { completionModeOf } from './completeAtCursor.js';

test.each([
  [{ reposhapley: { mode: 'line' } }, 'line'],
  [{ reposhapley: { mode: 'block' } }, 'block'],
  [{ reposhapley: { mode: 'paragraph' } }, undefined],
  [{ reposhapley: 'line' }, undefined],
  [{}, undefined],
  [undefined, undefined],
  [null, undefined],
])('completionModeOf(%j) = %s', (params, expected) => {
  expect(completionModeOf(params)).toBe(expected);
});
