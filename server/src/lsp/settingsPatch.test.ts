import { expect, test } from 'vitest';
import { isEmptyPatch, readSettingsPatch } from './settingsPatch.js';

test.each<[string, unknown, unknown]>([
  ['a plain patch', { policy: 'full', topK: 5 }, { policy: 'full', topK: 5 }],
  ['a wrapped section', { reposhapley: { debounceMs: 10 } }, { debounceMs: 10 }],
  ['unknown keys and wrong types dropped', { policy: 'nope', topK: '5', enabled: 'yes', extra: 1, maxTokens: 32 }, { maxTokens: 32 }],
  ['budgets merged field by field', { budgets: { prefixTokens: 100, suffixTokens: -1 } }, { budgets: { prefixTokens: 100 } }],
  ['out-of-range values dropped (the schema\'s ranges)', { budgets: { prefixTokens: 8 }, topK: 11, debounceMs: 75 }, { debounceMs: 75 }],
  ['needThreshold null kept (back to the model\'s t_c)', { needThreshold: null }, { needThreshold: null }],
  ['the model settings', { model: 'tiny', modelCacheDir: '/m', modelPath: 1 }, { model: 'tiny', modelCacheDir: '/m' }],
  ['client-only and extra keys dropped', { serverPath: '/s', completionCommand: 'c', enabled: true }, { enabled: true }],
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
