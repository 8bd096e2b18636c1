import { expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings.js';
import { mergeSettings } from './settings.js';

test('valid fields apply; wrong types and out-of-range values keep the current value', () => {
  const merged = mergeSettings(DEFAULT_SETTINGS, {
    policy: 'full', topK: 99, needThreshold: 0.3, threads: -1, gpuLayers: 'auto',
    budgets: { prefixTokens: 512, suffixTokens: 'x' as unknown as number },
    debounceMs: 1.5, enabled: false,
  });
  expect(merged.policy).toBe('full');
  expect(merged.topK).toBe(DEFAULT_SETTINGS.topK);
  expect(merged.needThreshold).toBe(0.3);
  expect(merged.threads).toBe(DEFAULT_SETTINGS.threads);
  expect(merged.budgets).toEqual({ ...DEFAULT_SETTINGS.budgets, prefixTokens: 512 });
  expect(merged.debounceMs).toBe(DEFAULT_SETTINGS.debounceMs);
  expect(merged.enabled).toBe(false);
  expect(mergeSettings(DEFAULT_SETTINGS, null as never)).toBe(DEFAULT_SETTINGS);
});

test('the schema\'s ranges decide: a prefix budget under 16 is ignored, one of 16 applies', () => {
  const set = mergeSettings(DEFAULT_SETTINGS, { budgets: { prefixTokens: 16, chunkTokens: 0 } });
  expect(set.budgets).toEqual({ ...DEFAULT_SETTINGS.budgets, prefixTokens: 16, chunkTokens: 0 });
  expect(mergeSettings(set, { budgets: { prefixTokens: 15 } }).budgets.prefixTokens).toBe(16);
  expect(mergeSettings(set, { gpuLayers: 10_000 }).gpuLayers).toBe('auto');
  expect(mergeSettings(set, { gpuLayers: 32 }).gpuLayers).toBe(32);
});

test('model and modelCacheDir merge like any string setting', () => {
  const merged = mergeSettings(DEFAULT_SETTINGS, { model: 'tiny', modelCacheDir: '/models' });
  expect(merged).toMatchObject({ model: 'tiny', modelCacheDir: '/models' });
  expect(mergeSettings(merged, { model: 3 as unknown as string }).model).toBe('tiny');
  expect(DEFAULT_SETTINGS.model).toBe('auto');
});

test('merging never mutates the current settings', () => {
  const current = structuredClone(DEFAULT_SETTINGS);
  mergeSettings(current, { topK: 3, budgets: { suffixTokens: 64 } });
  expect(current).toEqual(DEFAULT_SETTINGS);
});

test('needThreshold null hands t_c back to the model; out-of-range values are ignored', () => {
  const set = mergeSettings(DEFAULT_SETTINGS, { needThreshold: 0.3 });
  expect(mergeSettings(set, { needThreshold: null }).needThreshold).toBeNull();
  expect(mergeSettings(set, { needThreshold: 2 }).needThreshold).toBe(0.3);
  expect(DEFAULT_SETTINGS.needThreshold).toBeNull();
});
