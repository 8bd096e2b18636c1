import { expect, test } from 'vitest';
import { isEmptyPatch, readSettingsPatch } from './settingsPatch.js';

test.each<[string, unknown, unknown]>([
  ['a plain patch', { policy: 'full', topK: 5 }, { policy: 'full', topK: 5 }],
  ['a wrapped section', { reposhapley: { debounceMs: 10 } }, { debounceMs: 10 }],
  ['unknown keys and wrong types dropped', { policy: 'nope', topK: '5', enabled: 'yes', extra: 1, maxTokens: 32 }, { maxTokens: 32 }],
  ['budgets merged field by field', { budgets: { prefixTokens: 100, suffixTokens: -1 } }, { budgets: { prefixTokens: 100 } }],
  ['gpuLayers auto or a number', { gpuLayers: 'auto', threads: 2 }, { gpuLayers: 'auto', threads: 2 }],
  ['null', null, {}],
  ['an array', [1, 2], {}],
  ['a string', 'reposhapley', {}],
])('readSettingsPatch: %s', (_name, input, expected) => {
  expect(readSettingsPatch(input)).toEqual(expected);
});

test('isEmptyPatch', () => {
  expect(isEmptyPatch({})).toBe(true);
  expect(isEmptyPatch({ enabled: false })).toBe(false);
});
