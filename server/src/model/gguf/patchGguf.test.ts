import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GgufWriter } from './ggufWriter.js';
import { readGgufHeader, readTensorBytes, type GgufHeader } from './ggufReader.js';
import { GgmlType, GgufValueType, decodeTensorData, type GgufValue } from './ggufTypes.js';
import { patchGguf, rowBytes } from './patchGguf.js';

const WIDTH = 64;
const ROWS = 8;
let dir: string;
let basePath: string;

function values(count: number, seed: number): Float32Array {
  return Float32Array.from({ length: count }, (_, i) => Math.sin(i * 0.61 + seed) * (1 + (i % 5)));
}

async function header(file: string): Promise<GgufHeader> {
  const read = await readGgufHeader(file);
  if (read.kind !== 'ok') throw new Error(read.message);
  return read.header;
}

async function tensorBytes(file: string, name: string): Promise<Buffer> {
  const h = await header(file);
  return readTensorBytes(file, h, h.tensors.find((t) => t.name === name)!);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'patch-gguf-'));
  basePath = path.join(dir, 'base.gguf');
  // Shaped like a pretrained model's vocabulary tensors, with its quantization types.
  await new GgufWriter()
    .addKv('general.architecture', 'test')
    .addKv('tokenizer.ggml.tokens', Array.from({ length: ROWS }, (_, i) => `[PAD${i}]`))
    .addKv('tokenizer.ggml.token_type', new Int32Array(ROWS).fill(1))
    .addTensor('token_embd.weight', [WIDTH, ROWS], values(WIDTH * ROWS, 1), GgmlType.Q5_0)
    .addTensor('output_norm.weight', [WIDTH], values(WIDTH, 2))
    .addTensor('output.weight', [WIDTH, ROWS], values(WIDTH * ROWS, 3), GgmlType.Q8_0)
    .addTensor('blk.0.ffn_up.weight', [WIDTH, 3], values(WIDTH * 3, 4), GgmlType.Q5_0)
    .write(basePath);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('patchGguf', () => {
  const newRow = values(WIDTH, 9);
  const tokens: GgufValue = {
    type: GgufValueType.ARRAY, elementType: GgufValueType.STRING,
    value: Array.from({ length: ROWS }, (_, i) => (i === 5 ? '<A much longer control token text>' : `[PAD${i}]`)),
  };
  let outPath: string;

  beforeAll(async () => {
    outPath = path.join(dir, 'derived.gguf');
    await patchGguf(basePath, outPath, {
      kv: new Map<string, GgufValue>([
        ['tokenizer.ggml.tokens', tokens],
        ['test.added', { type: GgufValueType.BOOL, value: true }],
      ]),
      rows: [
        { tensor: 'token_embd.weight', row: 5, values: newRow },
        { tensor: 'output.weight', row: 5, values: newRow },
      ],
    });
  });

  test('metadata is replaced and added, the rest kept in order', async () => {
    const derived = await header(outPath);
    const base = await header(basePath);
    expect(derived.kv.get('tokenizer.ggml.tokens')).toEqual(tokens);
    expect(derived.kv.get('test.added')).toEqual({ type: GgufValueType.BOOL, value: true });
    expect([...derived.kv.keys()].slice(0, base.kv.size)).toEqual([...base.kv.keys()]);
    expect(derived.tensors).toEqual(base.tensors);
    // A longer header moved the data section; the offsets inside it did not move.
    expect(derived.dataOffset).toBeGreaterThan(base.dataOffset);
  });

  test('patched rows hold the new values within the quantization step; other rows are bit-identical', async () => {
    // Half a step for Q8_0; Q5_0's 32 levels are -16..15 steps, so a value of the sign opposite
    // to the block's extreme can land a whole step off (ggml clamps it the same way).
    for (const [name, type, tolerance] of [['token_embd.weight', GgmlType.Q5_0, 1.01 / 16], ['output.weight', GgmlType.Q8_0, 0.51 / 127]] as const) {
      const [before, after] = [await tensorBytes(basePath, name), await tensorBytes(outPath, name)];
      const row = rowBytes((await header(basePath)).tensors.find((t) => t.name === name)!);
      for (let r = 0; r < ROWS; r++) {
        const [old, fresh] = [before.subarray(r * row, (r + 1) * row), after.subarray(r * row, (r + 1) * row)];
        if (r !== 5) {
          expect(fresh.equals(old)).toBe(true);
          continue;
        }
        const decoded = decodeTensorData(Buffer.from(fresh), type, WIDTH);
        for (let block = 0; block < WIDTH; block += 32) {
          const blockMax = Math.max(...newRow.subarray(block, block + 32).map(Math.abs));
          for (let i = block; i < block + 32; i++) expect(Math.abs(decoded[i] - newRow[i])).toBeLessThanOrEqual(blockMax * tolerance);
        }
      }
    }
    expect((await tensorBytes(outPath, 'output_norm.weight')).equals(await tensorBytes(basePath, 'output_norm.weight'))).toBe(true);
  });

  test('bad patches fail with a message and leave no file behind', async () => {
    const target = path.join(dir, 'bad.gguf');
    const patch = (rows: Parameters<typeof patchGguf>[2]['rows']) => patchGguf(basePath, target, { kv: new Map(), rows });
    await expect(patch([{ tensor: 'nope.weight', row: 0, values: newRow }])).rejects.toThrow(/does not have/);
    await expect(patch([{ tensor: 'output.weight', row: ROWS, values: newRow }])).rejects.toThrow(/outside tensor output.weight/);
    await expect(patch([{ tensor: 'output.weight', row: 0, values: newRow.subarray(0, 32) }])).rejects.toThrow(/has 64 values/);
    await expect(patch([{ tensor: 'output_norm.weight', row: 0, values: newRow }])).rejects.toThrow(/not 2-D/);
    await expect(patchGguf(path.join(dir, 'missing.gguf'), target, { kv: new Map(), rows: [] })).rejects.toThrow(/does not exist/);
    expect((await readdir(dir)).filter((name) => name.startsWith('bad.gguf'))).toEqual([]);
  });
});

describe('patchGguf widening Q5_0 matrices to Q8_0', () => {
  let outPath: string;
  const newRow = values(WIDTH, 11);

  beforeAll(async () => {
    outPath = path.join(dir, 'widened.gguf');
    await patchGguf(basePath, outPath, {
      kv: new Map(), rows: [{ tensor: 'token_embd.weight', row: 2, values: newRow }], widenToQ8_0: new Set(['blk.0.ffn_up.weight']),
    });
  });

  test('the widened matrix is Q8_0 and holds exactly the values it held as Q5_0', async () => {
    const [base, derived] = [await header(basePath), await header(outPath)];
    expect(derived.tensors.find((t) => t.name === 'blk.0.ffn_up.weight')!.type).toBe(GgmlType.Q8_0);
    const count = WIDTH * 3;
    const before = decodeTensorData(await tensorBytes(basePath, 'blk.0.ffn_up.weight'), GgmlType.Q5_0, count);
    const after = decodeTensorData(await tensorBytes(outPath, 'blk.0.ffn_up.weight'), GgmlType.Q8_0, count);
    expect(Array.from(after)).toEqual(Array.from(before));
    expect(derived.tensors.map((t) => t.name)).toEqual(base.tensors.map((t) => t.name));
  });

  test('the other tensors keep their type and bytes, and row patches land in the new layout', async () => {
    for (const name of ['output.weight', 'output_norm.weight']) {
      expect((await tensorBytes(outPath, name)).equals(await tensorBytes(basePath, name))).toBe(true);
    }
    const row = rowBytes((await header(basePath)).tensors.find((t) => t.name === 'token_embd.weight')!);
    const [before, after] = [await tensorBytes(basePath, 'token_embd.weight'), await tensorBytes(outPath, 'token_embd.weight')];
    expect(after.subarray(0, 2 * row).equals(before.subarray(0, 2 * row))).toBe(true);
    expect(after.subarray(2 * row, 3 * row).equals(before.subarray(2 * row, 3 * row))).toBe(false);
  });

  test('writers of the same file at once each finish, and the file is whole', async () => {
    const target = path.join(dir, 'raced.gguf');
    const widen = () => patchGguf(basePath, target, { kv: new Map(), rows: [], widenToQ8_0: new Set(['blk.0.ffn_up.weight']) });
    await Promise.all([widen(), widen(), widen()]);
    const single = path.join(dir, 'single.gguf');
    await patchGguf(basePath, single, { kv: new Map(), rows: [], widenToQ8_0: new Set(['blk.0.ffn_up.weight']) });
    expect((await readFile(target)).equals(await readFile(single))).toBe(true);
    expect((await readdir(dir)).filter((name) => name.includes('.partial'))).toEqual([]);
  });

  test('widening a tensor that is missing or not Q5_0 fails with a message', async () => {
    const widen = (name: string) => patchGguf(basePath, path.join(dir, 'bad-widen.gguf'), { kv: new Map(), rows: [], widenToQ8_0: new Set([name]) });
    await expect(widen('nope.weight')).rejects.toThrow(/does not have/);
    await expect(widen('output.weight')).rejects.toThrow(/stored as Q8_0; only Q5_0 widens/);
  });
});

