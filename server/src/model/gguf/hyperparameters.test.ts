/**
 * Hostile hyperparameters: each variant of a loadable tiny model is refused by the loader with a
 * message naming the key, before llama.cpp (which would abort the process on several of them)
 * sees the file. The test process itself surviving is part of the check.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { silentLogger } from '../../util/logger.js';
import { loadLlamaModel } from '../llama/loadLlamaModel.js';
import { readGgufHeader } from './ggufReader.js';
import { HOSTILE_HEADERS as HOSTILE, withTransposedTensor } from '../../../../test/support/hostileGguf.js';
import { GgufValueType, type GgufValue } from './ggufTypes.js';
import { patchGguf } from './patchGguf.js';

let dir: string;
let tiny: TinyModel;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'hostile-gguf-'));
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf') });
});

describe('hostile hyperparameters are refused before llama.cpp loads them', () => {
  test('the unmodified tiny model loads (the checks pass a sane header)', async () => {
    const loaded = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0 }, silentLogger);
    expect(loaded.kind).toBe('ok');
    if (loaded.kind === 'ok') await loaded.model.dispose();
  });

  test.each(HOSTILE)('%s', async (name, changes, expected) => {
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.gguf`);
    await patchGguf(tiny.path, file, { kv: new Map(Object.entries(changes)), rows: [] });
    const loaded = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, silentLogger);
    expect(loaded.kind).toBe('invalid');
    expect(loaded.kind !== 'ok' && loaded.message).toMatch(expected);
    expect(loaded.kind !== 'ok' && loaded.message).toMatch(/Download or export the model again/);
  });

  test('a load llama.cpp refuses (a tensor of the wrong shape) is reported with llama.cpp\'s reason', async () => {
    const file = path.join(dir, 'wrong-shape.gguf');
    writeFileSync(file, await withTransposedTensor(tiny.path));
    const loaded = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, silentLogger);
    expect(loaded.kind).toBe('error');
    expect(loaded.kind !== 'ok' && loaded.message).toMatch(/\(llama\.cpp: .*blk\.0\.ffn_gate\.weight.*\)/);
  });

  test('a token table shorter than the embedding matrix is refused', async () => {
    const read = await readGgufHeader(tiny.path);
    if (read.kind !== 'ok') throw new Error(read.message);
    const tokens = read.header.kv.get('tokenizer.ggml.tokens')!;
    if (tokens.type !== GgufValueType.ARRAY) throw new Error('tokens not an array');
    const shorter: GgufValue = { ...tokens, value: tokens.value.slice(0, -1) };
    const types = read.header.kv.get('tokenizer.ggml.token_type')!;
    const fewerTypes: GgufValue = types.type === GgufValueType.ARRAY ? { ...types, value: types.value.slice(0, -1) } : types;
    const file = path.join(dir, 'short-vocabulary.gguf');
    await patchGguf(tiny.path, file, { kv: new Map([['tokenizer.ggml.tokens', shorter], ['tokenizer.ggml.token_type', fewerTypes]]), rows: [] });
    const loaded = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, silentLogger);
    expect(loaded.kind !== 'ok' && loaded.message).toMatch(/token_embd.weight has \d+ rows for \d+ tokens/);
  });
});
