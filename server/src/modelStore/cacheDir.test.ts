import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { cachedModelPath, resolveCacheDir } from './cacheDir.js';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from './catalog.js';
import { hasVerifiedMark, sidecarPath, writeVerifiedMark } from './sidecar.js';

describe('resolveCacheDir', () => {
  test.each([
    ['the explicit option overrides everything', { cacheDir: '/opt/c', env: { REPOSHAPLEY_CACHE_DIR: '/e', XDG_CACHE_HOME: '/x' } }, '/opt/c'],
    ['REPOSHAPLEY_CACHE_DIR is the models directory itself', { env: { REPOSHAPLEY_CACHE_DIR: '/e', XDG_CACHE_HOME: '/x' } }, '/e'],
    ['XDG_CACHE_HOME gets reposhapley/models', { env: { XDG_CACHE_HOME: '/x' } }, '/x/reposhapley/models'],
    ['a relative XDG_CACHE_HOME is ignored, as the XDG spec says', { env: { XDG_CACHE_HOME: 'rel' } }, '/home/u/.cache/reposhapley/models'],
    ['else ~/.cache/reposhapley/models', { env: {} }, '/home/u/.cache/reposhapley/models'],
  ])('%s', (_name, options, expected) => {
    expect(resolveCacheDir({ homeDir: '/home/u', ...options })).toBe(expected);
  });

  test('a relative explicit directory is made absolute', () => {
    expect(resolveCacheDir({ cacheDir: 'models', env: {} })).toBe(path.resolve('models'));
  });
});

describe('cachedModelPath', () => {
  const entry = MODEL_CATALOG.find((candidate) => candidate.name === DEFAULT_MODEL_NAME)!;

  test('an absent model: its final path, not existing, not verified', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cache-'));
    expect(cachedModelPath(DEFAULT_MODEL_NAME, dir)).toEqual({ kind: 'ok', entry, path: path.join(dir, entry.fileName), exists: false, verified: false });
  });

  test('an unknown name is an error value listing the known names', () => {
    expect(cachedModelPath('gpt-5', '/tmp')).toEqual({
      kind: 'error', code: 'not-in-catalog', message: 'unknown model "gpt-5"; known models: qwen2.5-coder-0.5b (default), qwen2.5-coder-1.5b',
    });
  });

  test('a file is verified only while its sidecar matches its hash pin, size and mtime', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cache-'));
    const file = path.join(dir, entry.fileName);
    writeFileSync(file, 'not really a model');
    expect(cachedModelPath(DEFAULT_MODEL_NAME, dir)).toMatchObject({ exists: true, verified: false });
    await writeVerifiedMark(file, entry.sha256);
    expect(cachedModelPath(DEFAULT_MODEL_NAME, dir)).toMatchObject({ exists: true, verified: true });
    expect(hasVerifiedMark(file, 'a'.repeat(64))).toBe(false); // a changed pin
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(cachedModelPath(DEFAULT_MODEL_NAME, dir)).toMatchObject({ exists: true, verified: false });
    await writeVerifiedMark(file, entry.sha256);
    writeFileSync(sidecarPath(file), '{not json');
    expect(hasVerifiedMark(file, entry.sha256)).toBe(false);
  });
});
