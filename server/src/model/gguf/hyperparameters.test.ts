/**
 * Hostile hyperparameters: each variant of a loadable tiny model is refused by the loader with a
 * message naming the key, before llama.cpp (which would abort the process on several of them)
 * sees the file. The test process itself surviving is part of the check.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { silentLogger } from '../../util/logger.js';
import { loadLlamaModel } from '../llama/loadLlamaModel.js';
import { readGgufHeader } from './ggufReader.js';
import { GgufValueType, type GgufValue } from './ggufTypes.js';
import { encodeHeader } from './ggufWriter.js';
import { patchGguf } from './patchGguf.js';

let dir: string;
let tiny: TinyModel;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'hostile-gguf-'));
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf') });
});

const u32 = (value: number): GgufValue => ({ type: GgufValueType.UINT32, value });
const i32 = (value: number): GgufValue => ({ type: GgufValueType.INT32, value });
const f32 = (value: number): GgufValue => ({ type: GgufValueType.FLOAT32, value });

/** [name, the keys changed, what the message must name]; the tiny model has 4 heads, width 64. */
const HOSTILE: [string, Record<string, GgufValue>, RegExp][] = [
  ['width not a multiple of heads', { 'llama.attention.head_count': u32(3), 'llama.attention.head_count_kv': u32(3) }, /embedding_length \(64\) is not a multiple of llama.attention.head_count \(3\)/],
  ['no layers', { 'llama.block_count': u32(0) }, /block_count is 0/],
  ['absurd layer count', { 'llama.block_count': u32(100_000) }, /block_count is 100000/],
  ['negative layers', { 'llama.block_count': i32(-1) }, /block_count is -1/],
  ['no heads', { 'llama.attention.head_count': u32(0) }, /head_count is 0/],
  ['no KV heads', { 'llama.attention.head_count_kv': u32(0) }, /head_count_kv is 0/],
  ['KV heads not dividing heads', { 'llama.attention.head_count_kv': u32(3) }, /not a multiple of llama.attention.head_count_kv/],
  ['heads not a multiple of KV heads', { 'llama.attention.head_count': u32(3) }, /head_count \(3\) is not a multiple/],
  ['no feed-forward width', { 'llama.feed_forward_length': u32(0) }, /feed_forward_length is 0/],
  ['no embedding width', { 'llama.embedding_length': u32(0) }, /embedding_length is 0/],
  ['width unlike the embedding rows', { 'llama.embedding_length': u32(128) }, /token_embd.weight rows have 64 values/],
  ['context 0', { 'llama.context_length': u32(0) }, /context_length is 0/],
  ['context 0xFFFFFFFF', { 'llama.context_length': u32(0xffffffff) }, /context_length is 4294967295/],
  ['fractional count', { 'llama.block_count': f32(1.5) }, /block_count is 1.5/],
  ['NaN epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(Number.NaN) }, /epsilon is NaN/],
  ['infinite epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(Number.POSITIVE_INFINITY) }, /epsilon is Infinity/],
  ['zero epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(0) }, /epsilon is 0/],
  ['negative epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(-1) }, /epsilon is -1/],
  ['huge epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(5) }, /epsilon is 5/],
  ['layer-norm epsilon NaN', { 'llama.attention.layer_norm_epsilon': f32(Number.NaN) }, /layer_norm_epsilon is NaN/],
];

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
    const read = await readGgufHeader(tiny.path);
    if (read.kind !== 'ok') throw new Error(read.message);
    const base = read.header;
    // Same bytes, transposed dimensions: our checks cannot know, llama.cpp's loader does.
    const tensors = base.tensors.map((t) => (t.name === 'blk.0.ffn_gate.weight' ? { ...t, ne: [...t.ne].reverse() } : t));
    const header = encodeHeader(base.kv, tensors);
    const dataOffset = Math.ceil(header.length / base.alignment) * base.alignment;
    const bytes = readFileSync(tiny.path);
    const file = path.join(dir, 'wrong-shape.gguf');
    writeFileSync(file, Buffer.concat([header, Buffer.alloc(dataOffset - header.length), bytes.subarray(base.dataOffset)]));
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
