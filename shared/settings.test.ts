import { describe, expect, test } from 'vitest';
import {
  DEFAULT_SETTINGS, isValidSetting, pickValidSettings, readSetting, SETTING_KEYS, settingSpec, SETTINGS_SCHEMA, type SettingKey,
} from './settings.js';

describe('the schema', () => {
  test.each(SETTING_KEYS)('%s: the default is valid and described; the range is not empty', (key) => {
    const spec = settingSpec(key);
    expect(isValidSetting(key, spec.default)).toBe(true);
    expect(spec.description.length).toBeGreaterThan(10);
    if ('min' in spec) expect(spec.min).toBeLessThanOrEqual(spec.max);
  });

  test('DEFAULT_SETTINGS holds every default, budgets nested', () => {
    for (const key of SETTING_KEYS) expect(readSetting(DEFAULT_SETTINGS, key), key).toEqual(SETTINGS_SCHEMA[key].default);
    expect(DEFAULT_SETTINGS.budgets).toEqual({ prefixTokens: 384, suffixTokens: 64, chunkTokens: 384 });
    expect(DEFAULT_SETTINGS.model).toBe('auto');
    expect(DEFAULT_SETTINGS.modelCacheDir).toBe('');
  });
});

test.each<[SettingKey, unknown, boolean]>([
  ['enabled', false, true], ['enabled', 'false', false],
  ['policy', 'reposhapley', true], ['policy', 'always', false],
  ['model', 'any-name', true], ['modelCacheDir', 7, false],
  ['budgets.prefixTokens', 16, true], ['budgets.prefixTokens', 15, false], ['budgets.prefixTokens', 32_769, false],
  ['budgets.suffixTokens', 0, true], ['budgets.chunkTokens', -1, false],
  ['topK', 10, true], ['topK', 11, false], ['topK', 2.5, false],
  ['needThreshold', null, true], ['needThreshold', 0.35, true], ['needThreshold', 1.01, false], ['needThreshold', Number.NaN, false],
  ['threads', null, false], ['gpuLayers', 'auto', true], ['gpuLayers', 0, true], ['gpuLayers', 10_000, false], ['gpuLayers', '12', false],
  ['topK', 'auto', false], ['maxTokens', 0, false], ['debounceMs', 5_001, false],
])('isValidSetting(%s, %j) is %s', (key, value, valid) => {
  expect(isValidSetting(key, value)).toBe(valid);
});

test('pickValidSettings keeps valid values, nests budgets and drops the rest', () => {
  const source: Record<string, unknown> = { topK: 3, 'budgets.prefixTokens': 64, 'budgets.suffixTokens': -5, policy: 'x', extra: 1 };
  expect(pickValidSettings((key) => source[key])).toEqual({ topK: 3, budgets: { prefixTokens: 64 } });
});
