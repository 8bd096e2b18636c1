import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { initializationOptions, SECTION, toGpuLayers, toSettingsPatch, type ReadSetting } from './configuration.js';

interface ContributedSetting {
  default: unknown;
}

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, ContributedSetting> } };
};
const contributed = manifest.contributes.configuration.properties;

/** A ReadSetting over what VS Code would return: the contributed defaults, overridden by `values`. */
function reader(values: Record<string, unknown> = {}): ReadSetting {
  return (key) => (key in values ? values[key] : contributed[`${SECTION}.${key}`]?.default);
}

test('the contributed defaults reach the server as the schema defaults (through the conversions)', () => {
  const patch = toSettingsPatch(reader());
  const { budgets, ...flat } = patch;
  expect(Object.keys(flat).length).toBeGreaterThan(0);
  for (const [key, value] of Object.entries(flat)) expect(value, key).toEqual(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS]);
  expect(budgets).toEqual(DEFAULT_SETTINGS.budgets);
});

describe('toSettingsPatch', () => {
  test('passes user values through and converts gpuLayers', () => {
    const patch = toSettingsPatch(reader({ policy: 'full', gpuLayers: '12', 'budgets.chunkTokens': 512, modelPath: ' /m.gguf ', enabled: false }));
    expect(patch).toMatchObject({ policy: 'full', gpuLayers: 12, modelPath: '/m.gguf', enabled: false });
    expect(patch.budgets).toEqual({ ...DEFAULT_SETTINGS.budgets, chunkTokens: 512 });
  });

  test('leaves out values of the wrong type, for the server to keep its own', () => {
    const patch = toSettingsPatch(() => 'nonsense');
    expect(patch).toEqual({
      modelPath: 'nonsense', model: 'nonsense', modelCacheDir: 'nonsense', modelServer: 'nonsense', modelServerApiKey: 'nonsense', adapterPath: 'nonsense',
    });
  });

  test('leaves out values the schema rejects, as the server would', () => {
    const patch = toSettingsPatch(reader({ 'budgets.prefixTokens': 8, topK: 11, gpuLayers: '10000', debounceMs: 2.5, policy: 'always' }));
    expect(patch.budgets?.prefixTokens).toBeUndefined();
    expect(patch).not.toHaveProperty('topK');
    expect(patch).not.toHaveProperty('gpuLayers');
    expect(patch).not.toHaveProperty('debounceMs');
    expect(patch).not.toHaveProperty('policy');
  });

  test('passes the new model settings and a cleared needThreshold', () => {
    const patch = toSettingsPatch(reader({ model: ' tiny ', modelCacheDir: '/cache', needThreshold: null }));
    expect(patch).toMatchObject({ model: 'tiny', modelCacheDir: '/cache', needThreshold: null });
  });

  test('never sends client-only settings', () => {
    expect(toSettingsPatch(reader({ serverPath: '/x' }))).not.toHaveProperty('serverPath');
  });

  test('initializationOptions carry the trace command and say that the client offers model downloads', () => {
    expect(initializationOptions(reader(), 'cmd')).toMatchObject({ completionCommand: 'cmd', modelPullOffer: true });
  });
});

test.each([
  ['auto', 'auto'], [' AUTO ', 'auto'], ['0', 0], ['33', 33], [7, 7], ['-1', undefined], ['1.5', undefined], [1.5, undefined], ['', undefined], [null, undefined],
])('toGpuLayers(%j) is %j', (input, expected) => {
  expect(toGpuLayers(input)).toBe(expected);
});
