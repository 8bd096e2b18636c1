/** A LoRA adapter folded into the weights it adapts: the values llama.cpp computes at run time, stored as Q8_0. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GgufWriter } from './ggufWriter.js';
import { readGgufHeader, readTensorBytes, type GgufHeader } from './ggufReader.js';
import { GgmlType, GgufValueType, decodeTensorData } from './ggufTypes.js';
import { addLoraProduct, mergeProblem, readLoraAdapter, type LoraFactors } from './loraMerge.js';
import { patchGguf } from './patchGguf.js';

const INPUTS = 64;
const OUTPUTS = 6;
const RANK = 2;
let dir: string;

function values(count: number, seed: number, size = 1): Float32Array {
  return Float32Array.from({ length: count }, (_, i) => Math.sin(i * 0.37 + seed) * size);
}

async function header(file: string): Promise<GgufHeader> {
  const read = await readGgufHeader(file);
  if (read.kind !== 'ok') throw new Error(read.message);
  return read.header;
}

async function tensorValues(file: string, name: string): Promise<{ type: GgmlType; values: Float32Array; bytes: Buffer }> {
  const h = await header(file);
  const tensor = h.tensors.find((t) => t.name === name)!;
  const bytes = await readTensorBytes(file, h, tensor);
  return { type: tensor.type, bytes, values: decodeTensorData(bytes, tensor.type as GgmlType.Q8_0, tensor.ne.reduce((a, b) => a * b, 1)) };
}

/** W + s·B·A written out the slow way: ΔW[o][i] = s · Σ_r B[o][r] · A[r][i]. */
function expectedMerge(weight: Float32Array, f: LoraFactors): Float32Array {
  return Float32Array.from(weight, (w, k) => {
    const [o, i] = [Math.floor(k / f.inputs), k % f.inputs];
    let delta = 0;
    for (let r = 0; r < f.rank; r++) delta += f.b[o * f.rank + r]! * f.a[r * f.inputs + i]!;
    return w + f.scale * delta;
  });
}

async function writeAdapter(file: string, options: { alpha?: number; target?: string; inputs?: number } = {}): Promise<void> {
  const target = options.target ?? 'blk.0.attn_q.weight';
  const inputs = options.inputs ?? INPUTS;
  const writer = new GgufWriter()
    .addKv('general.architecture', 'test').addKv('general.type', 'adapter').addKv('adapter.type', 'lora');
  if (options.alpha !== undefined) writer.addKv('adapter.lora.alpha', options.alpha, GgufValueType.FLOAT32);
  await writer
    .addTensor(`${target}.lora_a`, [inputs, RANK], values(inputs * RANK, 5, 0.2))
    .addTensor(`${target}.lora_b`, [RANK, OUTPUTS], values(RANK * OUTPUTS, 6, 0.3))
    .write(file);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'lora-merge-'));
  await new GgufWriter()
    .addKv('general.architecture', 'test')
    .addTensor('blk.0.attn_norm.weight', [INPUTS], values(INPUTS, 1))
    .addTensor('blk.0.attn_q.weight', [INPUTS, OUTPUTS], values(INPUTS * OUTPUTS, 2), GgmlType.Q8_0)
    .addTensor('blk.0.attn_k.weight', [INPUTS, OUTPUTS], values(INPUTS * OUTPUTS, 3), GgmlType.Q5_0)
    .write(path.join(dir, 'model.gguf'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('addLoraProduct', () => {
  test('adds s·B·A to each row, as llama.cpp adds s·B·(A·x) to each product', () => {
    const factors: LoraFactors = {
      rank: 2, inputs: 3, outputs: 2, scale: 0.5,
      a: Float32Array.from([1, 2, 3, 4, 5, 6]), // A = [[1, 2, 3], [4, 5, 6]]
      b: Float32Array.from([1, 0, 2, -1]), // B = [[1, 0], [2, -1]]
    };
    const weight = Float32Array.from([10, 20, 30, 40, 50, 60]);
    addLoraProduct(weight, factors);
    // B·A = [[1, 2, 3], [-2, -1, 0]]; half of it added.
    expect([...weight]).toEqual([10.5, 21, 31.5, 39, 49.5, 60]);
  });
});

describe('readLoraAdapter', () => {
  test('reads each weight\'s factors and its scale: alpha over the rank, or 1 without alpha', async () => {
    await writeAdapter(path.join(dir, 'alpha.gguf'), { alpha: 8 });
    await writeAdapter(path.join(dir, 'no-alpha.gguf'));
    const [withAlpha, without] = [await readLoraAdapter(path.join(dir, 'alpha.gguf')), await readLoraAdapter(path.join(dir, 'no-alpha.gguf'))];
    expect(withAlpha.get('blk.0.attn_q.weight')).toMatchObject({ rank: RANK, inputs: INPUTS, outputs: OUTPUTS, scale: 4 });
    expect(without.get('blk.0.attn_q.weight')!.scale).toBe(1);
  });

  test('refuses a file that is not an adapter, and factors that do not pair', async () => {
    await expect(readLoraAdapter(path.join(dir, 'model.gguf'))).rejects.toThrow(/is not a LoRA adapter GGUF/);
    await new GgufWriter().addKv('general.type', 'adapter').addKv('adapter.type', 'lora')
      .addTensor('w.lora_a', [INPUTS, RANK], values(INPUTS * RANK, 1))
      .addTensor('w.lora_b', [RANK + 1, OUTPUTS], values((RANK + 1) * OUTPUTS, 1))
      .write(path.join(dir, 'unpaired.gguf'));
    await expect(readLoraAdapter(path.join(dir, 'unpaired.gguf'))).rejects.toThrow(/do not pair/);
  });
});

describe('patchGguf with mergeLora', () => {
  test('stores W + s·B·A as Q8_0, from a Q8_0 or a Q5_0 weight, and copies every other tensor as it was', async () => {
    const model = path.join(dir, 'model.gguf');
    const adapterFile = path.join(dir, 'both.gguf');
    await new GgufWriter().addKv('general.type', 'adapter').addKv('adapter.type', 'lora').addKv('adapter.lora.alpha', 1, GgufValueType.FLOAT32)
      .addTensor('blk.0.attn_q.weight.lora_a', [INPUTS, RANK], values(INPUTS * RANK, 5, 0.2))
      .addTensor('blk.0.attn_q.weight.lora_b', [RANK, OUTPUTS], values(RANK * OUTPUTS, 6, 0.3))
      .addTensor('blk.0.attn_k.weight.lora_a', [INPUTS, RANK], values(INPUTS * RANK, 7, 0.2))
      .addTensor('blk.0.attn_k.weight.lora_b', [RANK, OUTPUTS], values(RANK * OUTPUTS, 8, 0.3))
      .write(adapterFile);
    const adapter = await readLoraAdapter(adapterFile);
    const out = path.join(dir, 'merged.gguf');
    await patchGguf(model, out, { kv: new Map(), rows: [], mergeLora: adapter });

    for (const name of ['blk.0.attn_q.weight', 'blk.0.attn_k.weight']) {
      const [before, after] = [await tensorValues(model, name), await tensorValues(out, name)];
      expect(after.type).toBe(GgmlType.Q8_0);
      const expected = expectedMerge(before.values, adapter.get(name)!);
      // Q8_0 rounds each value to within half a step (a block's largest magnitude / 127), and its
      // scale to float16 (a relative 2^-11 more).
      const largest = Math.max(...expected.map(Math.abs));
      const step = largest / 127;
      after.values.forEach((value, i) => expect(Math.abs(value - expected[i]!)).toBeLessThanOrEqual(step / 2 + largest / 2048));
      expect(after.values.some((value, i) => Math.abs(value - before.values[i]!) > step)).toBe(true);
    }
    const norm = [await tensorValues(model, 'blk.0.attn_norm.weight'), await tensorValues(out, 'blk.0.attn_norm.weight')];
    expect(norm[1]!.bytes.equals(norm[0]!.bytes)).toBe(true);
  });

  test('refuses an adapter for a weight the model lacks or of another shape, and writes nothing', async () => {
    await writeAdapter(path.join(dir, 'foreign.gguf'), { target: 'blk.9.attn_q.weight' });
    await writeAdapter(path.join(dir, 'narrow.gguf'), { inputs: 32 });
    const model = path.join(dir, 'model.gguf');
    const out = path.join(dir, 'refused.gguf');
    await expect(patchGguf(model, out, { kv: new Map(), rows: [], mergeLora: await readLoraAdapter(path.join(dir, 'foreign.gguf')) }))
      .rejects.toThrow(/adapts blk\.9\.attn_q\.weight, which the base model does not have/);
    await expect(patchGguf(model, out, { kv: new Map(), rows: [], mergeLora: await readLoraAdapter(path.join(dir, 'narrow.gguf')) }))
      .rejects.toThrow(/does not fit its adapter/);
    expect((await readGgufHeader(out)).kind).toBe('missing');
  });

  test('mergeProblem names a weight stored in a type the merge cannot read', () => {
    const factors: LoraFactors = { rank: 1, inputs: 256, outputs: 1, scale: 1, a: new Float32Array(256), b: new Float32Array(1) };
    expect(mergeProblem({ name: 'w', ne: [256, 1], type: GgmlType.Q4_K, offset: 0 }, factors)).toMatch(/stored as Q4_K/);
    expect(mergeProblem({ name: 'w', ne: [256, 1], type: GgmlType.Q8_0, offset: 0 }, factors)).toBeUndefined();
  });
});
