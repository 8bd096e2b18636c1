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
/** Settings only the client reads. */
const CLIENT_ONLY = new Set(['serverPath']);

/** A ReadSetting over what VS Code would return: the contributed defaults, overridden by `values`. */
function reader(values: Record<string, unknown> = {}): ReadSetting {
  return (key) => (key in values ? values[key] : contributed[`${SECTION}.${key}`]?.default);
}

describe('package.json contributions', () => {
  test('every contributed server setting defaults to the server default (shared/settings.ts)', () => {
    const patch = toSettingsPatch(reader());
    const { budgets, ...flat } = patch;
    for (const [key, value] of Object.entries(flat)) expect(value, key).toEqual(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS]);
    expect(budgets).toEqual(DEFAULT_SETTINGS.budgets);
  });

  test('every contributed setting reaches the server or is client-only', () => {
    const patch = toSettingsPatch(reader()) as Record<string, unknown>;
    const passed = new Set(Object.keys(patch).flatMap((key) => (key === 'budgets' ? Object.keys(patch.budgets as object).map((b) => `budgets.${b}`) : [key])));
    for (const name of Object.keys(contributed)) {
      const key = name.slice(SECTION.length + 1);
      expect(passed.has(key) || CLIENT_ONLY.has(key), `${name} is neither sent to the server nor client-only`).toBe(true);
    }
  });

  test('the issue\'s settings are all contributed', () => {
    for (const key of ['enabled', 'modelPath', 'policy', 'budgets.prefixTokens', 'budgets.suffixTokens', 'budgets.chunkTokens', 'debounceMs', 'threads', 'gpuLayers']) {
      expect(contributed[`${SECTION}.${key}`], key).toBeDefined();
    }
  });
});

describe('toSettingsPatch', () => {
  test('passes user values through and converts gpuLayers', () => {
    const patch = toSettingsPatch(reader({ policy: 'full', gpuLayers: '12', 'budgets.chunkTokens': 512, modelPath: ' /m.gguf ', enabled: false }));
    expect(patch).toMatchObject({ policy: 'full', gpuLayers: 12, modelPath: '/m.gguf', enabled: false });
    expect(patch.budgets).toEqual({ prefixTokens: 1024, suffixTokens: 256, chunkTokens: 512 });
  });

  test('leaves out values of the wrong type, for the server to keep its own', () => {
    const patch = toSettingsPatch(() => 'nonsense');
    expect(patch).toEqual({ modelPath: 'nonsense' });
  });

  test('never sends client-only settings', () => {
    expect(toSettingsPatch(reader({ serverPath: '/x' }))).not.toHaveProperty('serverPath');
  });

  test('initializationOptions carry the trace command', () => {
    expect(initializationOptions(reader(), 'cmd').completionCommand).toBe('cmd');
  });
});

test.each([
  ['auto', 'auto'], [' AUTO ', 'auto'], ['0', 0], ['33', 33], [7, 7], ['-1', undefined], ['1.5', undefined], [1.5, undefined], ['', undefined], [null, undefined],
])('toGpuLayers(%j) is %j', (input, expected) => {
  expect(toGpuLayers(input)).toBe(expected);
});
