/**
 * LoRA adapters (the adapterPath setting): a file that does not fit the model is refused with
 * the reason before llama.cpp sees it, and one that fits changes the model's states exactly
 * when its update is non-zero.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { readGgufHeader, type GgufHeader } from '../gguf/ggufReader.js';
import { GgufValueType } from '../gguf/ggufTypes.js';
import { GgufWriter } from '../gguf/ggufWriter.js';
import { silentLogger } from '../../util/logger.js';
import { adapterFileProblem, loadLlamaModel } from './loadLlamaModel.js';

const WIDTH = 64; // the tiny model's embedding length
let dir: string;
let tiny: TinyModel;
let header: GgufHeader;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'adapter-'));
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf') });
  const read = await readGgufHeader(tiny.path);
  if (read.kind !== 'ok') throw new Error('tiny model unreadable');
  header = read.header;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface AdapterShape {
  architecture?: string;
  target?: string;
  /** ne of lora_a and lora_b (ggml order). */
  a?: number[];
  b?: number[];
  /** Value of every element of B: 0 leaves the model as it is. */
  bValue?: number;
  type?: string;
  /** adapter.lora.alpha's GGUF type (llama.cpp needs FLOAT32). */
  alphaType?: GgufValueType;
}

async function writeAdapter(name: string, shape: AdapterShape = {}): Promise<string> {
  const rank = 2;
  const [a, b] = [shape.a ?? [WIDTH, rank], shape.b ?? [rank, WIDTH]];
  const target = shape.target ?? 'blk.0.attn_q.weight';
  const file = path.join(dir, name);
  const writer = new GgufWriter()
    .addKv('general.architecture', shape.architecture ?? 'llama')
    .addKv('general.type', shape.type ?? 'adapter')
    .addKv('adapter.type', 'lora')
    .addKv('adapter.lora.alpha', rank, shape.alphaType ?? GgufValueType.FLOAT32);
  writer.addTensor(`${target}.lora_a`, a, Float32Array.from({ length: a[0]! * a[1]! }, (_, i) => Math.sin(i)));
  writer.addTensor(`${target}.lora_b`, b, new Float32Array(b[0]! * b[1]!).fill(shape.bValue ?? 0.5));
  await writer.write(file);
  return file;
}

test('an adapter that fits passes; each misfit is named, with the fix', async () => {
  expect(await adapterFileProblem(await writeAdapter('fits.gguf'), header)).toBeUndefined();
  expect(await adapterFileProblem(path.join(dir, 'absent.gguf'), header)).toMatch(/^LoRA adapter not found: .*absent\.gguf\. Write it again/);
  expect(await adapterFileProblem(await writeAdapter('arch.gguf', { architecture: 'qwen2' }), header)).toMatch(/is for qwen2, the model is llama/);
  expect(await adapterFileProblem(await writeAdapter('shape.gguf', { a: [32, 2], b: [2, WIDTH] }), header))
    .toMatch(/blk\.0\.attn_q\.weight's adapters do not fit its shape \[64, 64\]/);
  expect(await adapterFileProblem(await writeAdapter('target.gguf', { target: 'blk.9.attn_q.weight' }), header))
    .toMatch(/adapts blk\.9\.attn_q\.weight, which the model does not have/);
  expect(await adapterFileProblem(tiny.path, header)).toMatch(/is not a LoRA adapter GGUF/);
  // An integer alpha made llama.cpp abort the whole process (GGML_ASSERT in gguf.cpp) before this check.
  expect(await adapterFileProblem(await writeAdapter('alpha.gguf', { alphaType: GgufValueType.UINT32 }), header))
    .toMatch(/adapter\.lora\.alpha must be a float32/);
});

test('the server refuses a misfit adapter as an invalid model instead of handing it to llama.cpp', async () => {
  const loaded = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0, adapterPath: await writeAdapter('misfit.gguf', { a: [32, 2] }) }, silentLogger);
  expect(loaded).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/do not fit its shape/) });
});

test('a loaded adapter changes the states by its update, and a zero update changes nothing', async () => {
  const prompt = [...'def area(self):'].map((c) => tiny.id(c === ' ' ? 'Ġ' : c));
  const statesWith = async (adapterPath?: string) => {
    const loaded = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0, adapterPath }, silentLogger);
    if (loaded.kind !== 'ok') throw new Error(loaded.message);
    const reader = await loaded.model.createHiddenStateReader!();
    try {
      return Array.from((await reader.statesAfter(prompt, []))[0]!);
    } finally {
      await reader.dispose();
      await loaded.model.dispose();
    }
  };
  const base = await statesWith(undefined);
  const zero = await statesWith(await writeAdapter('zero.gguf', { bValue: 0 }));
  const update = await statesWith(await writeAdapter('update.gguf', { bValue: 0.5 }));
  const distance = (x: number[], y: number[]) => Math.max(...x.map((v, i) => Math.abs(v - y[i]!)));
  expect(distance(base, zero)).toBeLessThan(1e-5);
  expect(distance(base, update)).toBeGreaterThan(1e-2);
});
