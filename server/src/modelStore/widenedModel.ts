/**
 * The same model, multiplied faster: a copy of a verified GGUF whose Q5_0 matrices are stored as
 * Q8_0 holding the same values (patchGguf's widening). llama.cpp's Q8_0 kernels, AMX tiles where
 * the CPU has them, read a prompt about twice as fast as its Q5_0 ones on this project's machines
 * (docs/history/2026-12-04-bench-q8-shifted-reuse.md, "Q8_0 matrices"). Control packs widen their derived model themselves
 * (`matmulWeights`); this is for tools that must run a base model as it is, such as the labeler,
 * whose frozen generator is the base.
 */
import { existsSync, statSync } from 'node:fs';
import { readGgufHeader, type GgufHeader } from '../model/gguf/ggufReader.js';
import { GgmlType } from '../model/gguf/ggufTypes.js';
import { patchGguf } from '../model/gguf/patchGguf.js';

/**
 * The Q5_0 matrices a model multiplies by: every Q5_0 tensor but the token embedding, whose rows
 * are only looked up (and where a control pack writes its tokens' input rows, as Q5_0).
 */
export function q5_0Matrices(header: GgufHeader): Set<string> {
  return new Set(header.tensors.filter((t) => t.type === GgmlType.Q5_0 && t.name !== 'token_embd.weight').map((t) => t.name));
}

/**
 * The widened copy of `basePath`, written beside it the first time (and again when the base is
 * newer); `basePath` itself when it has no Q5_0 matrix. The copy is written through a rename, so a
 * file there is whole.
 */
export async function widenedModel(basePath: string): Promise<{ path: string; widened: boolean }> {
  const read = await readGgufHeader(basePath);
  if (read.kind !== 'ok') throw new Error(read.message);
  const matrices = q5_0Matrices(read.header);
  if (matrices.size === 0) return { path: basePath, widened: false };
  const out = basePath.replace(/(\.gguf)?$/, '.q8_0-matrices.gguf');
  if (!existsSync(out) || statSync(out).mtimeMs < statSync(basePath).mtimeMs) {
    await patchGguf(basePath, out, { kv: new Map(), rows: [], widenToQ8_0: matrices });
  }
  return { path: out, widened: true };
}
