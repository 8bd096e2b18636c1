import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { silentLogger } from '../../util/logger.js';
import type { CompletionModel, HiddenStateReader } from '../completionModel.js';
import { readGgufHeader, readTensorBytes } from '../gguf/ggufReader.js';
import { GgmlType, decodeTensorData } from '../gguf/ggufTypes.js';
import { loadLlamaModel } from './loadLlamaModel.js';

let tiny: TinyModel;
let model: CompletionModel;
let reader: HiddenStateReader;
let outputMatrix: Float32Array;
const WIDTH = 64;

beforeAll(async () => {
  tiny = await writeTinyModel({ path: path.join(mkdtempSync(path.join(tmpdir(), 'hidden-')), 'tiny.gguf') });
  const loaded = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0 }, silentLogger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  model = loaded.model;
  reader = await model.createHiddenStateReader!();
  const read = await readGgufHeader(tiny.path);
  if (read.kind !== 'ok') throw new Error(read.message);
  const tensor = read.header.tensors.find((t) => t.name === 'output.weight')!;
  outputMatrix = decodeTensorData(await readTensorBytes(tiny.path, read.header, tensor), GgmlType.F32, tensor.ne[0]! * tensor.ne[1]!);
});

afterAll(async () => {
  await reader?.dispose();
  await model?.dispose();
});

const logit = (h: Float32Array, token: number) => h.reduce((sum, v, i) => sum + v * outputMatrix[token * WIDTH + i]!, 0);

describe('hidden states', () => {
  test('W_out·h gives the model\'s own next-token preferences, after the prefix and after each step', async () => {
    const prefix = model.tokenize('def add(a, b):\n');
    const steps = [model.tokenize('    return'), model.tokenize(' a +')];
    const states = await reader.statesAfter(prefix, steps);
    expect(states.map((h) => h.length)).toEqual([WIDTH, WIDTH, WIDTH]);
    const session = await model.createSession();
    const [first, second] = [tiny.id('def'), tiny.id('Ġself')];
    let context = [...prefix];
    for (const [i, h] of states.entries()) {
      if (i > 0) context = [...context, ...steps[i - 1]!];
      const decision = await session.decide(context, first, second);
      const fromStates = 1 / (1 + Math.exp(-(logit(h, first) - logit(h, second))));
      expect(fromStates).toBeCloseTo(decision.probabilityFirst, 4);
    }
    await session.dispose();
    // A different prefix gives a different state: the reader does not reuse a stale one.
    const [other] = await reader.statesAfter(model.tokenize('import os\n'), []);
    expect(other).not.toEqual(states[0]);
    // The same prefix again (partly cached now) gives the same states as the first call.
    await reader.statesAfter(prefix, steps);
    const again = await reader.statesAfter(prefix, [steps[1]!]);
    for (let i = 0; i < WIDTH; i++) expect(again[0]![i]).toBeCloseTo(states[0]![i]!, 4);
  });

  test('parts that cannot be evaluated are refused', async () => {
    await expect(reader.statesAfter([], [])).rejects.toThrow(/at least one token/);
    await expect(reader.statesAfter(model.tokenize('x'), [[]])).rejects.toThrow(/at least one token/);
    await expect(reader.statesAfter(new Array(5000).fill(model.tokenize('x')[0]), [])).rejects.toThrow(/do not fit/);
  });
});
