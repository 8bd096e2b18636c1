import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { writeTinyModel } from '../../../test/support/tinyModel.js';
import { readGgufHeader } from '../model/gguf/ggufReader.js';
import { GgmlType } from '../model/gguf/ggufTypes.js';
import { widenedModel } from './widenedModel.js';

test('a Q5_0 model gets a widened copy beside it, made once; its matrices are Q8_0, its embedding stays', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'widened-'));
  const tiny = await writeTinyModel({ path: path.join(dir, 'base.gguf'), weightType: GgmlType.Q5_0 });
  const first = await widenedModel(tiny.path);
  expect(first).toEqual({ path: path.join(dir, 'base.q8_0-matrices.gguf'), widened: true });
  const read = await readGgufHeader(first.path);
  if (read.kind !== 'ok') throw new Error(read.message);
  const types = new Map(read.header.tensors.map((t) => [t.name, t.type]));
  expect(types.get('token_embd.weight')).toBe(GgmlType.Q5_0);
  expect(types.get('blk.0.ffn_up.weight')).toBe(GgmlType.Q8_0);
  expect(types.get('output.weight')).toBe(GgmlType.Q8_0);
  const written = statSync(first.path).mtimeMs;
  expect(await widenedModel(tiny.path)).toEqual(first);
  expect(statSync(first.path).mtimeMs).toBe(written);
});

test('a model without Q5_0 matrices is used as it is', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'widened-'));
  const tiny = await writeTinyModel({ path: path.join(dir, 'base.gguf'), weightType: GgmlType.Q8_0 });
  expect(await widenedModel(tiny.path)).toEqual({ path: tiny.path, widened: false });
});
