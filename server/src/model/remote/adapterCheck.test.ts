import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { controlPackManifest } from '../../modelStore/controlPack.js';
import { adapterWarning, describeAdapters, packAdapterFor } from './adapterCheck.js';

const DERIVED = 'qwen2.5-coder-0.5b-instruct-q4_k_m.reposhapley-control.gguf';
const EXPECTED = '/packs/qwen2.5-coder-0.5b/adapter.gguf';

describe('packAdapterFor', () => {
  test('the derived file gets its control pack\'s adapter; the 1.5B\'s base file its adapter pack\'s', () => {
    const pack = controlPackManifest('qwen2.5-coder-0.5b');
    expect(pack?.derived.fileName).toBe(DERIVED);
    expect(packAdapterFor(DERIVED, pack)).toMatch(/models[/\\]control[/\\]qwen2\.5-coder-0\.5b[/\\]adapter\.gguf$/);
    expect(packAdapterFor('qwen2.5-coder-1.5b-instruct-q4_k_m.gguf', undefined)).toMatch(/models[/\\]adapters[/\\]qwen2\.5-coder-1\.5b[/\\]adapter\.gguf$/);
  });

  test('any other file has no adapter a local server would apply', () => {
    expect(packAdapterFor('my-model.gguf', undefined)).toBeUndefined();
  });
});

describe('adapterWarning', () => {
  test('a server applying an adapter, or a file with none to apply, is fine', () => {
    expect(adapterWarning(DERIVED, EXPECTED, [{ id: 0, path: 'adapter.gguf', scale: 1 }])).toBeUndefined();
    expect(adapterWarning('my-model.gguf', undefined, [])).toBeUndefined();
  });

  test('none applied (none loaded, or loaded at scale 0): the fix names --lora and the file', () => {
    for (const answer of [[], [{ id: 0, path: 'adapter.gguf', scale: 0 }]]) {
      const warning = adapterWarning(DERIVED, EXPECTED, answer);
      expect(warning).toContain(`${DERIVED} is served without a LoRA adapter`);
      expect(warning).toContain(`--lora ${EXPECTED}`);
    }
  });

  test('a server that cannot say (an older llama-server): said, with the fix', () => {
    expect(adapterWarning(DERIVED, EXPECTED, new Error('HTTP 404'))).toMatch(/could not ask .*HTTP 404.*--lora/);
  });
});

test('describeAdapters names what the server applies', () => {
  expect(describeAdapters([{ id: 0, path: path.join('x', 'adapter.gguf'), scale: 1 }])).toBe('LoRA adapter.gguf (scale 1)');
  expect(describeAdapters([])).toBe('no LoRA adapter');
  expect(describeAdapters(new Error('HTTP 404'))).toBe('LoRA adapters unknown');
});
