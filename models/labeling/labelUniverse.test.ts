import { expect, test } from 'vitest';
import type { Target, TargetKind } from '../data/targets.js';
import { instanceId, labelUniverse } from './labelUniverse.js';

const target = (kind: TargetKind, line: number, text = 'x'): Target =>
  ({ kind, relPath: 'pkg/m.py', line, character: 4, start: 0, end: text.length, text }) as Target;
const drawn: Record<TargetKind, Target[]> = {
  line: Array.from({ length: 30 }, (_, i) => target('line', i, i % 4 === 0 ? 'too long' : 'x')),
  api: Array.from({ length: 30 }, (_, i) => target('api', 100 + i)),
  block: Array.from({ length: 30 }, (_, i) => target('block', 200 + i)),
};
const mix = { line: 0.5, api: 0.3, block: 0.2 };
const fits = (t: Target) => t.text !== 'too long';

test('per kind, the first targets of the draw that fit, as many as the mix asks', () => {
  const chosen = labelUniverse(drawn, 20, mix, fits);
  expect(chosen.filter((t) => t.kind === 'line').map((t) => t.line)).toEqual([1, 2, 3, 5, 6, 7, 9, 10, 11, 13]);
  expect(chosen.filter((t) => t.kind === 'api')).toHaveLength(6);
  expect(chosen.filter((t) => t.kind === 'block')).toHaveLength(4);
});

test('narrowed to some kinds, the same targets of those kinds and none of the others', () => {
  const all = labelUniverse(drawn, 20, mix, fits);
  const apiOnly = labelUniverse(drawn, 20, mix, fits, ['api']);
  expect(apiOnly).toEqual(all.filter((t) => t.kind === 'api'));
  expect(labelUniverse(drawn, 20, mix, fits, ['block', 'line'])).toEqual(all.filter((t) => t.kind !== 'api'));
});

test('instance ids are the ones label records carry (1-based line and column)', () => {
  // Changing this format would make every committed record look unlabeled to the resume check.
  expect(instanceId('python3-x', target('api', 301))).toBe('python3-x/pkg/m.py:302:5:api');
});
