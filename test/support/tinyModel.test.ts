/**
 * The tiny model fixture: deterministic, and its F16 / Q8_0 encodings agree with F32 when
 * llama.cpp decodes them (which checks the GGUF writer's encoders against ggml's own).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel } from './tinyModel.js';
import { BYTE_TO_UNICODE, PYTHON_CORPUS, learnMerges, toByteLevel } from './byteBpe.js';
import { GgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { silentLogger } from '../../server/src/util/logger.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tiny-model-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('byte-level BPE', () => {
  test('the byte table is a bijection onto printable characters', () => {
    expect(new Set(BYTE_TO_UNICODE).size).toBe(256);
    expect(BYTE_TO_UNICODE[32]).toBe('Ġ');
    expect(BYTE_TO_UNICODE[10]).toBe('Ċ');
    expect(BYTE_TO_UNICODE[65]).toBe('A');
    expect(toByteLevel(' é')).toBe('ĠÃ©');
  });

  test('merges are learned deterministically and cover Python pieces', () => {
    const merges = learnMerges(PYTHON_CORPUS, 300);
    expect(merges).toEqual(learnMerges(PYTHON_CORPUS, 300));
    expect(merges.length).toBeGreaterThan(150);
    expect(merges[0]).toBe('Ġ Ġ');
    expect(merges).toContain('de f');
    expect(merges).toContain('Ġ self');
  });
});

describe('writeTinyModel', () => {
  test('same options give the same bytes; another seed gives other weights', async () => {
    const a = await writeTinyModel({ path: path.join(dir, 'a.gguf') });
    const b = await writeTinyModel({ path: path.join(dir, 'b.gguf') });
    const c = await writeTinyModel({ path: path.join(dir, 'c.gguf'), seed: 2 });
    const [bytesA, bytesB, bytesC] = await Promise.all([a, b, c].map((m) => readFile(m.path)));
    expect(bytesA.equals(bytesB)).toBe(true);
    expect(bytesA.length).toBe(bytesC.length);
    expect(bytesA.equals(bytesC)).toBe(false);
  });

  // Mean |Δ ln p| over many next tokens. Random logits are large here (ln p ≈ -50), so
  // F16's rounding moves them by ~0.006 and Q8_0's by ~0.16; a Q8_0 scale off by 5% gives 0.57.
  test.each([
    ['F16', GgmlType.F16, 0.03],
    ['Q8_0', GgmlType.Q8_0, 0.35],
  ] as const)('a %s model predicts like the F32 one when llama.cpp decodes it', async (name, weightType, tolerance) => {
    const reference = await writeTinyModel({ path: path.join(dir, 'ref.gguf'), headsKv: 2, tiedOutput: true });
    const encoded = await writeTinyModel({ path: path.join(dir, `${name}.gguf`), headsKv: 2, tiedOutput: true, weightType });
    const [refModel, encModel] = await Promise.all([reference, encoded].map(async (m) => {
      const result = await loadLlamaModel({ path: m.path, threads: 1, gpuLayers: 0 }, silentLogger);
      if (result.kind !== 'ok') throw new Error(result.message);
      return result.model;
    }));
    try {
      const tokens = refModel.tokenize('def load_config(path: str) -> Config:\n    config =');
      const [refSession, encSession] = await Promise.all([refModel.createSession(), encModel.createSession()]);
      let total = 0;
      let count = 0;
      for (let target = 0; target < reference.tokens.length; target += 7) {
        const expected = await refSession.logLikelihood(tokens, [target]);
        total += Math.abs((await encSession.logLikelihood(tokens, [target])) - expected);
        count++;
      }
      expect(total / count).toBeLessThan(tolerance);
    } finally {
      await Promise.all([refModel.dispose(), encModel.dispose()]);
    }
  });
});
